"""`ad_core.numpy.linalg`: inv, det, slogdet, solve, norm, svd, cholesky, eigh, eigvalsh, pinv and
matrix_power against finite differences (both modes, second order) and HIPS/autograd 1.9.1, eig
in reverse mode; single matrices and stacks; what raises, and what is returned.
"""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_jvp
from ad_core.extend import getval
from ad_core.test_util import check_grads

from ._autograd_pairs import (
    Case,
    check_against_finite_differences,
    check_forward_mode_equals_autograd_jacobian,
    check_gradient_equals_autograd,
    check_hessian_vector_product_equals_autograd,
    complex_normal,
    conditioned,
    normal,
    spd,
    spd_of,
    well_conditioned,
)
from ._oracle import allow_constant_derivatives, numerical_complex_grad

RIGHT_HAND_SIDE = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
COLUMN_WEIGHTS = np.array([0.5, -1.0, 2.0])





def symmetric(xp, x):
    """NumPy's cholesky and eigh read one triangle; build the matrix symmetric so that every
    entry of the input matters, as a user's code would."""
    return (x + xp.swapaxes(x, -1, -2)) / 2.0


def singular_vector_products(xp, x, which, full_matrices=False):
    """Products of singular vectors that do not depend on their signs (a pair u_i, v_i may
    flip together): U diag(c) V^T, U diag(c) U^T or V diag(c) V^T."""
    u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    c = COLUMN_WEIGHTS[: np.shape(s)[-1]]
    if which == "uv":
        return xp.matmul(u * xp.expand_dims(c + s, -2), vh)
    if which == "uu":
        return xp.matmul(u * c, xp.swapaxes(u, -1, -2))
    return xp.matmul(xp.swapaxes(vh, -1, -2) * c, vh)


def eigenvector_outer_products(xp, x, uplo="L"):
    """V diag(c) V^T: uses every eigenvector entry, and does not depend on their signs."""
    _, v = xp.linalg.eigh(x, uplo)
    return xp.matmul(v * COLUMN_WEIGHTS, xp.swapaxes(v, -1, -2))


