"""Where broadcasting-in-reverse lives in ad_core: a source map computed from the code."""

from ad_core import grad, make_vjp
from ad_core.core import backward_pass, defvjp
from ad_core.numpy import vjps
from ad_core.numpy.jvps import broadcast
from ad_core.numpy.vjps import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import metadata
from bookkit import engine_index, load_snippet_module, source_map

helpers = load_snippet_module("snippets/broadcasting_in_reverse/_helpers.py")

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
    (make_vjp, "function, point → `(vjp, value)`", "route 1 of the experiments"),
    (grad, "scalar function → gradient function", "route 2 of the experiments"),
]))

# The rule makers are lambdas passed to defvjp at module level, so the "called by" column of
# unbroadcast_f names the module, not a function; list the registrations behind that entry.
index = engine_index()
callers = [index.definitions[key].short_name for key in index.called_by[index.key_of(unbroadcast_f)]]
assert callers[0] == "numpy.vjps (module level)", callers
# Everything else that calls it is a rule of the SciPy layer, written the same way.
elsewhere = callers[1:]
assert elsewhere and all(name.startswith("scipy.") for name in elsewhere), elsewhere
registrations = helpers.rule_makers_calling(vjps, "unbroadcast_f")
assert {"add", "subtract", "multiply"} <= set(registrations)
shown = ", ".join(f"`{name}`" for name in registrations)
print()
print(
    f"`unbroadcast_f` is called by `{callers[0]}`: its callers there are not named functions "
    f"but the VJP makers, lambdas registered with `defvjp` at the top level of `vjps.py`. "
    f"Scanning those registrations finds {len(registrations)} primitives whose rules call "
    f"`unbroadcast_f`: {shown}. Its {len(elsewhere)} other callers are rules of "
    f"`ad_core.scipy`, which reduce their cotangents the same way."
)
