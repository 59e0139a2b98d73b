"""Names HIPS/autograd code imports beyond the operators: `core.primitive_vjps`,
`misc.const_graph`, the VSpace API and `test_util`'s helpers (issue 17); `wrap_util`'s
`unary_to_nary` is tested in `test_wrap_util.py`.

Each test checks against finite differences or plain NumPy, never against ad_core itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad
from ad_core.core import make_vjp, primitive_jvps, primitive_vjps, vspace
from ad_core.extend import defvjp, primitive
from ad_core.misc import const_graph
from ad_core.test_util import check_equivalent, check_grads, combo_check, scalar_close

from ._oracle import assert_close, numerical_grad


def test_primitive_vjps_pop_removes_the_rule_and_setitem_restores_it() -> None:
    @primitive
    def double(x):
        return 2.0 * x

    defvjp(double, lambda ans, x: lambda g: 2.0 * g)
    assert double in primitive_vjps and double not in primitive_jvps
    rules = primitive_vjps.pop(double, None)
    with pytest.raises(NotImplementedError, match="no VJP rule is defined for double"):
        grad(double)(1.0)
    primitive_vjps[double] = rules
    assert grad(double)(1.0) == 2.0
    assert primitive_vjps.pop(anp.iscomplex, None) is None  # no rules: nothing to take


def test_const_graph_traces_once_and_replays() -> None:
    calls = []

    def fun(x, y):
        calls.append(None)
        return anp.sin(x) * y + x

    fast = const_graph(fun)
    for x, y in [(0.3, 2.0), (1.1, -0.5), (2.0, 3.0)]:
        assert_close(fast(x, y), np.sin(x) * y + x, "replayed value")
    assert len(calls) == 1  # traced on the first call only


def test_const_graph_binds_arguments_first() -> None:
    fast = const_graph(lambda x, y, z: x + 2 * y + 3 * z, 1.0, z=3.0)
    assert fast(2.0) == 14.0
    assert fast(0.5) == 11.0


@pytest.mark.parametrize(
    "value",
    [np.zeros((3, 2)), 0.0, 1j * np.zeros((2, 1)), [1.0, np.zeros((2, 1))], (1.0, np.zeros(2)),
     {"a": 1.0, "b": np.zeros((2, 1))}],
    ids=["array", "scalar", "complex", "list", "tuple", "dict"],
)
def test_vspace_has_autograds_api(value) -> None:
    np.random.seed(0)
    space = vspace(value)
    x, y = space.randn(), space.randn()  # NumPy's global generator, as in autograd
    assert space == vspace(x) == vspace(space.add(x, y)) == vspace(space.scalar_mul(x, 2.0))
    assert scalar_close(space.inner_prod(space.scalar_mul(x, 2.5), y), 2.5 * space.inner_prod(x, y))
    assert space.inner_prod(x, x) > 0
    # add, scalar_mul and inner_prod are traced: their derivatives against finite differences
    check_grads(space.add)(x, y)
    check_grads(space.scalar_mul)(x, 1.5)
    check_grads(space.inner_prod)(x, y)


def test_traced_inner_prod_has_the_gradient_of_a_dot_product() -> None:
    space = vspace(np.zeros(3))
    x, y = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.1, 2.0])
    computed = grad(space.inner_prod)(x, y)
    assert computed.shape == (3,)
    assert_close(computed, numerical_grad(space.inner_prod, (x, y), 0), "grad of inner_prod")


def test_check_grads_passes_keyword_arguments_to_the_function() -> None:
    check_grads(anp.sum)(np.arange(6.0).reshape(2, 3), axis=1)
    with pytest.raises(AssertionError):
        wrong = primitive(lambda x, scale: scale * x)
        defvjp(wrong, lambda ans, x, scale: lambda g: g)  # ignores scale
        check_grads(wrong, modes=["rev"], order=1)(1.0, scale=3.0)


def test_combo_check_tries_every_combination() -> None:
    seen = []

    def fun(x, axis=None):
        seen.append((np.shape(x), axis))
        return anp.sum(x, axis=axis)

    combo_check(fun, (0,), modes=["rev"], order=1)([np.ones(2), np.ones((2, 3))], axis=[None, 0])
    assert {(shape, axis) for shape, axis in seen} == {((2,), None), ((2,), 0), ((2, 3), None), ((2, 3), 0)}


def test_scalar_close_and_check_equivalent() -> None:
    assert scalar_close(1.0, 1.0 + 1e-9) and not scalar_close(1.0, 1.1)
    check_equivalent(np.ones(3), np.ones(3))
    with pytest.raises(AssertionError, match="VSpace mismatch"):
        check_equivalent(np.ones(3), np.ones(2))


# ---------------------------------------------------------------------------------------------
# Bugs found by autograd's test_util semantics: derivatives with respect to tuples, dtypes
# ---------------------------------------------------------------------------------------------


def test_core_make_vjp_traces_a_function_that_returns_a_tuple() -> None:
    """A VJP with respect to a tuple returns a tuple of traced values; differentiating it again
    with `ad_core.core.make_vjp` used to see no box, call the output constant and return zeros."""
    from ad_core.core import make_jvp as core_make_jvp

    def dot_pair(ab):
        return anp.dot(ab[0], ab[1])

    def vjp_of_dot(point):  # (a, b), g  ->  (g * b, g * a)
        return make_vjp(dot_pair, point[0])[0](point[1])

    point = ((1.5, 0.3), 2.0)
    vjp, value = make_vjp(vjp_of_dot, point)
    assert_close(np.array(value), [0.6, 3.0], "value")
    ((da, db), dg) = vjp((1.0, 0.0))  # the derivative of g * b: b with respect to g, g to b
    assert_close(np.array([da, db, dg]), [0.0, 2.0, 0.3], "reverse over reverse")
    _, tangent = core_make_jvp(vjp_of_dot, point)(((0.0, 1.0), 0.0))
    assert_close(np.array(tangent), [2.0, 0.0], "forward over reverse")


@pytest.mark.parametrize("name", ["dot", "outer", "tensordot", "inner", "kron"])
def test_a_real_factor_of_a_complex_product_gets_a_real_cotangent(name) -> None:
    """dot, outer, tensordot and inner gave the real factor a complex cotangent (gradient
    descent then made a real parameter complex); autograd's check compares vector spaces."""
    product = {"tensordot": lambda a, b: anp.tensordot(a, b, axes=0)}.get(name, getattr(anp, name))
    real = np.array([0.5, -1.0, 2.0])
    complex_ = np.array([1 + 2j, 3 - 1j, 0.5j])

    def loss(a, b):
        return anp.sum(anp.abs(product(a, b)) ** 2)

    for argnum, args in [(0, (real, complex_)), (1, (complex_, real))]:
        computed = grad(loss, argnum)(*args)
        assert computed.shape == (3,) and computed.dtype == np.float64
        assert_close(computed, numerical_grad(loss, args, argnum), f"{name} argument {argnum}")


