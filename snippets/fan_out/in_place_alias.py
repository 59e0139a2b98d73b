"""A subtler accumulation bug: adding in place into a stored contribution. VJP rules may return
the very array they received, so one buffer can be the cotangent of several nodes at once."""

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.tracer import toposort, trace
from bookkit import fmt_array, md_table


# --8<-- [start:in_place]
def backward_pass_in_place(g, end_node):
    """backward_pass, adding later arrivals into the stored array."""
    outgrads = {end_node: g}
    for node in toposort(end_node):
        g = outgrads.pop(node)
        for parent, vjp in zip(node.parents, node.vjps, strict=True):
            contribution = vjp(g)
            if parent in outgrads:
                outgrads[parent] += contribution  # BUG: writes into a shared array
            else:
                outgrads[parent] = contribution
    return g


# --8<-- [end:in_place]


# --8<-- [start:function]
def f(x):
    p = x * 2.0
    q = anp.sin(x)
    return (p + q) + p  # add's rule hands the same g to both of its arguments


def loss(x):
    return anp.sum(f(x))


# --8<-- [end:function]


x = np.array([0.3, -1.1, 2.0])
_, end_node = trace(VJPNode.new_root(x), f, x)
seed = np.ones(3)  # a VJP with a cotangent of ones: the gradient of sum(f(x))
shared = [vjp(seed) is seed for vjp in end_node.vjps]
assert all(shared), "add's rule returns its cotangent unchanged, as the same object"

right = backward_pass(np.ones(3), end_node)
wrong = backward_pass_in_place(np.ones(3), end_node)
step = 1e-6
central = np.array([(loss(x + step * e) - loss(x - step * e)) / (2 * step) for e in np.eye(3)])
expected = 4.0 + np.cos(x)  # p appears twice (2 + 2), q once
assert np.allclose(right, expected, rtol=1e-14)
assert np.allclose(central, expected, rtol=1e-7)
assert wrong.shape == x.shape and not np.allclose(wrong, central, rtol=1e-6)

# Through grad of the scalar loss, the seed reaches add as a read-only broadcast view.
_, loss_end = trace(VJPNode.new_root(x), loss, x)
assert loss_end.fun.__name__ == "sum"
sum_cotangent = loss_end.vjps[0](1.0)
assert sum_cotangent.shape == x.shape and not sum_cotangent.flags.writeable
try:
    backward_pass_in_place(1.0, loss_end)
except ValueError as error:
    scalar_outcome = f"`ValueError: {error}`"
else:
    raise AssertionError("expected the read-only cotangent to refuse the in-place add")

print(
    md_table(
        ["backward pass", "gradient of `sum(f(x))`", "agrees with central differences?"],
        [
            [
                "`backward_pass` (`add_cotangents(previous, contribution)`)",
                fmt_array(right),
                "yes" if np.allclose(right, central, rtol=1e-6) else "no",
            ],
            [
                "in-place `+=`, seeded with `np.ones(3)`",
                fmt_array(wrong),
                "yes" if np.allclose(wrong, central, rtol=1e-6) else "no",
            ],
            ["in-place `+=`, through `anp.sum` (as `grad` does)", scalar_outcome, "—"],
            ["central differences", fmt_array(central, 6), "—"],
        ],
    )
)
print()
print(
    "The `add` node's rule returned its incoming cotangent itself to both arguments "
    f"(`vjp(g) is g` for each: {', '.join(map(str, shared))}). The in-place version later "
    "added into `p`'s stored total, which was that same buffer, so the cotangent `q` "
    "received afterwards had changed too. Through `grad`, the rule of `sum` hands on a "
    f"cotangent of shape `{sum_cotangent.shape}` that NumPy marks read-only "
    f"(`flags.writeable` is {sum_cotangent.flags.writeable}), so the same bug raises instead."
)
