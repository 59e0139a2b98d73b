"""Hessian-vector products two ways, against the full Hessian, with the engine's work counted."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import hessian, hessian_vector_product
from ad_core.differential_operators import hessian_vector_product_reverse
from ad_core.recorder import record
from bookkit import checked, given, load_snippet_module, md_table, text

counted_work = load_snippet_module(Path(__file__).with_name("_counting.py")).counted_work


# --8<-- [start:hvp]
def energy(x):
    return anp.sum(anp.tanh(x) ** 2) + anp.sum(x[1:] * x[:-1])


hvp_forward_over_reverse = hessian_vector_product(energy)
hvp_reverse_over_reverse = hessian_vector_product_reverse(energy)
# --8<-- [end:hvp]


def counted(compute, backward_passes):
    """Run `compute`, and check the recorder's counts against counts made another way:
    backward passes against what the method must do, the rest against node constructors and
    rule calls counted from outside the engine."""
    with record() as recording, counted_work() as work:
        result = compute()
    return result, [
        checked(sum(1 for e in recording.of_kind("visit") if e.primitive == "root"), against=backward_passes),
        checked(len(recording.of_kind("forward")), against=work["nodes"]),
        checked(len(recording.of_kind("vjp")), against=work["vjp_calls"]),
        checked(len(recording.of_kind("jvp")), against=work["jvp_calls"]),
    ]


rng = np.random.default_rng(9)
tolerance = 1e-10  # three summation orders of the same products
rows = []
sizes = [4, 16, 64]
for n in sizes:
    x, v = rng.standard_normal(n), rng.standard_normal(n)
    # The Hessian of energy in closed form: diag(d^2/dx^2 tanh(x)^2) plus the chain's two off-diagonals.
    t = np.tanh(x)
    H_closed = np.diag(2 * (1 - t**2) * (1 - 3 * t**2)) + np.eye(n, k=1) + np.eye(n, k=-1)
    # The inner jacobian is one traced gradient pass, the outer one pass per gradient entry.
    full, full_counts = counted(lambda x=x: hessian(energy)(x), backward_passes=n + 1)
    by_forward, forward_counts = counted(lambda x=x, v=v: hvp_forward_over_reverse(x, v), backward_passes=1)
    by_reverse, reverse_counts = counted(lambda x=x, v=v: hvp_reverse_over_reverse(x, v), backward_passes=2)
    for product in (full @ v, by_forward, by_reverse):
        checked(product, against=H_closed @ v, rtol=tolerance, atol=tolerance)
    rows += [
        [given(n), "full Hessian, then `H @ v`", *full_counts],
        [given(n), "forward-over-reverse", *forward_counts],
        [given(n), "reverse-over-reverse", *reverse_counts],
    ]
    assert forward_counts[1].value < reverse_counts[1].value

print(md_table(
    ["$n$", "method", "backward passes", "primitives traced", "VJP calls", "JVP calls"], rows,
    align=["right", "left", "right", "right", "right", "right"],
))
small = [row for row in rows if row[0].value == sizes[0]]
large = [row for row in rows if row[0].value == sizes[-1]]
print(text(
    "\nAll three agree with the closed-form Hessian times $v$ to `rtol` = {tolerance:g}. Going "
    "from $n$ = {small_n} to $n$ = {large_n}, the full Hessian's backward passes grow from "
    "{small_full} to {large_full}, while each Hessian-vector product keeps a fixed number: "
    "{forward} backward pass forward-over-reverse, {reverse} reverse-over-reverse.",
    tolerance=given(tolerance), small_n=given(sizes[0]), large_n=given(sizes[-1]),
    small_full=small[0][2], large_full=large[0][2], forward=large[1][2], reverse=large[2][2],
))
