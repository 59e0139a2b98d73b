"""Every matmul form and its two gradients: shapes from the engine, formulas checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import make_vjp
from bookkit import assert_shape_then_close, checked, given, md_table, text

K, B, H, V = 2, 3, 4, 5  # distinct sizes: batch of matrices, rows, inner, columns
rng = np.random.default_rng(12)


def normal(*shape: int) -> np.ndarray:
    return rng.normal(size=shape)


# Each case: label, forward, the two inputs, the formulas for their cotangents given g, and the
# same product in plain NumPy (whose output shape the table checks the engine's against).
cases = [
    (
        "matrix @ matrix",
        "`A @ W`",
        lambda a, w: anp.matmul(a, w),
        normal(B, H),
        normal(H, V),
        r"$G W^\top$",
        lambda a, w, g: g @ w.T,
        r"$A^\top G$",
        lambda a, w, g: a.T @ g,
    ),
    (
        "matrix @ vector",
        "`A @ v`",
        lambda a, v: anp.matmul(a, v),
        normal(H, V),
        normal(V),
        r"$g\, v^\top$ (outer)",
        lambda a, v, g: np.outer(g, v),
        r"$A^\top g$",
        lambda a, v, g: a.T @ g,
    ),
    (
        "vector @ matrix",
        "`u @ W`",
        lambda u, w: anp.matmul(u, w),
        normal(H),
        normal(H, V),
        r"$W g$",
        lambda u, w, g: w @ g,
        r"$u\, g^\top$ (outer)",
        lambda u, w, g: np.outer(u, g),
    ),
    (
        "vector · vector",
        "`np.dot(u, v)`",
        lambda u, v: anp.dot(u, v),
        normal(H),
        normal(H),
        r"$g\, v$",
        lambda u, v, g: g * v,
        r"$g\, u$",
        lambda u, v, g: g * u,
    ),
    (
        "outer product",
        "`np.outer(u, v)`",
        lambda u, v: anp.outer(u, v),
        normal(H),
        normal(V),
        r"$G v$",
        lambda u, v, g: g @ v,
        r"$G^\top u$",
        lambda u, v, g: g.T @ u,
    ),
    (
        "batched",
        "`A @ W`",
        lambda a, w: anp.matmul(a, w),
        normal(K, B, H),
        normal(K, H, V),
        r"$G_k W_k^\top$ per $k$",
        lambda a, w, g: g @ np.swapaxes(w, -1, -2),
        r"$A_k^\top G_k$ per $k$",
        lambda a, w, g: np.swapaxes(a, -1, -2) @ g,
    ),
    (
        "batched, shared W",
        "`A @ W`",
        lambda a, w: anp.matmul(a, w),
        normal(K, B, H),
        normal(H, V),
        r"$G_k W^\top$ per $k$",
        lambda a, w, g: g @ w.T,
        r"$\sum_k A_k^\top G_k$",
        lambda a, w, g: np.einsum("kbh,kbv->hv", a, g),
    ),
    (
        "einsum",
        "`einsum('bh,hv->bv', A, W)`",
        lambda a, w: anp.einsum("bh,hv->bv", a, w),
        normal(B, H),
        normal(H, V),
        r"`einsum('bv,hv->bh', G, W)`",
        lambda a, w, g: np.einsum("bv,hv->bh", g, w),
        r"`einsum('bh,bv->hv', A, G)`",
        lambda a, w, g: np.einsum("bh,bv->hv", a, g),
    ),
    (
        "einsum, batched",
        "`einsum('kbh,khv->kbv', A, W)`",
        lambda a, w: anp.einsum("kbh,khv->kbv", a, w),
        normal(K, B, H),
        normal(K, H, V),
        r"`einsum('kbv,khv->kbh', G, W)`",
        lambda a, w, g: np.einsum("kbv,khv->kbh", g, w),
        r"`einsum('kbh,kbv->khv', A, G)`",
        lambda a, w, g: np.einsum("kbh,kbv->khv", a, g),
    ),
]


def checked_shape(actual: tuple[int, ...], expected: tuple[int, ...]):
    # As lists: CPython has one empty tuple, which `checked` would take for a self-comparison.
    return checked(list(actual), against=list(expected), shown_as=lambda v: f"`{tuple(v)}`")


rows = []
for label, code, forward, first, second, first_text, first_rule, second_text, second_rule in cases:
    # --8<-- [start:check]
    vjp_first, output = make_vjp(lambda x, s=second, f=forward: f(x, s))(first)
    vjp_second, _ = make_vjp(lambda y, x=first, f=forward: f(x, y))(second)
    upstream = rng.normal(size=np.shape(output))
    engine_first, engine_second = vjp_first(upstream), vjp_second(upstream)
    tolerance = {"rtol": 1e-12, "atol": 1e-12}
    assert_shape_then_close(engine_first, first_rule(first, second, upstream), **tolerance)
    assert_shape_then_close(engine_second, second_rule(first, second, upstream), **tolerance)
    # --8<-- [end:check]
    numpy_output = forward(first, second)  # untraced: the wrapped function runs NumPy itself
    rows.append(
        [
            label,
            code,
            text("{a}, {b}", a=given(np.shape(first)), b=given(np.shape(second))),
            checked_shape(np.shape(output), np.shape(numpy_output)),
            first_text,
            checked_shape(np.shape(engine_first), np.shape(first)),
            second_text,
            checked_shape(np.shape(engine_second), np.shape(second)),
        ]
    )

print(
    md_table(
        [
            "case",
            "forward",
            "input shapes",
            "output shape",
            "first input's gradient",
            "shape",
            "second input's gradient",
            "shape",
        ],
        rows,
    )
)
print()
print(
    text(
        "Sizes: $K = {K}$ matrices in a batch, $B = {B}$ rows, $H = {H}$ inner, $V = {V}$ columns. "
        "For each of the {cases} cases the engine's two VJPs were computed on a random upstream "
        "gradient and compared, shape first, with the formula in the table.",
        K=given(K),
        B=given(B),
        H=given(H),
        V=given(V),
        cases=given(len(cases)),
    )
)
