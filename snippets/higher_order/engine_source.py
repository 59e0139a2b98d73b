"""Where higher-order differentiation lives in ad_core: nested traces and the Hessian operators."""

# Each named section runs on its own in the page, so it imports what it needs.
# ruff: noqa: E402

# --8<-- [start:map]
from ad_core.differential_operators import (
    hessian,
    hessian_vector_product,
    hessian_vector_product_reverse,
)
from ad_core.tracer import TraceStack, primitive, trace
from bookkit import source_map

print(source_map([
    (TraceStack, "→ increasing trace levels", "tells nested differentiations apart"),
    (trace, "start node, f, x → output value, output node", "boxes x at a new level"),
    (primitive, "boxed arguments → boxed output",
     "opens only the innermost level's boxes; re-dispatches if values are still boxed"),
    (hessian, "f → (x → H)", "Jacobian of the Jacobian"),
    (hessian_vector_product, "f → (x, v → H v)", "forward-over-reverse"),
    (hessian_vector_product_reverse, "f → (x, v → H v)", "reverse-over-reverse"),
]))
# --8<-- [end:map]

# --8<-- [start:trace]
from ad_core.tracer import trace
from bookkit import show_excerpt

print(show_excerpt(trace, r"with trace_stack\.new_trace\(\) as level", r"return end_box, None",
                   full_listing="[Tracing with boxes](tracing.md)"))
# --8<-- [end:trace]

# --8<-- [start:primitive]
from ad_core.tracer import primitive
from bookkit import show_excerpt

print(show_excerpt(primitive, r"for argnum, arg in enumerate\(args\)",
                   r"node = type\(parents\[0\]\)", full_listing="[Tracing with boxes](tracing.md)"))
# --8<-- [end:primitive]

# --8<-- [start:hessians]
from ad_core.differential_operators import (
    hessian,
    hessian_vector_product,
    hessian_vector_product_reverse,
)
from bookkit import show_source

print(show_source(hessian))
print(show_source(hessian_vector_product))
print(show_source(hessian_vector_product_reverse))
# --8<-- [end:hessians]
