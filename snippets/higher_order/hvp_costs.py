"""Hessian-vector products two ways, against the full Hessian, with the engine's work counted."""

import numpy as np

import ad_core.numpy as anp
from ad_core import hessian, hessian_vector_product
from ad_core.differential_operators import hessian_vector_product_reverse
from ad_core.inspect import record
from bookkit import assert_shape_then_close, md_table


# --8<-- [start:hvp]
def energy(x):
    return anp.sum(anp.tanh(x) ** 2) + anp.sum(x[1:] * x[:-1])


hvp_forward_over_reverse = hessian_vector_product(energy)
hvp_reverse_over_reverse = hessian_vector_product_reverse(energy)
# --8<-- [end:hvp]


def counted(compute):
    with record() as recording:
        result = compute()
    return result, [
        sum(1 for e in recording.of_kind("visit") if e.primitive == "root"),
        len(recording.of_kind("forward")),
        len(recording.of_kind("vjp")),
        len(recording.of_kind("jvp")),
    ]


rng = np.random.default_rng(9)
rows = []
for n in [4, 16, 64]:
    x, v = rng.standard_normal(n), rng.standard_normal(n)
    full, full_counts = counted(lambda x=x: hessian(energy)(x))
    by_forward, forward_counts = counted(lambda x=x, v=v: hvp_forward_over_reverse(x, v))
    by_reverse, reverse_counts = counted(lambda x=x, v=v: hvp_reverse_over_reverse(x, v))
    assert_shape_then_close(by_forward, full @ v, rtol=1e-10)
    assert_shape_then_close(by_reverse, full @ v, rtol=1e-10)
    rows += [
        [n, "full Hessian, then `H @ v`", *full_counts],
        [n, "forward-over-reverse", *forward_counts],
        [n, "reverse-over-reverse", *reverse_counts],
    ]
    # The claims of the chapter, on the counts themselves:
    assert forward_counts[0] == 1 and reverse_counts[0] == 2 and full_counts[0] == n + 1
    assert forward_counts[1] < reverse_counts[1]

print(md_table(
    ["$n$", "method", "backward passes", "primitives traced", "VJP calls", "JVP calls"], rows,
    align=["right", "left", "right", "right", "right", "right"],
))
small = [row for row in rows if row[0] == 4]
large = [row for row in rows if row[0] == 64]
print(
    f"\nAll three agree to `rtol=1e-10`. Going from $n = 4$ to $n = 64$, the full Hessian's "
    f"backward passes grow from {small[0][2]} to {large[0][2]}, while each Hessian-vector "
    f"product keeps a fixed number: {large[1][2]} backward pass forward-over-reverse, "
    f"{large[2][2]} reverse-over-reverse."
)
