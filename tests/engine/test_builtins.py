"""`ad_core.builtins` (tuple, list, dict, isinstance, type) and autograd's joint rule forms
(`defvjp_argnums`, `defjvp_argnums`): against HIPS/autograd 1.9.1 and finite differences.
"""

from __future__ import annotations

import builtins

import autograd
import autograd.builtins as ag_builtins
import autograd.extend as ag_extend
import autograd.numpy as agnp
import numpy as np
import pytest

import ad_core
import ad_core.builtins as ad_builtins
import ad_core.numpy as anp
from ad_core.extend import defjvp_argnums, defvjp_argnums, primitive
from ad_core.test_util import check_grads

from ._oracle import numerical_grad


def pair_then_product(x, xp, container):
    """Build a container from traced values, then read it back: the gradient has to flow
    through the container's elements."""
    pair = container((xp.sin(x), x**2))
    return xp.sum(pair[0] * pair[1]) + xp.sum(pair[1])


@pytest.mark.parametrize("name", ["tuple", "list"])
def test_a_sequence_built_from_traced_values_matches_autograd(name: str, rng) -> None:
    x = rng.standard_normal(4)
    ours = ad_core.grad(lambda x: pair_then_product(x, anp, getattr(ad_builtins, name)))(x)
    theirs = autograd.grad(lambda x: pair_then_product(x, agnp, getattr(ag_builtins, name)))(x)
    assert ours.shape == x.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    np.testing.assert_allclose(
        ours, numerical_grad(lambda x: pair_then_product(x, np, builtins.tuple), [x]), rtol=1e-7
    )


def test_a_dict_built_from_keywords_and_from_pairs_carries_gradients(rng) -> None:
    x = rng.standard_normal(3)

    def from_keywords(x, xp, make_dict):
        d = make_dict(scaled=2.0 * x, squared=x * x)
        return xp.sum(d["scaled"] * d["squared"])

    def from_pairs(x, xp, make_dict):
        d = make_dict([("a", xp.cos(x)), ("b", x)])
        return xp.sum(d["a"] ** 2 + d["b"])

    for loss in (from_keywords, from_pairs):
        ours = ad_core.grad(lambda x, loss=loss: loss(x, anp, ad_builtins.dict))(x)
        theirs = autograd.grad(lambda x, loss=loss: loss(x, agnp, ag_builtins.dict))(x)
        assert ours.shape == x.shape
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
        numerical = numerical_grad(lambda x, loss=loss: loss(x, np, dict), [x])
        np.testing.assert_allclose(ours, numerical, rtol=1e-7)


def test_containers_built_from_traced_values_pass_second_order_checks(rng) -> None:
    x = rng.standard_normal(3)
    check_grads(lambda x: pair_then_product(x, anp, ad_builtins.tuple), modes=("fwd", "rev"), order=2)(x)
    check_grads(
        lambda x: anp.sum(ad_builtins.dict(u=anp.tanh(x), v=x)["u"] * x), modes=("fwd", "rev"), order=2
    )(x)


def test_list_of_a_traced_parameter_list_reads_every_element(rng) -> None:
    params = [rng.standard_normal(2), rng.standard_normal(3)]

    def loss(params, make_list, xp):
        copied = make_list(params)
        return xp.sum(copied[0] ** 2) * xp.sum(copied[1])

    ours = ad_core.grad(lambda p: loss(p, ad_builtins.list, anp))(params)
    theirs = autograd.grad(lambda p: loss(p, ag_builtins.list, agnp))(params)
    assert type(ours) is builtins.list and [g.shape for g in ours] == [(2,), (3,)]
    for mine, reference in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-12)


def test_a_function_may_return_a_built_tuple(rng) -> None:
    x = rng.standard_normal(3)
    cotangent = (rng.standard_normal(3), rng.standard_normal(3))
    vjp, value = ad_core.make_vjp(lambda x: ad_builtins.tuple((anp.sin(x), x * 3.0)))(x)
    assert type(value) is builtins.tuple
    np.testing.assert_allclose(value[0], np.sin(x), rtol=1e-15)
    np.testing.assert_allclose(vjp(cotangent), cotangent[0] * np.cos(x) + 3.0 * cotangent[1], rtol=1e-14)


