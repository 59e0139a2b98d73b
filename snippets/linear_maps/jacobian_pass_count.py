"""How many passes a full Jacobian costs in forward and in reverse mode, counted from the
engine's recorded events for f(x) = tanh(W x), W of shape (m, n)."""

import numpy as np

from ad_core import jacobian, make_jvp, make_vjp
from ad_core import numpy as anp
from ad_core.inspect import record
from bookkit import md_table


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

    with record() as one_trace:
        make_vjp(f)(x)
    primitives_per_trace = len(one_trace.of_kind("forward"))

    with record() as forward_run:
        J_forward = forward_mode_jacobian(f, x)
    with record() as reverse_run:
        J_reverse = jacobian(f)(x)

    # A trace records each primitive once, so traces = forward events / primitives per trace.
    forward_traces, remainder = divmod(len(forward_run.of_kind("forward")), primitives_per_trace)
    assert remainder == 0
    reverse_traces, remainder = divmod(len(reverse_run.of_kind("forward")), primitives_per_trace)
    assert remainder == 0
    # Every backward pass starts by visiting the output node.
    visits = reverse_run.of_kind("visit")
    backward_passes = sum(1 for event in visits if event.node == visits[0].node)

    expected = (1 - np.tanh(W @ x) ** 2)[:, None] * W
    assert J_forward.shape == J_reverse.shape == (m, n)
    assert np.allclose(J_forward, expected, rtol=1e-12, atol=1e-14)
    assert np.allclose(J_reverse, expected, rtol=1e-12, atol=1e-14)
    return {
        "forward_traces": forward_traces,
        "jvp_calls": len(forward_run.of_kind("jvp")),
        "reverse_traces": reverse_traces,
        "backward_passes": backward_passes,
        "vjp_calls": len(reverse_run.of_kind("vjp")),
    }


sizes = [(1, 1), (4, 1), (16, 1), (64, 1), (1, 4), (1, 16), (1, 64), (16, 16), (64, 4)]
rows = []
for n, m in sizes:
    counts = count_passes(n, m)
    # Forward mode needs one pass per input, reverse mode one backward pass per output.
    assert counts["forward_traces"] == n
    assert counts["reverse_traces"] == 1
    assert counts["backward_passes"] == m
    forward_cost = counts["forward_traces"]
    reverse_cost = counts["reverse_traces"] + counts["backward_passes"]
    cheaper = "forward" if forward_cost < reverse_cost else "reverse"
    if forward_cost == reverse_cost:
        cheaper = "tie"
    rows.append(
        [
            str(n),
            str(m),
            str(counts["forward_traces"]),
            str(counts["jvp_calls"]),
            f"{counts['reverse_traces']} + {counts['backward_passes']}",
            str(counts["vjp_calls"]),
            cheaper,
        ]
    )

print(
    md_table(
        [
            "inputs $n$",
            "outputs $m$",
            "forward: traces",
            "forward: JVP rule calls",
            "reverse: trace + backward passes",
            "reverse: VJP rule calls",
            "fewer passes",
        ],
        rows,
        align=["right", "right", "right", "right", "right", "right", "left"],
    )
)
