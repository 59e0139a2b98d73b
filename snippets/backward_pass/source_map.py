"""Where the backward pass lives in the engine: a source map computed from ad_core's code."""

from ad_core import grad
from ad_core.core import VJPNode, backward_pass, make_vjp
from ad_core.differential_operators import _grad
from ad_core.tracer import toposort
from bookkit import source_map

print(
    source_map(
        [
            (grad, "function → gradient function", "picks the argument, hands it to `_grad`"),
            (_grad, "function, x → gradient", "checks for a scalar output, seeds the cotangent with one"),
            (make_vjp, "function, x → (vjp, value)", "traces once; vjp(g) runs a backward pass"),
            (backward_pass, "g, output node → cotangent of the root", "visits nodes, calls VJPs, adds"),
            (toposort, "output node → list of nodes", "orders nodes: children before parents"),
            (VJPNode, "forward values → closures", "holds `parents`, `parent_argnums`, `vjps`"),
        ]
    )
)
