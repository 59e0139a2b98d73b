r"""`ad_core.numpy.linalg`: NumPy's linear algebra, traced, with rules for the common functions.

Rules in both modes (each written with `ad_core.numpy` functions, so it can be differentiated
again), for single matrices and for stacks of them (leading batch axes) alike:

| function | note |
| --- | --- |
| `inv`, `det`, `solve` | `solve(a, b)` in both arguments, `b` a vector or a stack of matrices |
| `slogdet` | the derivative flows through `logabsdet`; `sign` is locally constant |
| `norm` | vectors: `ord=None`, `2` or a finite `ord > 1`; matrices: Frobenius, nuclear; `axis`, `keepdims` |
| `svd` | thin (`full_matrices=False`, or square), distinct non-zero singular values; complex: reverse mode |
| `cholesky` | of a symmetric positive definite matrix; `upper=True` too |
| `eigh`, `eigvalsh` | of a symmetric matrix with distinct eigenvalues |
| `eig` | reverse mode, distinct eigenvalues; only phase-independent functions of the eigenvectors |
| `pinv` | of a matrix of full rank (the rank must not change near the point) |
| `matrix_power` | composed of `matmul` (and `inv` for negative powers), so it follows their rules |

Functions that return several arrays (`eigh`, `slogdet`, `svd`, `qr`, `eig`) give NumPy's
named tuple on plain arrays and a traced tuple without the field names on traced ones: unpack
it or index it, as with HIPS/autograd 1.9.1. The others without rules (`qr`, `lstsq`, ...)
compute their values and fail only when a derivative has to flow through them, with an error
that names them.

Most formulas follow Giles, ["An extended collection of matrix derivative results for forward
and reverse mode algorithmic differentiation"](https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf)
(2008), as HIPS/autograd 1.9.1's do ([its citation](https://github.com/HIPS/autograd/blob/v1.9.1/autograd/numpy/linalg.py#L25-L29)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as onp

from ..core import defjvp, defvjp
from ..tracer import getval, isbox, primitive
from . import wrapper as anp
from .wrapper import wrap_namespace

wrapped: dict[str, Any] = {}
wrap_namespace(onp.linalg.__dict__, wrapped)
globals().update(wrapped)
__all__ = sorted(wrapped)


def _matrix_transpose(x: Any) -> Any:
    return anp.swapaxes(x, -1, -2)


# HIPS/autograd's helpers under its names, which its tests (and code copied from them) call:
# `T(x)` transposes the last two axes, `_dot` multiplies stacks of matrices.
T = _matrix_transpose


def _dot(a: Any, b: Any) -> Any:
    return anp.einsum("...ij,...jk->...ik", a, b)


def _is_complex(x: Any) -> bool:
    return anp.metadata(x)[3]


def _conj_if_complex(x: Any) -> Any:
    return anp.conj(x) if _is_complex(x) else x


def _real_if_complex(x: Any) -> Any:
    return anp.real(x) if _is_complex(x) else x


def _to_matrix_axes(v: Any) -> Any:
    """Append two size-1 axes, so a per-matrix scalar (shape `batch`) scales whole matrices."""
    return anp.expand_dims(anp.expand_dims(v, -1), -1)


# =============================================================================================
# Functions that return several arrays: a traced call returns a plain tuple
# =============================================================================================


def _tuple_valued(name: str) -> Callable:
    """`numpy.linalg.<name>` for plain and traced arrays.

    NumPy returns a named tuple (`EighResult`, ...), a type the tracer does not box. On plain
    arrays NumPy's own function runs (so `.eigenvalues` works as usual); when an argument is
    traced, a primitive returns the same values as a plain tuple, which the tracer boxes as a
    sequence. The wrapper shares the primitive's rule tables, so registering a rule on either
    registers it on both.
    """
    numpy_function = getattr(onp.linalg, name)

    def as_tuple(*args, **kwargs):
        result = numpy_function(*args, **kwargs)
        return tuple(result) if isinstance(result, tuple) else result

    as_tuple.__name__ = as_tuple.__qualname__ = name
    traced = primitive(as_tuple)

    def dispatch(*args, **kwargs):
        if any(isbox(a) for a in args) or any(isbox(v) for v in kwargs.values()):
            return traced(*args, **kwargs)
        return numpy_function(*args, **kwargs)

    dispatch.__name__ = dispatch.__qualname__ = name
    dispatch.__doc__ = (
        f"`numpy.linalg.{name}`: NumPy's named tuple on plain arrays, a plain tuple of traced "
        "arrays when an argument is traced."
    )
    dispatch.__wrapped__ = numpy_function
    dispatch.fun = as_tuple
    dispatch.vjps = traced.vjps
    dispatch.jvps = traced.jvps
    dispatch.is_primitive = True
    return dispatch


for _name in ("eig", "eigh", "qr", "slogdet", "svd"):
    wrapped[_name] = globals()[_name] = _tuple_valued(_name)


# =============================================================================================
# inv, det, slogdet, solve
# =============================================================================================


def grad_inv(ans, x):
    r"""$d(X^{-1}) = -X^{-1}\, dX\, X^{-1}$, so the cotangent is $-X^{-\top} \bar{Y} X^{-\top}$."""
    return lambda g: -anp.matmul(anp.matmul(_matrix_transpose(ans), g), _matrix_transpose(ans))


def grad_det(ans, x):
    r"""$\partial \det X / \partial X = \det X \cdot X^{-\top}$."""
    return lambda g: _to_matrix_axes(g * ans) * _matrix_transpose(wrapped["inv"](x))


def grad_slogdet(ans, x):
    r"""$d \log\lvert\det X\rvert = \operatorname{tr}(X^{-1} dX)$, so the cotangent of `logabsdet`
    becomes $\bar{\ell}\, X^{-\top}$. `sign` is constant wherever the determinant is not zero:
    its cotangent (`g[0]`) contributes nothing."""
    return lambda g: _to_matrix_axes(g[1]) * _matrix_transpose(wrapped["inv"](x))


def jvp_slogdet(g, ans, x):
    sign = getval(ans)[0]
    d_logabsdet = anp.sum(_matrix_transpose(wrapped["inv"](x)) * g, axis=(-2, -1))
    return onp.zeros_like(sign), _real_if_complex(d_logabsdet)


def grad_solve_a(ans, a, b):
    """For `x = solve(a, b)`: the cotangent of `a` is `-solve(a.T, g) x.T`."""
    def vjp(g):
        updated = wrapped["solve"](_matrix_transpose(a), g)
        if anp.ndim(ans) == anp.ndim(a) - 1:
            return -anp.expand_dims(updated, -1) * anp.expand_dims(ans, -2)
        return -anp.matmul(updated, _matrix_transpose(ans))

    return vjp


defvjp(wrapped["inv"], grad_inv)
defvjp(wrapped["det"], grad_det)
defvjp(wrapped["slogdet"], grad_slogdet)
defvjp(wrapped["solve"], grad_solve_a,
       lambda ans, a, b: lambda g: wrapped["solve"](_matrix_transpose(a), g))
defjvp(wrapped["inv"], lambda g, ans, x: -anp.matmul(anp.matmul(ans, g), ans))
defjvp(wrapped["det"], lambda g, ans, x: ans * anp.sum(
    _matrix_transpose(wrapped["inv"](x)) * g, axis=(-2, -1)))
defjvp(wrapped["slogdet"], jvp_slogdet)
defjvp(wrapped["solve"],
       lambda g, ans, a, b: -wrapped["solve"](a, anp.matmul(g, ans) if anp.ndim(ans) == anp.ndim(a)
                                              else anp.matmul(g, ans[..., None])[..., 0]),
       lambda g, ans, a, b: wrapped["solve"](a, g))

# =============================================================================================
# svd
# =============================================================================================


def _svd_parts(ans, a, compute_uv):
    """`(u, s, v)` of the thin SVD, with `v` the right singular vectors as columns. Without
    `compute_uv` NumPy returned only `s`; the vectors are computed again (traced, for order 2)."""
    if compute_uv:
        u, s, vh = ans
    else:
        u, s, vh = wrapped["svd"](a, full_matrices=False)
    return u, s, _matrix_transpose(vh)


def _check_thin(a: Any, full_matrices: bool, compute_uv: bool) -> None:
    m, n = anp.shape(a)[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError(
            "ad_core: no derivative rule for svd with full_matrices=True of a non-square matrix "
            "(the extra singular vectors are not unique); pass full_matrices=False"
        )


def _singular_gap_inverse(s: Any) -> Any:
    r"""$F_{ij} = 1 / (s_j^2 - s_i^2)$ off the diagonal, 0 on it."""
    k = anp.shape(s)[-1]
    squares = s**2
    return (1.0 - onp.eye(k)) / (anp.expand_dims(squares, -2) - anp.expand_dims(squares, -1) + onp.eye(k))


def _grad_svd_complex(ans, a, compute_uv, g):
    r"""The cotangent of a complex $A = U S V^H$ (thin, distinct non-zero singular values),
    HIPS/autograd's rule: the real formula of `grad_svd` with conjugates in place, plus
    $i \operatorname{Im}(\operatorname{diag}(U^\top \bar{U})) / s$ for the phase freedom of
    each pair of singular vectors (only phase-independent functions of them have derivatives)."""
    if compute_uv:
        u, s, vh = ans
    else:
        u, s, vh = wrapped["svd"](a, full_matrices=False)
        return anp.matmul(anp.conj(u) * anp.expand_dims(g, -2), anp.conj(vh))
    v = anp.conj(_matrix_transpose(vh))
    m, n = anp.shape(a)[-2:]
    k = anp.shape(s)[-1]
    gap = _singular_gap_inverse(s)
    g_u, g_s, g_v = g[0], g[1], anp.conj(_matrix_transpose(g[2]))
    u_g = anp.matmul(_matrix_transpose(u), g_u)
    v_g = anp.matmul(_matrix_transpose(v), g_v)
    core = (gap * (u_g - anp.conj(_matrix_transpose(u_g)))) * anp.expand_dims(s, -2)
    core = core + anp.expand_dims(g_s, -1) * onp.eye(k)
    core = core + anp.expand_dims(s, -1) * (gap * (v_g - anp.conj(_matrix_transpose(v_g))))
    core = core + 1j * anp.imag(u_g * onp.eye(k)) / anp.expand_dims(s, -2)
    a_bar = anp.matmul(anp.matmul(anp.conj(u), core), _matrix_transpose(v))
    if m < n:
        outside = onp.eye(n) - anp.matmul(v, anp.conj(_matrix_transpose(v)))
        a_bar = a_bar + anp.conj(anp.matmul(anp.matmul(u / anp.expand_dims(s, -2),
                                                       _matrix_transpose(g_v)), outside))
    elif m > n:
        outside = onp.eye(m) - anp.matmul(u, anp.conj(_matrix_transpose(u)))
        a_bar = a_bar + _matrix_transpose(anp.matmul(anp.matmul(v / anp.expand_dims(s, -2),
                                                                _matrix_transpose(g_u)), outside))
    return a_bar


def grad_svd(ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    r"""For the thin SVD $A = U S V^\top$ of a real $m \times n$ matrix with distinct, non-zero
    singular values (Townsend, "Differentiating the singular value decomposition", 2016):
    $$\bar{A} = U \big[(F \circ (U^\top \bar{U} - \bar{U}^\top U)) S + \operatorname{diag}(\bar{s})
    + S (F \circ (V^\top \bar{V} - \bar{V}^\top V))\big] V^\top
    + (I_m - U U^\top) \bar{U} S^{-1} V^\top + U S^{-1} \bar{V}^\top (I_n - V V^\top),$$
    $F_{ij} = 1 / (s_j^2 - s_i^2)$ off the diagonal. With `compute_uv=False` only
    $U \operatorname{diag}(\bar{s}) V^\top$ remains.
    """
    def vjp(g):
        _check_thin(a, full_matrices, compute_uv)
        if _is_complex(a):
            return _grad_svd_complex(ans, a, compute_uv, g)
        u, s, v = _svd_parts(ans, a, compute_uv)
        if not compute_uv:
            return anp.matmul(u * anp.expand_dims(g, -2), _matrix_transpose(v))
        g_u, g_s, g_v = g[0], g[1], _matrix_transpose(g[2])
        gap = _singular_gap_inverse(s)
        u_g = anp.matmul(_matrix_transpose(u), g_u)
        v_g = anp.matmul(_matrix_transpose(v), g_v)
        core = (gap * (u_g - _matrix_transpose(u_g))) * anp.expand_dims(s, -2)
        core = core + anp.expand_dims(g_s, -1) * onp.eye(anp.shape(s)[-1])
        core = core + anp.expand_dims(s, -1) * (gap * (v_g - _matrix_transpose(v_g)))
        a_bar = anp.matmul(anp.matmul(u, core), _matrix_transpose(v))
        m, n = anp.shape(a)[-2:]
        if m > n:
            outside = g_u - anp.matmul(u, u_g)  # (I - U U^T) dU-bar
            a_bar = a_bar + anp.matmul(outside / anp.expand_dims(s, -2), _matrix_transpose(v))
        elif m < n:
            outside = g_v - anp.matmul(v, v_g)
            a_bar = a_bar + anp.matmul(u / anp.expand_dims(s, -2), _matrix_transpose(outside))
        return a_bar

    return vjp


def jvp_svd(g, ans, a, full_matrices=True, compute_uv=True, hermitian=False):
    r"""With $P = U^\top dA\, V$: $ds = \operatorname{diag}(P)$,
    $dU = U (F \circ (P S + S P^\top)) + (I_m - U U^\top) dA\, V S^{-1}$,
    $dV = V (F \circ (S P + P^\top S)) + (I_n - V V^\top) dA^\top U S^{-1}$."""
    _check_thin(a, full_matrices, compute_uv)
    if _is_complex(a):
        raise NotImplementedError("ad_core: the forward-mode svd rule is for real matrices")
    u, s, v = _svd_parts(ans, a, compute_uv)
    k = anp.shape(s)[-1]
    p = anp.matmul(anp.matmul(_matrix_transpose(u), g), v)
    d_s = anp.sum(p * onp.eye(k), axis=-1)
    if not compute_uv:
        return d_s
    gap = _singular_gap_inverse(s)
    p_s, s_p = p * anp.expand_dims(s, -2), anp.expand_dims(s, -1) * p
    g_v, g_t_u = anp.matmul(g, v), anp.matmul(_matrix_transpose(g), u)
    d_u = anp.matmul(u, gap * (p_s + _matrix_transpose(p_s)))
    d_u = d_u + (g_v - anp.matmul(u, p)) / anp.expand_dims(s, -2)
    d_v = anp.matmul(v, gap * (s_p + _matrix_transpose(s_p)))
    d_v = d_v + (g_t_u - anp.matmul(v, _matrix_transpose(p))) / anp.expand_dims(s, -2)
    return d_u, d_s, _matrix_transpose(d_v)


defvjp(wrapped["svd"], grad_svd)
defjvp(wrapped["svd"], jvp_svd)

# =============================================================================================
# norm
# =============================================================================================

_norm_primitive = wrapped["norm"]


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Any:
    """`numpy.linalg.norm`, which also accepts a list or tuple of traced values (as autograd's does)."""
    if isinstance(x, list | tuple):
        x = anp.array(x)
    return _norm_primitive(x, ord=ord, axis=axis, keepdims=keepdims)


norm.vjps = _norm_primitive.vjps
norm.jvps = _norm_primitive.jvps
wrapped["norm"] = norm


def _norm_axes(x: Any, ord: Any, axis: Any) -> tuple[tuple[int, ...], str]:
    """The axes the norm reduces and the kind of norm with a rule: `"two"` (vector 2-norm or
    Frobenius norm, both $\\sqrt{\\sum \\lvert x\\rvert^2}$), `"p"` (vector `ord`-norm, $p > 1$)
    or `"nuc"` (nuclear norm, the sum of the singular values). Anything else raises
    `NotImplementedError`, as HIPS/autograd does."""
    ndim = anp.ndim(x)
    if axis is None:
        axes = tuple(range(ndim))
    else:
        axes = tuple(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    is_matrix = len(axes) == 2 and (axis is not None or ord is not None)
    if ord is None or (ord == "fro" and is_matrix) or (ord == 2 and not is_matrix):
        return axes, "two"
    if ord == "nuc" and is_matrix:
        return axes, "nuc"
    if not is_matrix and not isinstance(ord, str) and onp.isfinite(ord) and ord > 1:
        return axes, "p"
    kind = "matrix" if is_matrix else "vector"
    raise NotImplementedError(
        f"ad_core: no derivative rule for norm of a {kind} with ord={ord!r}; rules exist for "
        "vector norms with ord=None, 2 or a finite ord > 1 and for Frobenius and nuclear matrix norms"
    )


def _polar_factor(x: Any, axes: tuple[int, ...]) -> Any:
    r"""$U V^\top$ of the thin SVD of the matrices spanned by `axes`: the derivative of the
    nuclear norm of a matrix of full rank (its own derivative, at order 2, also needs distinct
    singular values)."""
    matrices = anp.moveaxis(x, axes, (-2, -1))
    u, _, vh = wrapped["svd"](matrices, full_matrices=False)
    return anp.moveaxis(anp.matmul(u, vh), (-2, -1), axes)


def _kept(v: Any, x: Any, axes: tuple[int, ...]) -> Any:
    """`v` (one value per norm) reshaped so it broadcasts against `x` along the reduced axes,
    whether or not the norm kept them (`keepdims`)."""
    shape = tuple(1 if i in axes else n for i, n in enumerate(anp.shape(x)))
    return anp.reshape(v, shape)


def grad_norm(ans, x, ord=None, axis=None, keepdims=False):
    r"""$\partial \lVert x\rVert_2 / \partial x = \bar{x} / \lVert x\rVert_2$, for $p > 1$
    $\partial \lVert x\rVert_p / \partial x_i = \bar{x}_i \lvert x_i\rvert^{p-2} / \lVert x\rVert_p^{p-1}$,
    and $\partial \lVert X\rVert_* / \partial X = U V^\top$. The first two are undefined at
    $x = 0$ (the result is NaN there, as in HIPS/autograd)."""
    def vjp(g):
        axes, kind = _norm_axes(x, ord, axis)
        if kind == "nuc":
            return _kept(g, x, axes) * _conj_if_complex(_polar_factor(x, axes))
        scale = _kept(g, x, axes) / _kept(ans, x, axes) ** (1 if kind == "two" else ord - 1)
        if kind == "two":
            return scale * _conj_if_complex(x)
        return scale * _conj_if_complex(x) * anp.abs(x) ** (ord - 2)

    return vjp


def jvp_norm(g, ans, x, ord=None, axis=None, keepdims=False):
    axes, kind = _norm_axes(x, ord, axis)
    if kind == "nuc":
        along = _real_if_complex(g * _conj_if_complex(_polar_factor(x, axes)))
        return anp.sum(along, axis=axes, keepdims=keepdims)
    along = _real_if_complex(g * _conj_if_complex(x))
    if kind == "two":
        return anp.sum(along, axis=axes, keepdims=keepdims) / ans
    return anp.sum(along * anp.abs(x) ** (ord - 2), axis=axes, keepdims=keepdims) / ans ** (ord - 1)


defvjp(_norm_primitive, grad_norm)
defjvp(_norm_primitive, jvp_norm)

# =============================================================================================
# cholesky
# =============================================================================================


def _lower_with_half_diagonal(x: Any) -> Any:
    r"""$\Phi(X)$: the lower triangle of $X$ with its diagonal halved."""
    return anp.tril(x) / (1.0 + onp.eye(anp.shape(x)[-1]))


def _symmetric_part(x: Any) -> Any:
    return (x + _matrix_transpose(x)) / 2.0


def grad_cholesky(ans, a, upper=False):
    r"""For $A = L L^\top$ (Murray, "Differentiation of the Cholesky decomposition", 2016):
    $$\bar{A} = \operatorname{sym}\big(L^{-\top}\, \Phi(L^\top \bar{L})\, L^{-1}\big),$$
    with $\Phi$ the lower triangle with a halved diagonal and $\operatorname{sym}(S) = (S + S^\top)/2$.
    $A$ is assumed symmetric, so the cotangent is symmetric too (HIPS/autograd's convention);
    NumPy reads only the lower triangle, so differentiate a function that builds $A$
    symmetric. With `upper=True` the factor is $U = L^\top$ and $\bar{L} = \bar{U}^\top$.
    """
    lower = _matrix_transpose(ans) if upper else ans

    def vjp(g):
        g_lower = _matrix_transpose(g) if upper else g
        lower_inv = wrapped["inv"](lower)
        inner = _lower_with_half_diagonal(anp.matmul(_matrix_transpose(lower), g_lower))
        return _symmetric_part(anp.matmul(anp.matmul(_matrix_transpose(lower_inv), inner), lower_inv))

    return vjp


def jvp_cholesky(g, ans, a, upper=False):
    r"""$dL = L\, \Phi(L^{-1}\, \operatorname{sym}(dA)\, L^{-\top})$, the transpose of `grad_cholesky`."""
    lower = _matrix_transpose(ans) if upper else ans
    lower_inv = wrapped["inv"](lower)
    inner = anp.matmul(anp.matmul(lower_inv, _symmetric_part(g)), _matrix_transpose(lower_inv))
    d_lower = anp.matmul(lower, _lower_with_half_diagonal(inner))
    return _matrix_transpose(d_lower) if upper else d_lower


defvjp(wrapped["cholesky"], grad_cholesky)
defjvp(wrapped["cholesky"], jvp_cholesky)

# =============================================================================================
# eigh, eigvalsh
# =============================================================================================


def _eigengap_inverse(w: Any) -> Any:
    r"""$F_{ij} = 1 / (w_j - w_i)$ off the diagonal, 0 on it. Infinite when two eigenvalues
    coincide: the eigenvectors of a repeated eigenvalue are not unique, so they have no
    derivative (the eigenvalues still do)."""
    n = anp.shape(w)[-1]
    off_diagonal = 1.0 - onp.eye(n)
    return off_diagonal / (anp.expand_dims(w, -2) - anp.expand_dims(w, -1) + onp.eye(n))


def _read_triangle(n: int, uplo: str) -> onp.ndarray:
    """The strict triangle NumPy reads besides the diagonal: lower for `UPLO="L"`, upper for `"U"`."""
    ones = onp.ones((n, n))
    return onp.tril(ones, -1) if uplo.upper() == "L" else onp.triu(ones, 1)


def grad_eigh(ans, x, UPLO="L"):
    r"""For $A = V \operatorname{diag}(w) V^\top$ with distinct eigenvalues, the cotangent of
    the symmetric matrix $A$ is (paired with a symmetric $dA$)
    $$M = V \big(\operatorname{diag}(\bar{w}) + F \circ (V^\top \bar{V})\big) V^\top,
    \qquad F_{ij} = \frac{1}{w_j - w_i}\ (i \ne j),\ F_{ii} = 0.$$
    NumPy reads only one triangle of `x` (`UPLO`), so the cotangent is put where it reads: the
    diagonal of $M$, and $M + M^\top$ on the strict triangle (HIPS/autograd's convention),
    zeros elsewhere.

    Degenerate (repeated) eigenvalues: the eigenvector term divides by $w_j - w_i$, so it is
    infinite or NaN there. It is computed only when the eigenvectors receive a cotangent, so a
    function of the eigenvalues alone stays finite.
    """
    w, v = ans
    n = anp.shape(x)[-1]
    v_conj = _conj_if_complex(v)

    def vjp(g):
        g_w, g_v = g
        a_bar = anp.matmul(v_conj * anp.expand_dims(g_w, -2), _matrix_transpose(v))
        if anp.any(g_v):
            rotation = _eigengap_inverse(w) * anp.matmul(_matrix_transpose(v), g_v)
            a_bar = a_bar + anp.matmul(anp.matmul(v_conj, rotation), _matrix_transpose(v))
        diagonal = _real_if_complex(a_bar) * onp.eye(n)
        return diagonal + (a_bar + _conj_if_complex(_matrix_transpose(a_bar))) * _read_triangle(n, UPLO)

    return vjp


def jvp_eigh(g, ans, x, UPLO="L"):
    r"""With $dA$ the symmetric matrix NumPy reads from the tangent and $M = V^\top dA\, V$:
    $dw = \operatorname{diag}(M)$, $dV = V (F \circ M)$."""
    w, v = ans
    n = anp.shape(x)[-1]
    triangle = _read_triangle(n, UPLO)
    strict = g * triangle
    d_a = _real_if_complex(g * onp.eye(n)) + strict + _conj_if_complex(_matrix_transpose(strict))
    m = anp.matmul(anp.matmul(_conj_if_complex(_matrix_transpose(v)), d_a), v)
    d_w = _real_if_complex(anp.sum(m * onp.eye(n), axis=-1))
    d_v = anp.matmul(v, _eigengap_inverse(w) * m)
    return d_w, d_v


defvjp(wrapped["eigh"], grad_eigh)
defjvp(wrapped["eigh"], jvp_eigh)


def eigvalsh(a: Any, UPLO: str = "L") -> Any:
    """`numpy.linalg.eigvalsh`; a traced call reads the eigenvalues of `eigh`, whose rules apply."""
    if isbox(a):
        return wrapped["eigh"](a, UPLO)[0]
    return onp.linalg.eigvalsh(a, UPLO)


wrapped["eigvalsh"] = eigvalsh

# =============================================================================================
# eig
# =============================================================================================


def grad_eig(ans, x):
    r"""HIPS/autograd's rule for a general square matrix with distinct eigenvalues, eigenvalues
    $e$ and NumPy's unit-length eigenvectors $U$ (columns). With $F_{ij} = 1 / (e_j - e_i)$ off
    the diagonal (0 on it) and $P = U^\top \bar{U}$:
    $$R_1 = F \circ P, \qquad R_2 = -F \circ \big((U^\top \overline{U})\,
    \operatorname{diag}(\operatorname{Re} P)\big), \qquad
    \bar{A} = U^{-\top} \big(\operatorname{diag}(\bar{e}) + R_1 + R_2\big) U^\top;$$
    $R_2$ accounts for the columns being normalised. A real matrix gets the real part.
    Eigenvectors are defined up to a phase, so only functions that do not depend on it (such
    as `abs(v)`) have a derivative through them. Reverse mode only, as in HIPS/autograd."""
    e, u = ans
    n = anp.shape(e)[-1]
    real_input = not _is_complex(x)

    def vjp(g):
        g_e, g_u = g
        gap = _eigengap_inverse(e)
        u_t = _matrix_transpose(u)
        u_g = anp.matmul(u_t, g_u)
        r1 = gap * u_g
        r2 = -gap * anp.matmul(anp.matmul(u_t, anp.conj(u)), anp.real(u_g) * onp.eye(n))
        diagonal = anp.expand_dims(g_e, -1) * onp.eye(n)
        a_bar = anp.matmul(anp.matmul(wrapped["inv"](u_t), diagonal + r1 + r2), u_t)
        return anp.real(a_bar) if real_input else a_bar

    return vjp


defvjp(wrapped["eig"], grad_eig)

# =============================================================================================
# pinv, matrix_power
# =============================================================================================


def _identity_like(x: Any, axis: int) -> onp.ndarray:
    return onp.eye(anp.shape(x)[axis])


def grad_pinv(ans, x, *args, **kwargs):
    r"""For $A^+$ of constant rank (Golub and Pereyra, 1973):
    $$dA^+ = -A^+ dA\, A^+ + A^+ A^{+\top} dA^\top (I - A A^+) + (I - A^+ A)\, dA^\top A^{+\top} A^+,$$
    whose transpose gives $\bar{A} = -A^{+\top} \bar{Y} A^{+\top}
    + (I - A A^+) \bar{Y}^\top A^+ A^{+\top} + A^{+\top} A^+ \bar{Y}^\top (I - A^+ A)$.
    `rcond`, `rtol` and `hermitian` only choose how $A^+$ is computed; they do not change it
    for a matrix of full rank."""
    p, p_t = ans, _matrix_transpose(ans)

    def vjp(g):
        g_t = _matrix_transpose(g)
        left = _identity_like(x, -2) - anp.matmul(x, p)
        right = _identity_like(x, -1) - anp.matmul(p, x)
        return (-anp.matmul(anp.matmul(p_t, g), p_t)
                + anp.matmul(anp.matmul(left, g_t), anp.matmul(p, p_t))
                + anp.matmul(anp.matmul(p_t, p), anp.matmul(g_t, right)))

    return vjp


def jvp_pinv(g, ans, x, *args, **kwargs):
    p, p_t, g_t = ans, _matrix_transpose(ans), _matrix_transpose(g)
    left = _identity_like(x, -2) - anp.matmul(x, p)
    right = _identity_like(x, -1) - anp.matmul(p, x)
    return (-anp.matmul(anp.matmul(p, g), p)
            + anp.matmul(anp.matmul(p, p_t), anp.matmul(g_t, left))
            + anp.matmul(anp.matmul(right, g_t), anp.matmul(p_t, p)))


defvjp(wrapped["pinv"], grad_pinv)
defjvp(wrapped["pinv"], jvp_pinv)


def matrix_power(a: Any, n: int) -> Any:
    """`numpy.linalg.matrix_power`. A traced call is built from `matmul` by repeated squaring
    (and `inv` first for a negative `n`), so its derivatives in both modes, at any order, come
    from their rules; `n = 0` gives the identity, a constant."""
    if not isbox(a):
        return onp.linalg.matrix_power(a, n)
    n = int(n)
    shape, _, dtype, _ = anp.metadata(a)
    if n == 0:
        return onp.broadcast_to(onp.eye(shape[-1], dtype=dtype), shape).copy()
    if n < 0:
        a, n = wrapped["inv"](a), -n
    result, square = None, a
    while True:
        if n & 1:
            result = square if result is None else anp.matmul(result, square)
        n >>= 1
        if not n:
            return result
        square = anp.matmul(square, square)


wrapped["matrix_power"] = matrix_power
del _name
