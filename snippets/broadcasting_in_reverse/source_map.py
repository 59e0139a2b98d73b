"""Where broadcasting-in-reverse lives in ad_core: a source map computed from the code."""

import ast
import inspect
from pathlib import Path

import ad_core.numpy as anp
from ad_core.core import backward_pass, defvjp
from ad_core.numpy import vjps
from ad_core.numpy.jvps import broadcast
from ad_core.numpy.vjps import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import checked, engine_index, load_snippet_module, source_map, text

helpers = load_snippet_module(Path(__file__).with_name("_helpers.py"))

print(source_map([
    (unbroadcast_f, "target, raw VJP `f` → VJP that returns the target's shape",
     "captures the target's metadata in the forward pass"),
    (metadata, "value → `(shape, ndim, dtype, iscomplex)`", "describes the target's vector space"),
    (unbroadcast, "broadcast cotangent, metadata → cotangent of the target's shape",
     "the reduction: leading sums, keepdims sums, real part"),
    (broadcast, "tangent, metadata → tangent of the output's shape",
     "forward mode's twin: expands where reverse mode sums"),
    (defvjp, "primitive, VJP makers → registered rules", "how `add` gets its two rules"),
    (backward_pass, "output cotangent, graph → root cotangent",
     "calls each rule, checks its shape, accumulates"),
]))

# The rule makers are lambdas passed to defvjp at module level, so the "called by" column of
# unbroadcast_f names the module, not a function; list the registrations behind that entry.
index = engine_index()
callers = [index.definitions[key].short_name for key in index.called_by[index.key_of(unbroadcast_f)]]
assert callers[0] == "numpy.vjps (module level)", callers
# Everything else that calls it is a rule of the SciPy layer, written the same way.
elsewhere = callers[1:]
assert elsewhere and all(name.startswith("scipy.") for name in elsewhere), elsewhere
# Read from the source (registrations inside a top-level `for` loop included); names that are
# aliases of one primitive (`mod` is `remainder`) count once.
by_primitive: dict[int, str] = {}
for name in helpers.rule_makers_calling(vjps, "unbroadcast_f"):
    by_primitive.setdefault(id(getattr(anp, name).vjps), name)
registrations = list(by_primitive.values())
assert {"add", "subtract", "multiply", "maximum", "mod"} <= set(registrations)
shown = ", ".join(f"`{name}`" for name in registrations)

# Counted another way, on the live rule tables: every rule table of ad_core.numpy (aliases and
# `where`'s wrapper share one) holding a VJP maker whose code calls unbroadcast_f.
registering = {id(fun.vjps) for fun in vars(anp.wrapper).values()
               if isinstance(getattr(fun, "vjps", None), dict)
               and any("unbroadcast_f" in getattr(getattr(maker, "__code__", None), "co_names", ())
                       for maker in fun.vjps.values())}


def places_calling(path: Path, name: str) -> set[str]:
    """The functions (or the module level) of a file whose code calls `name`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    places = set()
    for statement in tree.body:
        calls = [node for node in ast.walk(statement)
                 if isinstance(node, ast.Call) and getattr(node.func, "id", None) == name]
        if calls:
            places.add(statement.name if isinstance(statement, ast.FunctionDef) else "(module level)")
    return {f"{path.stem}:{place}" for place in places}


scipy_dir = Path(inspect.getsourcefile(vjps)).parent.parent / "scipy"
scipy_places = set().union(*(places_calling(path, "unbroadcast_f") for path in scipy_dir.rglob("*.py")))
print()
print(text(
    "`unbroadcast_f` is called by {first}: its callers there are not named functions but the VJP "
    "makers, lambdas registered with `defvjp` at the top level of `vjps.py` (some inside a "
    "`for` loop over several primitives). Scanning those "
    "registrations finds {count} primitives whose rules call `unbroadcast_f`: {names}. Its "
    "{others} other callers are rules of `ad_core.scipy`, which reduce their cotangents the same "
    "way.",
    first=f"`{callers[0]}`",
    count=checked(len(by_primitive), against=len(registering)),
    names=shown,
    others=checked(len(elsewhere), against=len(scipy_places)),
))