CASES = [
    Case("inv", lambda xp: xp.linalg.inv, conditioned(3, 3)),
    Case("inv-batched", lambda xp: xp.linalg.inv, conditioned(2, 3, 3)),
    Case("det", lambda xp: xp.linalg.det, conditioned(3, 3)),
    Case("det-batched", lambda xp: xp.linalg.det, conditioned(2, 3, 3)),
    Case("solve-matrix", lambda xp: lambda a: xp.linalg.solve(a, RIGHT_HAND_SIDE),
         conditioned(3, 3)),
    Case("solve-wrt-b", lambda xp: lambda b: xp.linalg.solve(np.diag([3.0, 2.0, 4.0]) + 0.5, b),
         normal(3, 2)),
    Case("solve-batched", lambda xp: lambda a: xp.linalg.solve(a, RIGHT_HAND_SIDE),
         conditioned(2, 3, 3)),
    Case("slogdet", lambda xp: lambda x: xp.linalg.slogdet(x)[1],
         conditioned(3, 3)),
    Case("slogdet-negative-determinant", lambda xp: lambda x: xp.linalg.slogdet(x)[1],
         lambda rng: well_conditioned(rng, (3, 3)) * np.array([-1.0, 1.0, 1.0])),
    Case("slogdet-batched-unpacked", lambda xp: lambda x: (lambda s, ld: s * ld)(*xp.linalg.slogdet(x)),
         conditioned(2, 3, 3)),
    Case("norm-vector", lambda xp: xp.linalg.norm, normal(4)),
    Case("norm-flattened-3d", lambda xp: xp.linalg.norm, normal(2, 3, 2)),
    Case("norm-ord-2", lambda xp: lambda x: xp.linalg.norm(x, 2), normal(4)),
    Case("norm-ord-3", lambda xp: lambda x: xp.linalg.norm(x, 3), normal(4)),
    Case("norm-ord-1.5-axis", lambda xp: lambda x: xp.linalg.norm(x, 1.5, axis=0),
         lambda rng: rng.uniform(0.5, 2.0, (3, 4)) * np.sign(rng.standard_normal((3, 4)))),
    Case("norm-axis-1", lambda xp: lambda x: xp.linalg.norm(x, axis=1), normal(3, 4)),
    Case("norm-axis-negative", lambda xp: lambda x: xp.linalg.norm(x, axis=-2),
         normal(2, 3, 4)),
    # HIPS/autograd's rule gets keepdims=True wrong (it adds the axis a second time).
    Case("norm-keepdims", lambda xp: lambda x: xp.linalg.norm(x, axis=1, keepdims=True),
         normal(3, 4), autograd=False),
    Case("norm-ord-3-keepdims", lambda xp: lambda x: xp.linalg.norm(x, 3, axis=0, keepdims=True),
         normal(3, 4), autograd=False),
    Case("norm-frobenius", lambda xp: lambda x: xp.linalg.norm(x, "fro"), normal(3, 4)),
    Case("norm-frobenius-axes", lambda xp: lambda x: xp.linalg.norm(x, "fro", axis=(2, 0)),
         normal(3, 2, 4)),
    Case("norm-frobenius-keepdims", lambda xp: lambda x: xp.linalg.norm(x, axis=(1, 2), keepdims=True),
         normal(2, 3, 4), autograd=False),
    Case("cholesky", lambda xp: lambda x: xp.linalg.cholesky(symmetric(xp, x)), spd_of(3, 3)),
    Case("cholesky-batched", lambda xp: lambda x: xp.linalg.cholesky(symmetric(xp, x)),
         spd_of(2, 4, 4)),
    # autograd 1.9.1's cholesky has no `upper` argument.
    Case("cholesky-upper", lambda xp: lambda x: xp.linalg.cholesky(symmetric(xp, x), upper=True),
         spd_of(2, 3, 3), autograd=False),
    Case("eigh-eigenvalues", lambda xp: lambda x: xp.linalg.eigh(x)[0], spd_of(3, 3)),
    Case("eigh-eigenvalues-batched", lambda xp: lambda x: xp.linalg.eigh(x)[0], spd_of(2, 3, 3)),
    Case("eigh-eigenvectors", lambda xp: lambda x: eigenvector_outer_products(xp, x), spd_of(3, 3)),
    Case("eigh-eigenvectors-batched", lambda xp: lambda x: eigenvector_outer_products(xp, x),
         spd_of(2, 3, 3)),
    Case("eigh-upper",
         lambda xp: lambda x: eigenvector_outer_products(xp, x, "U") + xp.linalg.eigh(x, "U")[0],
         spd_of(3, 3)),
    Case("eigh-symmetrized", lambda xp: lambda x: eigenvector_outer_products(xp, symmetric(xp, x)),
         spd_of(3, 3)),
    Case("eigvalsh", lambda xp: xp.linalg.eigvalsh, spd_of(2, 3, 3), autograd=False),
    Case("svd-singular-values", lambda xp: lambda x: xp.linalg.svd(x, compute_uv=False), normal(3, 4)),
    Case("svd-singular-values-batched", lambda xp: lambda x: xp.linalg.svd(x, compute_uv=False),
         normal(2, 4, 3)),
    # autograd 1.9.1 refuses full_matrices=True even for a square matrix, where it changes nothing.
    Case("svd-square-full", lambda xp: lambda x: singular_vector_products(xp, x, "uv", True), normal(3, 3),
         autograd=False),
    Case("svd-tall-uv", lambda xp: lambda x: singular_vector_products(xp, x, "uv"), normal(4, 3)),
    Case("svd-tall-left-vectors", lambda xp: lambda x: singular_vector_products(xp, x, "uu"), normal(4, 2)),
    Case("svd-wide-right-vectors", lambda xp: lambda x: singular_vector_products(xp, x, "vv"), normal(2, 4)),
    Case("svd-wide-batched", lambda xp: lambda x: singular_vector_products(xp, x, "uv"), normal(2, 3, 4)),
    Case("norm-nuclear", lambda xp: lambda x: xp.linalg.norm(x, "nuc"), normal(3, 4)),
    Case("norm-nuclear-axes", lambda xp: lambda x: xp.linalg.norm(x, "nuc", axis=(2, 0)), normal(3, 2, 4)),
    Case("pinv-tall", lambda xp: xp.linalg.pinv, normal(4, 3)),
    Case("pinv-wide", lambda xp: xp.linalg.pinv, normal(2, 4)),
    Case("pinv-square-batched", lambda xp: xp.linalg.pinv, conditioned(2, 3, 3)),
    Case("matrix-power-5", lambda xp: lambda x: xp.linalg.matrix_power(x, 5),
         lambda rng: rng.standard_normal((3, 3)) * 0.5, autograd=False),
    Case("matrix-power-1-batched", lambda xp: lambda x: xp.linalg.matrix_power(x, 1),
         normal(2, 3, 3), autograd=False),
    Case("matrix-power-negative-batched", lambda xp: lambda x: xp.linalg.matrix_power(x, -2),
         conditioned(2, 3, 3), autograd=False),
]

