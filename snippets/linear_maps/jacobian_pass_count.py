"""How many passes a full Jacobian costs in forward and in reverse mode, counted from the
engine's recorded events for f(x) = tanh(W x), W of shape (m, n)."""

import numpy as np

from ad_core import jacobian, make_jvp
from ad_core import numpy as anp
from ad_core.recorder import record
from bookkit import checked, given, md_table, text


# --8<-- [start:forward_jacobian]
def forward_mode_jacobian(f, x):
    """One JVP per input direction: column j of J is J @ e_j."""
    columns = [make_jvp(f)(x)(e_j)[1] for e_j in np.eye(x.size)]
    return np.stack(columns, axis=-1)


# --8<-- [end:forward_jacobian]


def count_passes(n: int, m: int) -> dict:
    rng = np.random.default_rng(n * 1000 + m)
    W = rng.standard_normal((m, n))
    x = rng.standard_normal(n)

    def f(x):
        return anp.tanh(anp.dot(W, x))

    with record() as forward_run:
        J_forward = forward_mode_jacobian(f, x)
    with record() as reverse_run:
        J_reverse = jacobian(f)(x)

    expected = (1 - np.tanh(W @ x) ** 2)[:, None] * W
    assert J_forward.shape == J_reverse.shape == (m, n)
    assert np.allclose(J_forward, expected, rtol=1e-12, atol=1e-14)
    assert np.allclose(J_reverse, expected, rtol=1e-12, atol=1e-14)
    visits = reverse_run.of_kind("visit")
    return {
        # Both modes evaluate the primal: forward mode in every pass, next to the tangent.
        "forward_primal": len(forward_run.of_kind("forward")),
        "jvp_calls": len(forward_run.of_kind("jvp")),
        "reverse_primal": len(reverse_run.of_kind("forward")),
        # Every backward pass starts by visiting the output node.
        "backward_passes": sum(1 for event in visits if event.node == visits[0].node),
        "vjp_calls": len(reverse_run.of_kind("vjp")),
    }


# f = tanh(W x) is two primitives (dot, tanh), each with one traced argument: one rule call
# per primitive and pass. The closed forms the counts are checked against:
PRIMITIVES, RULES = 2, 2


def closed_form(n: int, m: int) -> dict:
    return {
        "forward_primal": n * PRIMITIVES,  # n passes, each evaluates f
        "jvp_calls": n * RULES,
        "reverse_primal": PRIMITIVES,  # one trace
        "backward_passes": m,
        "vjp_calls": m * RULES,
    }


def work(counts: dict, mode: str) -> int:
    """Primitive evaluations plus rule calls: each rule here costs about what its primitive
    does (dot's VJP is a product with W's transpose, tanh's a few operations per element)."""
    if mode == "forward":
        return counts["forward_primal"] + counts["jvp_calls"]
    return counts["reverse_primal"] + counts["vjp_calls"]


def less_work(forward: int, reverse: int) -> str:
    return "forward" if forward < reverse else "reverse" if reverse < forward else "tie"


sizes = [(1, 1), (4, 1), (16, 1), (64, 1), (1, 4), (1, 16), (1, 64), (16, 16), (64, 4)]
rows = []
ratios = {}
for n, m in sizes:
    counts = count_passes(n, m)
    formula = closed_form(n, m)
    cells = {key: checked(counts[key], against=formula[key], shown_as=str) for key in counts}
    forward_work, reverse_work = work(counts, "forward"), work(counts, "reverse")
    verdict = checked(
        less_work(forward_work, reverse_work),
        against=less_work(work(formula, "forward"), work(formula, "reverse")),
    )
    if m == 1:
        ratios[n] = (forward_work / PRIMITIVES, reverse_work / PRIMITIVES)
    rows.append(
        [
            given(n, shown_as=str),
            given(m, shown_as=str),
            cells["forward_primal"],
            cells["jvp_calls"],
            cells["reverse_primal"],
            cells["backward_passes"],
            cells["vjp_calls"],
            verdict,
        ]
    )

print(
    md_table(
        [
            "inputs $n$",
            "outputs $m$",
            "forward: primitive evaluations",
            "forward: JVP rule calls",
            "reverse: primitive evaluations",
            "reverse: backward passes",
            "reverse: VJP rule calls",
            "less work",
        ],
        rows,
        align=["right", "right", "right", "right", "right", "right", "right", "left"],
    )
)
print()
# The cheap-gradient principle, measured: for m = 1 the gradient's work divided by the work of
# evaluating f once does not grow with n in reverse mode; in forward mode it grows like n.
smallest, largest = min(ratios), max(ratios)
reverse_ratios = {ratios[n][1] for n in ratios}
assert len(reverse_ratios) == 1
(reverse_ratio,) = reverse_ratios
print(
    text(
        "Counted in primitive and rule calls, the whole gradient of the scalar output cost "
        "{reverse:g} times the work of evaluating $f$ once in reverse mode, for every $n$ from "
        "{smallest} to {largest}; forward mode cost {forward_small:g} times at $n = {smallest}$ "
        "and {forward_large:g} times at $n = {largest}$.",
        reverse=checked(reverse_ratio, against=(PRIMITIVES + RULES) / PRIMITIVES),
        smallest=given(smallest),
        largest=given(largest),
        forward_small=checked(ratios[smallest][0], against=smallest * (PRIMITIVES + RULES) / PRIMITIVES),
        forward_large=checked(ratios[largest][0], against=largest * (PRIMITIVES + RULES) / PRIMITIVES),
    )
)
