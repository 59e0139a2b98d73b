"""Where the products of this chapter live in the engine: a source map computed from the code."""

from ad_core import grad, jacobian, make_jvp, make_vjp
from ad_core.core import backward_pass
from ad_core.core import make_jvp as core_make_jvp
from ad_core.core import make_vjp as core_make_vjp
from bookkit import source_map

print(
    source_map(
        [
            (make_jvp, "f, x → (v ↦ (f(x), J v))", "JVP: forward mode, one pass per direction"),
            (core_make_jvp, "f, x → jvp", "traces with a JVPNode root holding the tangent"),
            (make_vjp, "f, x → (u ↦ uᵀ J, f(x))", "VJP: reverse mode, one trace, any number of passes"),
            (core_make_vjp, "f, x → (vjp, value)", "traces with a VJPNode root"),
            (backward_pass, "u, output node → uᵀ J", "the adjoint trace"),
            (grad, "f → ∇f", "VJP with u = 1 for a scalar output"),
            (jacobian, "f → J", "one VJP per output element"),
        ]
    )
)