AUTOGRAD_CASES = [case for case in CASES if case.autograd]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_linalg_rule_passes_check_grads_to_second_order(case: Case, rng) -> None:
    check_against_finite_differences(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_linalg_gradient_equals_autograd(case: Case, rng) -> None:
    check_gradient_equals_autograd(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
def test_linalg_forward_mode_equals_autograd_jacobian(case: Case, rng) -> None:
    check_forward_mode_equals_autograd_jacobian(case, rng)


@pytest.mark.parametrize("case", AUTOGRAD_CASES, ids=lambda case: case.name)
@allow_constant_derivatives  # solve is linear in b: its second derivative is constant
@pytest.mark.filterwarnings("ignore:Output seems independent of input:UserWarning")
def test_linalg_hessian_vector_product_equals_autograd(case: Case, rng) -> None:
    check_hessian_vector_product_equals_autograd(case, rng)


def test_cholesky_gradient_is_symmetric_like_autograds(rng) -> None:
    # The cotangent of the factored matrix is symmetric even when the loss is not.
    a = spd(rng, (3, 3))
    weights = rng.standard_normal((3, 3))
    computed = grad(lambda x: anp.sum(weights * anp.linalg.cholesky(x)))(a)
    assert computed.shape == (3, 3)
    np.testing.assert_allclose(computed, computed.T, rtol=1e-12, atol=1e-14)


def test_eigh_cotangent_sits_on_the_triangle_numpy_reads(rng) -> None:
    a = spd(rng, (3, 3))
    lower = grad(lambda x: anp.sum(anp.linalg.eigh(x)[0] ** 2))(a)
    upper = grad(lambda x: anp.sum(anp.linalg.eigh(x, UPLO="U")[0] ** 2))(a)
    assert lower.shape == upper.shape == (3, 3)
    np.testing.assert_array_equal(np.triu(lower, 1), 0.0)
    np.testing.assert_array_equal(np.tril(upper, -1), 0.0)
    np.testing.assert_allclose(lower, upper.T, rtol=1e-12)


def test_eigenvalue_gradient_is_finite_for_repeated_eigenvalues() -> None:
    # d(sum of eigenvalues) = d(trace): the identity's diagonal, even where eigenvalues coincide.
    computed = grad(lambda x: anp.sum(anp.linalg.eigh(x)[0]))(2.0 * np.eye(3))
    assert computed.shape == (3, 3)
    np.testing.assert_allclose(computed, np.eye(3), rtol=1e-12, atol=1e-14)


def test_eigh_of_a_complex_hermitian_matrix_matches_finite_differences(rng) -> None:
    base = complex_normal(rng, (3, 3))
    hermitian = base @ base.conj().T + 3.0 * np.eye(3)
    weights = rng.standard_normal(3)

    def loss(x):
        w, v = anp.linalg.eigh(x)
        return anp.sum(weights * w) + anp.sum(anp.abs(v[0]) ** 2 * weights)

    computed = grad(loss)(hermitian)
    assert computed.shape == (3, 3)
    np.testing.assert_allclose(computed, numerical_complex_grad(loss, hermitian), rtol=1e-6, atol=1e-7)


def test_norm_accepts_a_list_of_traced_values() -> None:
    computed = grad(lambda x: anp.linalg.norm([x, 2.0 * x, 3.0]))(1.0)
    np.testing.assert_allclose(computed, 5.0 / np.sqrt(14.0), rtol=1e-12)


def test_norm_of_a_complex_vector_matches_finite_differences(rng) -> None:
    z = complex_normal(rng, (4,))
    computed = grad(anp.linalg.norm)(z)
    assert computed.shape == (4,)
    np.testing.assert_allclose(computed, numerical_complex_grad(anp.linalg.norm, z), rtol=1e-7, atol=1e-8)
    _, tangent = make_jvp(anp.linalg.norm)(z)(np.ones(4, dtype=complex))
    assert np.isrealobj(tangent)


@pytest.mark.parametrize(
    "ord_,axis,shape",
    [(np.inf, None, (4,)), (1, None, (4,)), (2, None, (3, 3)), (-np.inf, (0, 1), (3, 3))],
    ids=["vector-inf", "vector-1", "matrix-2", "matrix-minus-inf-axes"],
)
def test_norm_without_a_rule_raises_naming_the_ord(ord_, axis, shape, rng) -> None:
    x = rng.standard_normal(shape)
    with pytest.raises(NotImplementedError, match=r"norm .*ord="):
        grad(lambda v: anp.linalg.norm(v, ord_, axis=axis))(x)
    with pytest.raises(NotImplementedError, match=r"norm .*ord="):
        make_jvp(lambda v: anp.linalg.norm(v, ord_, axis=axis))(x)(x)


def test_plain_calls_return_numpys_named_tuples(rng) -> None:
    a = spd(rng, (3, 3))
    np.testing.assert_array_equal(anp.linalg.eigh(a).eigenvalues, np.linalg.eigh(a).eigenvalues)
    assert anp.linalg.slogdet(a).logabsdet == np.linalg.slogdet(a).logabsdet
    np.testing.assert_array_equal(anp.linalg.svd(a).S, np.linalg.svd(a).S)
    np.testing.assert_array_equal(anp.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, 3))
    np.testing.assert_array_equal(anp.linalg.eigvalsh(a), np.linalg.eigvalsh(a))


def test_traced_calls_return_numpys_values(rng) -> None:
    a = spd(rng, (2, 3, 3))
    seen = {}

    def record(x):
        seen["eigh"] = anp.linalg.eigh(x)
        seen["slogdet"] = anp.linalg.slogdet(x)
        seen["power"] = anp.linalg.matrix_power(x, 3)
        seen["power-0"] = anp.linalg.matrix_power(x, 0)
        return anp.sum(seen["eigh"][0]) + anp.sum(seen["slogdet"][1]) + anp.sum(seen["power"])

    grad(record)(a)
    eigenvalues, eigenvectors = (getval(part) for part in getval(seen["eigh"]))
    np.testing.assert_array_equal(eigenvalues, np.linalg.eigh(a)[0])
    np.testing.assert_array_equal(eigenvectors, np.linalg.eigh(a)[1])
    np.testing.assert_array_equal(getval(seen["slogdet"])[1], np.linalg.slogdet(a)[1])
    np.testing.assert_allclose(getval(seen["power"]), np.linalg.matrix_power(a, 3), rtol=1e-13)
    np.testing.assert_array_equal(seen["power-0"], np.broadcast_to(np.eye(3), (2, 3, 3)))


def test_svd_of_a_non_square_matrix_with_full_matrices_raises(rng) -> None:
    x = rng.standard_normal((4, 3))
    with pytest.raises(NotImplementedError, match="full_matrices=False"):
        grad(lambda v: anp.sum(anp.linalg.svd(v)[0]))(x)
    computed = grad(lambda v: anp.sum(anp.linalg.svd(v)[1]))(np.diag([3.0, 2.0, 1.0]))
    np.testing.assert_allclose(computed, np.eye(3), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(("name", "modes"), [("qr", ("VJP", "JVP")), ("eig", ("JVP",))])
def test_linalg_function_without_a_rule_computes_and_fails_only_when_differentiated(name, modes, rng) -> None:
    a = spd(rng, (3, 3))
    function = getattr(anp.linalg, name)
    if "VJP" in modes:
        with pytest.raises(NotImplementedError, match=rf"no VJP rule is defined for {name}\b"):
            grad(lambda x: anp.sum(anp.real(function(x)[0])))(a)
    with pytest.raises(NotImplementedError, match=rf"no JVP rule is defined for {name}\b"):
        make_jvp(lambda x: anp.sum(anp.real(function(x)[0])))(a)(a)
    # A traced call computes NumPy's values; with no derivative asked of it, nothing fails.
    seen = {}

    def uses_only_the_value(x):
        seen["result"] = function(x)
        return anp.sum(x)

    np.testing.assert_array_equal(grad(uses_only_the_value)(a), np.ones((3, 3)))
    computed = [getval(part) for part in getval(seen["result"])]
    for part, expected in zip(computed, getattr(np.linalg, name)(a), strict=True):
        np.testing.assert_array_equal(part, expected)


# Found by running HIPS/autograd's test_linalg: eig had no rule, svd and the nuclear norm none
# for complex matrices.


def eig_summary(x):
    """A function of `eig` that does not depend on the eigenvectors' arbitrary phases."""
    w, v = anp.linalg.eig(x)
    weights = np.linspace(0.5, 1.5, 9).reshape(3, 3)
    return anp.real(anp.sum(w * (0.3 - 0.7j))) + anp.sum(anp.abs(v) * weights)


@pytest.mark.parametrize("kind", ["real", "complex", "stacked-complex"])
def test_eig_reverse_mode_matches_finite_differences(kind, rng) -> None:
    shape = (2, 3, 3) if kind.startswith("stacked") else (3, 3)
    x = rng.standard_normal(shape) if kind == "real" else complex_normal(rng, shape)
    summary = eig_summary if x.ndim == 2 else (lambda x: eig_summary(x[0]) + eig_summary(x[1]))
    gradient = grad(summary)(x)
    assert gradient.shape == x.shape
    assert np.iscomplexobj(gradient) == np.iscomplexobj(x)
    check_grads(summary, modes=("rev",), order=2)(x)


@pytest.mark.parametrize("shape", [(3, 5), (4, 4), (5, 3), (2, 5, 3)], ids=str)
def test_svd_of_a_complex_matrix_in_reverse_mode(shape, rng) -> None:
    x = complex_normal(rng, shape)

    def phase_free(a):
        u, s, vh = anp.linalg.svd(a, full_matrices=False)
        return anp.concatenate([anp.ravel(anp.abs(u)), anp.ravel(s), anp.ravel(anp.abs(vh))])

    def values_only(a):
        return anp.linalg.svd(a, compute_uv=False)

    for function in (phase_free, values_only):
        cotangent = rng.standard_normal(np.shape(function(x)))
        gradient = grad(lambda a, f=function, c=cotangent: anp.sum(f(a) * c))(x)
        assert gradient.shape == x.shape
        assert np.iscomplexobj(gradient)
        check_grads(function, modes=("rev",), order=2)(x)
    with pytest.raises(NotImplementedError, match="forward-mode svd rule is for real matrices"):
        make_jvp(values_only)(x)(x)


@pytest.mark.parametrize("axis", [None, (2, 0)], ids=["matrix", "axes-2-0"])
def test_nuclear_norm_of_a_complex_matrix(axis, rng) -> None:
    x = complex_normal(rng, (3, 4) if axis is None else (3, 2, 4))

    def nuclear(a):
        return anp.linalg.norm(a, "nuc", axis=axis)

    gradient = grad(lambda a: anp.sum(nuclear(a)))(x)
    assert gradient.shape == x.shape
    check_grads(nuclear, modes=("rev",), order=2)(x)
    check_grads(nuclear, modes=("fwd",), order=1)(x)
