"""Where tracing lives in the engine: a source map computed from ad_core's code."""

from ad_core import grad
from ad_core.core import VJPNode, make_vjp
from ad_core.numpy.array_box import ArrayBox
from ad_core.tracer import Box, new_box, notrace_primitive, primitive, trace
from bookkit import source_map

print(
    source_map(
        [
            (grad, "function, argnum → function returning the gradient", "entry point"),
            (make_vjp, "function, x → (vjp, value)", "creates the root node, starts a trace"),
            (trace, "root node, function, x → output value, output node", "boxes x, runs the function"),
            (new_box, "value, level, node → box", "picks the box class for the value's type"),
            (Box, "value, level, node", "carries a value through user code"),
            (ArrayBox, "—", "makes a box behave like an ndarray"),
            (primitive, "NumPy function → traced function", "records one node per call on boxes"),
            (notrace_primitive, "NumPy function → plain function", "unboxes: no derivative"),
            (VJPNode, "value, function, args, parents → node", "stores parents and VJP closures"),
        ]
    )
)