def test_forward_mode_through_a_built_tuple(rng) -> None:
    x, v = rng.standard_normal(4), rng.standard_normal(4)
    value, tangent = ad_core.make_jvp(lambda x: anp.sum(pair_then_product(x, anp, ad_builtins.tuple)))(x)(v)
    _, expected = autograd.make_jvp(lambda x: agnp.sum(pair_then_product(x, agnp, ag_builtins.tuple)))(x)(v)
    assert value == pytest.approx(np.sum(pair_then_product(x, np, builtins.tuple)), rel=1e-15)
    np.testing.assert_allclose(tangent, expected, rtol=1e-12)


def test_plain_values_give_pythons_own_containers() -> None:
    assert type(ad_builtins.tuple([1.0, 2.0])) is builtins.tuple
    assert type(ad_builtins.list((1.0,))) is builtins.list
    assert type(ad_builtins.dict(a=1)) is builtins.dict
    assert ad_builtins.tuple() == () and ad_builtins.list() == [] and ad_builtins.dict() == {}
    assert ad_builtins.dict([("k", 2)], extra=3) == {"k": 2, "extra": 3}


def test_isinstance_and_type_look_through_boxes(rng) -> None:
    seen = []

    def branchy(params):
        seen.append((ad_builtins.isinstance(params, dict), ad_builtins.type(params["w"]),
                     builtins.isinstance(params, dict)))
        return anp.sum(params["w"] ** 2)

    gradient = ad_core.grad(branchy)({"w": np.arange(3.0)})
    np.testing.assert_allclose(gradient["w"], 2 * np.arange(3.0))
    # Python's isinstance sees the box; the traced one sees the dict inside it.
    assert seen == [(True, np.ndarray, False)]


def test_the_container_names_classify_traced_and_plain_values_alike(rng) -> None:
    checks = []

    def record(x):
        pair = ad_builtins.tuple((x, x))
        checks.append((isinstance(pair, ad_builtins.tuple), isinstance(pair, ad_builtins.list),
                       isinstance((1, 2), ad_builtins.tuple), isinstance({}, ad_builtins.dict)))
        return pair[0] * pair[1]

    assert ad_core.grad(record)(1.5) == pytest.approx(3.0)
    assert checks == [(True, False, True, True)]


def test_autograds_names_import_from_the_package_but_not_with_a_star() -> None:
    assert ad_core.tuple is ad_builtins.tuple and ad_core.isinstance is ad_builtins.isinstance
    for name in ("tuple", "list", "dict", "isinstance", "type"):
        assert name not in ad_core.__all__
    namespace: dict = {}
    exec("from ad_core import *", namespace)
    assert "tuple" not in namespace and "grad" in namespace


# autograd's joint rule forms --------------------------------------------------------------


def _weighted_product_vjps(argnums, ans, args, kwargs):
    """The joint VJP maker of `x * y**2 * scale` (`scale` a keyword), in autograd's form."""
    x, y = args
    scale = kwargs.get("scale", 1.0)
    both = {0: lambda g: g * y**2 * scale, 1: lambda g: g * 2 * x * y * scale}
    return lambda g: (both[argnum](g) for argnum in argnums)


def _weighted_product_jvp(argnums, gs, ans, args, kwargs):
    x, y = args
    scale = kwargs.get("scale", 1.0)
    parts = {0: lambda g: g * y**2 * scale, 1: lambda g: g * 2 * x * y * scale}
    return sum(parts[argnum](g) for argnum, g in zip(argnums, gs, strict=True))


def _make_weighted_product(primitive_of, vjps_of, jvps_of):
    @primitive_of
    def weighted_product(x, y, scale=1.0):
        return x * y**2 * scale

    vjps_of(weighted_product, _weighted_product_vjps)
    jvps_of(weighted_product, _weighted_product_jvp)
    return weighted_product


def test_joint_rule_forms_give_both_modes_to_second_order(rng) -> None:
    ours = _make_weighted_product(primitive, defvjp_argnums, defjvp_argnums)
    theirs = _make_weighted_product(ag_extend.primitive, ag_extend.defvjp_argnums, ag_extend.defjvp_argnums)
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    for argnum in (0, 1):
        gradient = ad_core.grad(lambda x, y: anp.sum(ours(x, y, scale=1.5)), argnum)(x, y)
        expected = autograd.grad(lambda x, y: agnp.sum(theirs(x, y, scale=1.5)), argnum)(x, y)
        assert gradient.shape == (3,)
        np.testing.assert_allclose(gradient, expected, rtol=1e-13)
    check_grads(lambda x, y: anp.sum(ours(x, y, scale=1.5) * x), modes=("fwd", "rev"), order=2)(x, y)
