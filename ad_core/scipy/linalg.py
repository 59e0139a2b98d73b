r"""`ad_core.scipy.linalg`: SciPy's linear algebra, traced, with rules for the common functions.

Every callable of `scipy.linalg` is here. Rules in both modes, written with traced functions
(so they can be differentiated again), for single matrices and for SciPy's stacks of them:

| function | arguments | note |
| --- | --- | --- |
| `sqrtm` | `A` | $X^2 = A$: $X\, dX + dX\, X = dA$, a Sylvester equation |
| `solve_triangular` | `a`, `b` | `trans` 0/1/2/`'N'`/`'T'`/`'C'`, `lower`, `unit_diagonal` |
| `solve_sylvester` | `a`, `b`, `q` | $AX + XB = Q$ |
| `solve` | `a`, `b` | `transposed`; `assume_a` general, structured or symmetric (real) |
| `inv` | `a` | `assume_a` as for `solve` (not `'diagonal'`, see `_inv_reads`) |
| `det` | `a` | the rule of `ad_core.numpy.linalg.det` |
| `cholesky` | `a` | real; `lower=False` (SciPy's default, the upper factor) or `True` |
| `cho_solve` | `c`, `b` | the factor inside the `(c, lower)` pair is traced |
| `solve_banded` | `ab`, `b` | the matrix in LAPACK's banded storage |

Linear solves share one derivation. With $x = \operatorname{op}(A)^{-1} b$, where $A = E(a)$
is the matrix SciPy actually reads from `a` (a triangle, a band, a symmetric matrix built from
one triangle) and $\operatorname{op}$ is the identity or the transpose:
$$dx = \operatorname{op}(A)^{-1}\big(db - \operatorname{op}(E(da))\, x\big),\qquad
\bar{b} = \lambda = \operatorname{op}(A)^{-\top} \bar{x},\qquad
\bar{a} = E^\top\!\big(-\lambda x^\top\big)\ \text{or}\ E^\top\!\big(-x \lambda^\top\big)
\text{ for } \operatorname{op} = {}^\top.$$
So a cotangent is never put on an entry SciPy does not read: for `assume_a='sym'` or `'pos'`
the part on the ignored triangle is folded onto the read one, which is what finite
differences of the SciPy function itself give (not the symmetric cotangent of
`ad_core.numpy.linalg.cholesky`, which assumes the caller builds a symmetric matrix).

Complex cotangents follow this engine's (HIPS/autograd's) convention: a $\mathbb{C}$-linear
map $y = M z$ has VJP $M^\top \bar{y}$. `trans='C'` (a conjugate transpose, anti-linear in
`a`) is the transpose of $\bar{a}$'s solve, conjugated.

Functions without rules compute their values and fail only when a derivative has to flow
through them, with an error that names them and the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as onp
import scipy.linalg

from .. import numpy as anp
from ..core import defjvp, defvjp
from ..numpy.linalg import grad_cholesky, grad_det, jvp_cholesky
from ..numpy.vjps import unbroadcast
from ..numpy.wrapper import wrap_namespace
from ..tracer import getval, primitive

wrapped: dict[str, Any] = {}
wrap_namespace(scipy.linalg.__dict__, wrapped)
globals().update(wrapped)


def _t(x: Any) -> Any:
    return anp.swapaxes(x, -1, -2)


def _is_complex(x: Any) -> bool:
    return anp.metadata(x)[3]


def _is_vector(b: Any) -> bool:
    """SciPy reads a one-dimensional right-hand side as one column (even next to a stack of
    matrices); anything else is a matrix, or a stack of them."""
    return anp.ndim(b) == 1


def _apply(m: Any, x: Any, vector: bool) -> Any:
    """$M x$ for a column `x` (`vector`) or a matrix of columns."""
    return anp.matmul(m, x[..., None])[..., 0] if vector else anp.matmul(m, x)


def _outer(u: Any, v: Any, vector: bool) -> Any:
    r"""$u v^\top$, summed over the columns when `u` and `v` hold several."""
    return u[..., :, None] * v[..., None, :] if vector else anp.matmul(u, _t(v))


def _to_shape_of(x: Any, target: Any) -> Any:
    """Sum a cotangent over the batch axes that broadcasting added (real part for a real target)."""
    return unbroadcast(x, anp.metadata(target))


# =============================================================================================
# What SciPy reads of a matrix argument: E and its transpose
# =============================================================================================


class _Reads:
    r"""The linear map $E$ from an argument `a` to the matrix a solver actually uses (the
    constant part, such as a unit diagonal, left out): `tangent` is $E$, `cotangent` is
    $E^\top$. A mask is its own transpose; the symmetric matrix built from one triangle,
    $E(a) = \operatorname{tri}(a) + \operatorname{tri}_{\text{strict}}(a)^\top$, has the
    transpose $E^\top(M) = \operatorname{tri}(M) + \operatorname{tri}_{\text{strict}}(M^\top)$."""

    def __init__(self, kind: str, lower: bool = True, mask: Callable | None = None) -> None:
        self.kind, self.lower, self.mask = kind, lower, mask

    def _triangle(self, x: Any, strict: bool) -> Any:
        k = -int(strict) if self.lower else int(strict)
        return anp.tril(x, k) if self.lower else anp.triu(x, k)

    def tangent(self, g: Any) -> Any:
        if self.kind == "all":
            return g
        if self.kind == "mask":
            return g * self.mask(anp.shape(g)[-1])
        return self._triangle(g, False) + _t(self._triangle(g, True))

    def cotangent(self, m: Any) -> Any:
        if self.kind == "all":
            return m
        if self.kind == "mask":
            return m * self.mask(anp.shape(m)[-1])
        return self._triangle(m, False) + self._triangle(_t(m), True)


_ALL = _Reads("all")


def _band(width: int) -> Callable:
    return lambda n: onp.tri(n, n, width) * onp.tri(n, n, width).T


_MASKS = {
    "diagonal": _band(0),
    "tridiagonal": _band(1),
    "upper triangular": lambda n: onp.triu(onp.ones((n, n))),
    "lower triangular": lambda n: onp.tril(onp.ones((n, n))),
}
_SYMMETRIC = {"sym", "symmetric", "pos", "positive definite", "her", "hermitian"}
_GENERAL = {None, "gen", "general", "banded"}  # 'banded' finds its bandwidth in `a` itself


def _reads_of_assume_a(name: str, a: Any, assume_a: str | None, lower: bool) -> _Reads:
    if assume_a in _GENERAL:
        return _ALL
    if assume_a in _MASKS:
        return _Reads("mask", mask=_MASKS[assume_a])
    if assume_a in _SYMMETRIC and not _is_complex(a):
        return _Reads("symmetric", lower=lower)
    raise NotImplementedError(
        f"ad_core: no derivative rule for {name} with assume_a={assume_a!r} and a "
        f"{'complex' if _is_complex(a) else 'real'} matrix"
    )


# =============================================================================================
# Linear solves: solve_triangular, solve, cho_solve, solve_banded
# =============================================================================================


def _solve_rules(
    solve_with: Callable[[Any, Any, str], Any], reads: _Reads, op: str
) -> tuple[Callable, Callable, Callable, Callable]:
    r"""VJP makers and JVPs for `a` and `b` of $x = \operatorname{op}(E(a))^{-1} b$, given
    `solve_with(a, rhs, op)`, the same solve with another `op` ('N', 'T', or 'C', the
    conjugate transpose, only for complex `a`)."""
    flipped = {"N": "T", "T": "N", "C": "N"}[op]
    raw_solve = solve_with

    def solve_with(a, rhs, op_):
        # A vector b next to a stack of matrices gives a stack of vectors, which SciPy would
        # read as one matrix: solve them as columns.
        if anp.ndim(rhs) == anp.ndim(a) - 1 and anp.ndim(rhs) > 1:
            return raw_solve(a, rhs[..., None], op_)[..., 0]
        return raw_solve(a, rhs, op_)

    def adjoint_solve(a, g):
        return solve_with(anp.conj(a) if op == "C" else a, g, flipped)

    def vjp_a(ans, a, b):
        vector = anp.ndim(ans) == anp.ndim(a) - 1

        def vjp(g):
            lam = adjoint_solve(a, g)
            a_bar = -(_outer(lam, ans, vector) if op == "N" else _outer(ans, lam, vector))
            a_bar = reads.cotangent(a_bar)
            return _to_shape_of(anp.conj(a_bar) if op == "C" else a_bar, a)

        return vjp

    def vjp_b(ans, a, b):
        return lambda g: _to_shape_of(adjoint_solve(a, g), b)

    def jvp_a(g, ans, a, b):
        d_a = reads.tangent(g)
        if op != "N":
            d_a = _t(anp.conj(d_a) if op == "C" else d_a)
        return -solve_with(a, _apply(d_a, ans, anp.ndim(ans) == anp.ndim(a) - 1), op)

    def jvp_b(g, ans, a, b):
        return solve_with(a, g, op)

    return vjp_a, vjp_b, jvp_a, jvp_b


def _register_solve(fun: Callable, rules_for: Callable) -> None:
    """`rules_for(a, b, **kwargs)` gives the four rules of one call; register them for
    arguments 0 (`a`) and 1 (`b`) of `fun(a, b, **kwargs)`."""
    defvjp(fun,
           lambda ans, a, b, *args, **kwargs: rules_for(a, *args, **kwargs)[0](ans, a, b),
           lambda ans, a, b, *args, **kwargs: rules_for(a, *args, **kwargs)[1](ans, a, b))
    defjvp(fun,
           lambda g, ans, a, b, *args, **kwargs: rules_for(a, *args, **kwargs)[2](g, ans, a, b),
           lambda g, ans, a, b, *args, **kwargs: rules_for(a, *args, **kwargs)[3](g, ans, a, b))


_TRANS = {0: "N", 1: "T", 2: "C", "N": "N", "T": "T", "C": "C", "n": "N", "t": "T", "c": "C"}


def _solve_triangular_rules(a, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                            check_finite=True):
    r"""$x = \operatorname{op}(T)^{-1} b$ with $T$ the `lower` (or upper) triangle of `a`, its
    diagonal replaced by ones if `unit_diagonal` (then $E$ keeps the strict triangle only)."""
    op = _TRANS[trans]
    if op == "C" and not _is_complex(a):
        op = "T"
    k = (-1 if lower else 1) if unit_diagonal else 0
    triangle = onp.tril if lower else onp.triu
    reads = _Reads("mask", mask=lambda n: triangle(onp.ones((n, n)), k))

    def solve_with(a_, rhs, op_):
        return wrapped["solve_triangular"](a_, rhs, trans=op_, lower=lower,
                                           unit_diagonal=unit_diagonal, check_finite=check_finite)

    return _solve_rules(solve_with, reads, op)


def _solve_general_rules(a, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True,
                         assume_a=None, transposed=False):
    reads = _reads_of_assume_a("solve", a, assume_a, lower)

    def solve_with(a_, rhs, op_):
        return wrapped["solve"](a_, rhs, lower=lower, check_finite=check_finite,
                                assume_a=assume_a, transposed=op_ == "T")

    return _solve_rules(solve_with, reads, "T" if transposed else "N")


_register_solve(wrapped["solve_triangular"], _solve_triangular_rules)
_register_solve(wrapped["solve"], _solve_general_rules)


# --- cho_solve: the factor sits inside a pair, where a primitive cannot see it -----------------


def _cho_solve_raw(c, lower, b, overwrite_b=False, check_finite=True):
    return scipy.linalg.cho_solve((c, lower), b, overwrite_b=overwrite_b, check_finite=check_finite)


_cho_solve_raw.__name__ = _cho_solve_raw.__qualname__ = "cho_solve"
_cho_solve = primitive(_cho_solve_raw)


def cho_solve(c_and_lower: Any, b: Any, overwrite_b: bool = False, check_finite: bool = True) -> Any:
    """`scipy.linalg.cho_solve((c, lower), b)`, traced through the factor `c` and through `b`
    (a traced `c` inside the pair would be invisible to a primitive taking the pair)."""
    c, lower = c_and_lower
    return _cho_solve(c, bool(getval(lower)), b, overwrite_b=overwrite_b, check_finite=check_finite)


cho_solve.vjps, cho_solve.jvps = _cho_solve.vjps, _cho_solve.jvps
cho_solve.__wrapped__ = scipy.linalg.cho_solve
wrapped["cho_solve"] = cho_solve


def _factor(c: Any, lower: bool) -> Any:
    return anp.tril(c) if lower else anp.triu(c)


def _vjp_cho_solve_c(ans, c, lower, b, **kwargs):
    r"""$A = C C^\top$ (`lower`) or $U^\top U$, $x = A^{-1} b$, $\lambda = A^{-1} \bar{x}$,
    $S = -(\lambda x^\top + x \lambda^\top)$: $\bar{C} = \operatorname{tril}(S C)$,
    $\bar{U} = \operatorname{triu}(U S)$ (LAPACK reads only the factor's triangle)."""
    vector = _is_vector(b)

    def vjp(g):
        lam = _cho_solve(c, lower, g, **kwargs)
        s = -(_outer(lam, ans, vector) + _outer(ans, lam, vector))
        factor = _factor(c, lower)
        c_bar = anp.tril(anp.matmul(s, factor)) if lower else anp.triu(anp.matmul(factor, s))
        return _to_shape_of(c_bar, c)

    return vjp


def _jvp_cho_solve_c(g, ans, c, lower, b, **kwargs):
    r"""$dA = dC\, C^\top + C\, dC^\top$ (or $dU^\top U + U^\top dU$), $dx = -A^{-1} dA\, x$."""
    factor, d_factor = _factor(c, lower), _factor(g, lower)
    vector = _is_vector(b)
    if lower:
        d_a_x = _apply(d_factor, _apply(_t(factor), ans, vector), vector) + _apply(
            factor, _apply(_t(d_factor), ans, vector), vector)
    else:
        d_a_x = _apply(_t(d_factor), _apply(factor, ans, vector), vector) + _apply(
            _t(factor), _apply(d_factor, ans, vector), vector)
    return -_cho_solve(c, lower, d_a_x, **kwargs)


defvjp(_cho_solve, _vjp_cho_solve_c, None,
       lambda ans, c, lower, b, **kwargs: lambda g: _to_shape_of(_cho_solve(c, lower, g, **kwargs), b))
defjvp(_cho_solve, _jvp_cho_solve_c, None,
       lambda g, ans, c, lower, b, **kwargs: _cho_solve(c, lower, g, **kwargs))


# --- solve_banded: the band of a matrix in LAPACK's storage --------------------------------


def _band_indices(l_and_u: tuple[int, int], n: int) -> tuple[onp.ndarray, onp.ndarray, onp.ndarray]:
    r"""Banded storage holds $A_{ij}$ at `ab[u + i - j, j]`. For every slot `(k, j)` of `ab`:
    the row $i = k - u + j$ of $A$ it stands for (clipped into range), and whether it is in
    the matrix at all (the corners of `ab` are not)."""
    lower, upper = l_and_u
    k, j = onp.meshgrid(onp.arange(lower + upper + 1), onp.arange(n), indexing="ij")
    i = k - upper + j
    inside = (i >= 0) & (i < n)
    return onp.clip(i, 0, n - 1), j, inside.astype(float)


def _banded_to_dense(l_and_u: tuple[int, int], ab: Any) -> Any:
    """The dense matrix stored in `ab` (traced: a sum of shifted diagonals, each a `diag`)."""
    lower, upper = l_and_u
    n = anp.shape(ab)[-1]
    dense = 0.0
    for k in range(lower + upper + 1):
        offset = upper - k  # row k of ab is diagonal `offset` of A
        if offset >= 0:
            dense = dense + anp.diag(ab[k, offset:], offset)
        else:
            dense = dense + anp.diag(ab[k, : n + offset], offset)
    return dense


def _vjp_solve_banded(argnum, ans, l_and_u, ab, b, *args, **kwargs):
    r"""$\lambda = A^{-\top} \bar{x}$, solved with $A^\top$ in banded storage (bandwidths
    swapped); $\bar{b} = \lambda$, and $\bar{A} = -\lambda x^\top$ read back into the band."""
    vector = _is_vector(b)
    lower, upper = l_and_u
    n = anp.shape(ab)[-1]

    def vjp(g):
        dense_t = _t(_banded_to_dense(l_and_u, ab))
        rows, cols, inside = _band_indices((upper, lower), n)
        ab_t = dense_t[rows, cols] * inside
        lam = wrapped["solve_banded"]((upper, lower), ab_t, g, *args, **kwargs)
        if argnum == 2:
            return lam
        rows, cols, inside = _band_indices(l_and_u, n)
        return (-_outer(lam, ans, vector))[rows, cols] * inside

    return vjp


def _jvp_solve_banded(argnum, g, ans, l_and_u, ab, b, *args, **kwargs):
    rhs = g if argnum == 2 else -_apply(_banded_to_dense(l_and_u, g), ans, _is_vector(b))
    return wrapped["solve_banded"](l_and_u, ab, rhs, *args, **kwargs)


defvjp(wrapped["solve_banded"], None,
       lambda *a, **k: _vjp_solve_banded(1, *a, **k), lambda *a, **k: _vjp_solve_banded(2, *a, **k))
defjvp(wrapped["solve_banded"], None,
       lambda *a, **k: _jvp_solve_banded(1, *a, **k), lambda *a, **k: _jvp_solve_banded(2, *a, **k))


# =============================================================================================
# solve_sylvester, sqrtm
# =============================================================================================


def _vjp_sylvester(argnum):
    r"""$AX + XB = Q$. With $\Lambda$ solving $A^\top \Lambda + \Lambda B^\top = \bar{X}$:
    $\bar{Q} = \Lambda$, $\bar{A} = -\Lambda X^\top$, $\bar{B} = -X^\top \Lambda$."""
    def maker(ans, a, b, q):
        target = (a, b, q)[argnum]

        def vjp(g):
            lam = wrapped["solve_sylvester"](_t(a), _t(b), g)
            parts = (lambda: -anp.matmul(lam, _t(ans)), lambda: -anp.matmul(_t(ans), lam), lambda: lam)
            return _to_shape_of(parts[argnum](), target)

        return vjp

    return maker


def _jvp_sylvester(argnum):
    r"""$A\, dX + dX\, B = dQ - dA\, X - X\, dB$."""
    def jvp(g, ans, a, b, q):
        rhs = (lambda: -anp.matmul(g, ans), lambda: -anp.matmul(ans, g), lambda: g)[argnum]()
        return wrapped["solve_sylvester"](a, b, rhs)

    return jvp


defvjp(wrapped["solve_sylvester"], *(_vjp_sylvester(i) for i in range(3)))
defjvp(wrapped["solve_sylvester"], *(_jvp_sylvester(i) for i in range(3)))


def _root(name: str, ans: Any) -> Any:
    if isinstance(ans, tuple):  # disp=False also returned an error estimate
        raise NotImplementedError(f"ad_core: no derivative rule for {name} with disp=False")
    return ans


def _vjp_sqrtm(ans, a, *args, **kwargs):
    r"""$X = A^{1/2}$ satisfies $X\, dX + dX\, X = dA$, so $\bar{A}$ solves
    $X^\top \bar{A} + \bar{A} X^\top = \bar{X}$ (real part for a real $A$ whose root is complex)."""
    root = _root("sqrtm", ans)
    return lambda g: _to_shape_of(wrapped["solve_sylvester"](_t(root), _t(root), g), a)


def _jvp_sqrtm(g, ans, a, *args, **kwargs):
    root = _root("sqrtm", ans)
    return wrapped["solve_sylvester"](root, root, g)


defvjp(wrapped["sqrtm"], _vjp_sqrtm)
defjvp(wrapped["sqrtm"], _jvp_sqrtm)


# =============================================================================================
# inv, det, cholesky
# =============================================================================================


def _inv_reads(a: Any, assume_a: str | None, lower: bool) -> _Reads:
    if assume_a == "diagonal":
        # SciPy 1.17's inv inverts the diagonal and copies the other entries of `a` into its
        # output unchanged, so its output is not the inverse the rule would differentiate.
        raise NotImplementedError(
            "ad_core: no derivative rule for inv with assume_a='diagonal' (SciPy copies the "
            "off-diagonal entries of a into the result); use 1 / diagonal(a) instead"
        )
    return _reads_of_assume_a("inv", a, assume_a, lower)


def _vjp_inv(ans, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    r"""$d(A^{-1}) = -A^{-1} E(da) A^{-1}$: $\bar{a} = E^\top(-A^{-\top} \bar{Y} A^{-\top})$."""
    reads = _inv_reads(a, assume_a, lower)
    return lambda g: reads.cotangent(-anp.matmul(anp.matmul(_t(ans), g), _t(ans)))


def _jvp_inv(g, ans, a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    reads = _inv_reads(a, assume_a, lower)
    return -anp.matmul(anp.matmul(ans, reads.tangent(g)), ans)


defvjp(wrapped["inv"], _vjp_inv)
defjvp(wrapped["inv"], _jvp_inv)

defvjp(wrapped["det"], lambda ans, a, *args, **kwargs: grad_det(ans, a))
defjvp(wrapped["det"], lambda g, ans, a, *args, **kwargs: ans * anp.sum(
    _t(anp.linalg.inv(a)) * g, axis=(-2, -1)))


def _cholesky_reads(a: Any, lower: bool) -> _Reads:
    if _is_complex(a):
        raise NotImplementedError("ad_core: the cholesky rules are for real matrices")
    return _Reads("symmetric", lower=lower)


def _vjp_cholesky(ans, a, lower=False, overwrite_a=False, check_finite=True):
    r"""`ad_core.numpy.linalg`'s rule gives the symmetric cotangent $M$ of the symmetric matrix
    SciPy factors, built from the `lower` (or upper) triangle of `a`; $E^\top$ folds it there."""
    symmetric = grad_cholesky(ans, a, upper=not lower)
    reads = _cholesky_reads(a, lower)
    return lambda g: reads.cotangent(symmetric(g))


def _jvp_cholesky(g, ans, a, lower=False, overwrite_a=False, check_finite=True):
    return jvp_cholesky(_cholesky_reads(a, lower).tangent(g), ans, a, upper=not lower)


defvjp(wrapped["cholesky"], _vjp_cholesky)
defjvp(wrapped["cholesky"], _jvp_cholesky)

__all__ = sorted(wrapped)
