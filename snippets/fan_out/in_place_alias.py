"""A subtler accumulation bug: adding in place into a stored contribution. VJP rules may return
the very array they received, so one buffer can be the cotangent of several nodes at once."""

import numpy as np

from ad_core import numpy as anp
from ad_core.core import VJPNode, backward_pass
from ad_core.tracer import toposort, trace
from bookkit import central_differences, checked, md_table, text, yes_no


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
central = central_differences(loss, x)
expected = 4.0 + np.cos(x)  # p appears twice (2 + 2), q once
# The aliasing story predicts the wrong value: p's += doubles the buffer q reads next, so the
# cotangent reaching sin is 2, not 1.
predicted_wrong = 4.0 + 2.0 * np.cos(x)

# Through grad of the scalar loss, the seed reaches add as a read-only broadcast view.
_, loss_end = trace(VJPNode.new_root(x), loss, x)
assert loss_end.fun.__name__ == "sum"
sum_cotangent = loss_end.vjps[0](1.0)
try:
    sum_cotangent += 0.0  # an in-place add into the view itself
except ValueError as error:
    refused_a_write, write_error = True, str(error)
else:
    refused_a_write, write_error = False, None
try:
    backward_pass_in_place(1.0, loss_end)
except ValueError as error:
    scalar_outcome, raised = str(error), True
else:
    scalar_outcome, raised = None, False


def agrees(gradient):
    return bool(np.allclose(gradient, central, rtol=1e-6))


print(
    md_table(
        ["backward pass", "gradient of `sum(f(x))`", "agrees with central differences?"],
        [
            [
                "`backward_pass` (`add_cotangents(previous, contribution)`)",
                checked(right, against=expected, rtol=1e-14),  # the closed form 4 + cos x
                checked(agrees(right), against=True, shown_as=yes_no),
            ],
            [
                "in-place `+=`, seeded with `np.ones(3)`",
                checked(wrong, against=predicted_wrong, rtol=1e-14),  # 4 + 2 cos x
                checked(agrees(wrong), against=False, shown_as=yes_no),
            ],
            [
                "in-place `+=`, through `anp.sum` (as `grad` does)",
                # The message is NumPy's own for a write into a read-only array.
                checked(scalar_outcome, against=write_error, shown_as=lambda m: f"`ValueError: {m}`"),
                checked(not raised, against=False, shown_as=lambda _: "no: it raised"),
            ],
        ],
    )
)
print()
print(
    text(
        "Central differences give {central}, which is $4 + \\cos x$. The `add` node's rule "
        "returned its incoming cotangent itself to both arguments (`vjp(g) is g` for each: "
        "{shared}). The in-place version later added into `p`'s stored total, which was that "
        "same buffer, so the cotangent that `q` received afterwards had doubled: the result is "
        "$4 + 2\\cos x$. Through `grad`, the rule of `sum` hands on a cotangent of shape "
        "{shape} that NumPy marks read-only (`flags.writeable` is {writeable}), so the same "
        "bug raises instead.",
        central=checked(central, against=expected, rtol=1e-8),
        shared=checked(
            shared,
            against=[bool(np.shares_memory(vjp(seed), seed)) for vjp in end_node.vjps],
            shown_as=lambda flags: ", ".join(map(str, flags)),
        ),
        shape=checked(sum_cotangent.shape, against=x.shape),
        writeable=checked(sum_cotangent.flags.writeable, against=not refused_a_write),
    )
)
