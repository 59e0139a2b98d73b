"""Where VJP rules live in ad_core: the source map and the live source of each piece."""

# Each named section runs on its own in the page, so it imports what it needs.
# ruff: noqa: E402

# --8<-- [start:map]
from ad_core.core import VJPNode, backward_pass, def_linear, defvjp
from ad_core.numpy.vjps import grad_sum, unbroadcast_f
from ad_core.tracer import primitive
from bookkit import source_map

print(source_map([
    (primitive, "raw NumPy function → traced primitive", "records one node per call on boxes"),
    (defvjp, "primitive, one maker per argument → rules stored on the primitive",
     "registers reverse-mode rules; `None` becomes a zero rule"),
    (VJPNode, "ans, args → one closure per traced parent", "calls each maker in the forward pass"),
    (backward_pass, "output cotangent → root cotangent", "calls each closure; checks its shape"),
    (unbroadcast_f, "target, raw VJP → shape-aware VJP", "reduces broadcast axes"),
    (grad_sum, "ans, x, axis → (g → g repeated to x's shape)", "a rule written as a named maker"),
    (def_linear, "primitive → JVP rules", "forward rule of a linear map: the map itself"),
]))
# --8<-- [end:map]

# --8<-- [start:defvjp]
from ad_core.core import defvjp
from bookkit import show_source

print(show_source(defvjp))
# --8<-- [end:defvjp]

# --8<-- [start:node]
from ad_core.core import VJPNode
from bookkit import show_excerpt

print(show_excerpt(VJPNode.__init__, r"makers = fun\.vjps", r"self\.vjps = vjps$",
                   full_listing="[Tracing with boxes](tracing.md)"))
# --8<-- [end:node]

# --8<-- [start:backward]
from ad_core.core import backward_pass
from bookkit import show_excerpt

print(show_excerpt(backward_pass, r"for parent, argnum, vjp in edges", r"raise _shape_error",
                   full_listing="[The backward pass](backward-pass.md)"))
# --8<-- [end:backward]

# --8<-- [start:unbroadcast_f]
from ad_core.numpy.vjps import unbroadcast_f
from bookkit import show_excerpt

print(show_excerpt(unbroadcast_f, r"target_meta = anp\.metadata", r"return lambda g: unbroadcast",
                   full_listing="[Broadcasting in reverse](broadcasting-in-reverse.md)"))
# --8<-- [end:unbroadcast_f]

# --8<-- [start:grad_sum]
from ad_core.numpy.vjps import grad_sum
from bookkit import show_source

print(show_source(grad_sum))
# --8<-- [end:grad_sum]

# --8<-- [start:def_linear]
from ad_core.core import def_linear
from bookkit import show_source

print(show_source(def_linear))
# --8<-- [end:def_linear]
