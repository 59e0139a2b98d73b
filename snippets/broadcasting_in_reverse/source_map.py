"""Where broadcasting-in-reverse lives in ad_core: the four functions, with the callers this
chapter is about. Locations, callers and callees are read from the engine's code (`ast`); the
other callers are counted, not listed."""

import ast
import inspect
import textwrap
from pathlib import Path

import ad_core.numpy as anp
from ad_core.numpy import vjps
from ad_core.numpy.jvps import broadcast
from ad_core.numpy.vjps import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import checked, engine_index, load_snippet_module, md_table, text
from bookkit.source import breakable_code, located

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))
index = engine_index()


def short(key):
    return index.definitions[key].short_name


def callers_cell(obj, shown):
    """The callers named in `shown` (each must be one, per the index), then how many others."""
    callers = sorted(short(key) for key in index.called_by[index.key_of(obj)])
    assert set(shown) <= set(callers), (obj, shown, callers)
    others = [name for name in callers if name not in shown]
    # Dotted names may break after a `.` or `_`, so the six columns fit the page's width.
    named = ", ".join(breakable_code(name) for name in shown)
    if not others:
        return named
    return text("{named} and {n} others", named=named,
                n=checked(len(others), against=len(callers) - len(shown)))


def calls_cell(obj):
    """The engine functions `obj` refers to (the index), then the NumPy primitives it calls
    through `anp.` (attribute calls, which the index does not resolve), read with `ast`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(obj)))
    primitives = [f"anp.{node.func.attr}" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and getattr(node.func.value, "id", None) == "anp"]
    resolved = [short(key) for key in index.calls[index.key_of(obj)]]
    # `anp.metadata` is the engine function the index already resolved, not a primitive.
    primitives = [name for name in dict.fromkeys(primitives)
                  if not any(other.endswith("." + name.removeprefix("anp.")) for other in resolved)]
    names = resolved + primitives
    return ", ".join(breakable_code(name) for name in names) or "—"


# The rule makers are lambdas registered with defvjp at the top level of vjps.py, so the index
# names the module as unbroadcast_f's caller; read the primitives off those registrations
# (registrations inside a top-level `for` loop included; aliases such as `mod` count once).
by_primitive: dict[int, str] = {}
for name in helpers.rule_makers_calling(vjps, "unbroadcast_f"):
    by_primitive.setdefault(id(getattr(anp, name).vjps), name)
registrations = list(by_primitive.values())
assert {"add", "subtract", "multiply", "true_divide", "maximum", "mod"} <= set(registrations)
# Counted another way, on the live rule tables: every rule table of ad_core.numpy holding a
# VJP maker whose code calls unbroadcast_f.
registering = {id(fun.vjps) for fun in vars(anp.wrapper).values()
               if isinstance(getattr(fun, "vjps", None), dict)
               and any("unbroadcast_f" in getattr(getattr(maker, "__code__", None), "co_names", ())
                       for maker in fun.vjps.values())}
assert "numpy.vjps (module level)" in [short(key) for key in index.called_by[index.key_of(unbroadcast_f)]]

makers = text("the VJP makers of {n} primitives (`add`, `multiply`, …)",
              n=checked(len(by_primitive), against=len(registering)))
TO_OUTPUT = "numpy.jvps.broadcast_to_output"
# (symbol, called by, input → output, role)
functions = [
    (unbroadcast_f, makers, "target, raw VJP `f` → VJP that returns the target's shape",
     "captures the target's metadata in the forward pass"),
    (metadata, callers_cell(metadata, ["numpy.vjps.unbroadcast_f", TO_OUTPUT]),
     "value → `(shape, ndim, dtype, iscomplex)`", "describes the target's vector space"),
    (unbroadcast, callers_cell(unbroadcast, ["numpy.vjps.unbroadcast_f"]),
     "cotangent, metadata → cotangent of the target's shape",
     "the reduction: leading sums, keepdims sums, real part"),
    (broadcast, callers_cell(broadcast, [TO_OUTPUT]), "tangent, metadata → tangent of the output's shape",
     "forward mode's twin: copies where reverse mode sums"),
]
rows = [[breakable_code(obj.__name__), located(obj), called_by, calls_cell(obj), in_out, role]
        for obj, called_by, in_out, role in functions]
print(md_table(["symbol", "where", "called by", "calls", "input → output", "role"], rows))
print()
print(text(
    "The {count} primitives whose rules call `unbroadcast_f` (read off their `defvjp` "
    "registrations in `vjps.py`, and counted again on the live rule tables): {names}.",
    count=checked(len(by_primitive), against=len(registering)),
    names=", ".join(f"`{name}`" for name in registrations),
))