def test_check_grads_second_order_checks_the_rule_against_its_cotangent() -> None:
    """autograd's test_tests: a VJP rule whose own VJP (with respect to the cotangent) is off is
    caught at order 2, and the message names the function as autograd's does."""

    @primitive
    def foo(x):
        return x * 2.0

    @primitive
    def bar(x):
        return x

    defvjp(foo, lambda ans, x: lambda g: bar(g) * 2)
    defvjp(bar, lambda ans, x: lambda g: g * 1.001)
    check_grads(foo, modes=["rev"], order=1)(1.0)
    message = r"\(VJP\) check of vjp_foo failed: argument 0, mode 'rev', order 2"
    with pytest.raises(AssertionError, match=message):
        check_grads(foo, modes=["rev"])(1.0)


# ---------------------------------------------------------------------------------------------
# ad_core.numpy: what autograd's test_numpy and test_linalg call
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["mean", "std", "var", "sum", "max", "min"])
@pytest.mark.parametrize("container", [list, tuple])
def test_a_reduction_of_a_list_of_traced_values(name, container) -> None:
    reduction = getattr(anp, name)

    def fun(x):
        return reduction(container([x, 2.0 * x + 1.0, anp.sin(x)]))

    computed = grad(fun)(0.3)
    assert np.shape(computed) == ()
    assert_close(computed, numerical_grad(fun, (0.3,)), f"{name} of a {container.__name__}")
    assert grad(lambda x: anp.std(container([x, x + 2])))(0.0) == 0.0  # autograd's own case


def test_a_traced_array_cast_to_integers_is_an_index() -> None:
    """`np.int64(x)` of a traced x: integers carry no derivative, so nothing is lost (autograd
    allows it); a float conversion still raises, since it would drop the derivative."""
    def fun(W):
        rows = anp.int64(W[:, -1])
        assert rows.dtype == np.int64
        return anp.sum(W[:, :-1][rows] ** 2)

    # the index column sits between integers, where the cast is locally constant
    index_column = np.array([[3.5], [0.5], [4.5], [0.5], [2.5]])
    W = np.concatenate([np.random.default_rng(0).standard_normal((5, 3)), index_column], axis=1)
    computed = grad(fun)(W)
    assert computed.shape == (5, 4)
    assert_close(computed, numerical_grad(fun, (W,)), "gradient through an integer index")
    with pytest.raises(TypeError, match=r"converting a traced value \(ArrayBox of shape \(5,\)\)"):
        grad(lambda W: anp.sum(np.asarray(W[:, 0], dtype=float)))(W)


def test_numpy_version_names() -> None:
    assert anp.__version__ == np.__version__ == anp.numpy_version


def test_linalg_helpers_under_autograds_names(rng) -> None:
    x = rng.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(anp.linalg.T(x), np.swapaxes(x, -1, -2))
    np.testing.assert_allclose(anp.linalg._dot(anp.linalg.T(x), x), np.swapaxes(x, -1, -2) @ x)
    # a pseudo-inverse of fixed (deficient) rank, as autograd's test_pinv calls it
    check_grads(lambda x: anp.linalg.pinv(anp.linalg._dot(anp.linalg.T(x), x)))(x)


@pytest.mark.parametrize(
    ("condition", "x", "y", "expected"),
    [(True, 1, 2, 1), (True, 3.0, 4.0, 3.0), (False, 1, 2.0, 2.0), (True, [1, 2], [3, 4], [1, 2])],
)
def test_where_of_plain_python_values_is_plain_python(condition, x, y, expected) -> None:
    result = anp.where(condition, x, y)
    assert type(result) is type(expected) and result == expected


def test_where_takes_keywords_or_only_a_condition(rng) -> None:
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    condition = [True, False, True]
    np.testing.assert_array_equal(anp.where(condition=condition, x=x, y=y), np.where(condition, x, y))
    np.testing.assert_array_equal(anp.where(condition, x, y=y), np.where(condition, x, y))
    np.testing.assert_array_equal(anp.where(condition)[0], [0, 2])
    with pytest.raises(ValueError, match=r"where: give both x and y, or neither; got 1 positional"):
        anp.where(condition, x)

    def fun(x):  # traced through keywords too
        return anp.sum(anp.where(condition=x > 0, x=x**2, y=-x))

    computed = grad(fun)(x)
    assert computed.shape == (3,)
    assert_close(computed, numerical_grad(fun, (x,)), "where by keyword")
