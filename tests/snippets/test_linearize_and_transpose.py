"""The chapter "Linearize and transpose": the transposer is right, refuses what it cannot do,
and a broken rule of any primitive its table uses fails the page."""

from __future__ import annotations

import contextlib
import io
import runpy
from pathlib import Path

import numpy as np
import pytest
from _mutants import KINDS, in_fresh_process, is_engine_rule

import ad_core.numpy as anp
from ad_core import grad, make_jvp, make_vjp
from bookkit import load_snippet_module
from bookkit.testing import table_rows

FOLDER = Path(__file__).resolve().parents[2] / "snippets" / "linearize_and_transpose"
transposer = load_snippet_module(FOLDER / "_transpose.py")


@pytest.mark.parametrize("fun, shape", [
    (lambda x: anp.sum(x * x, axis=0), (3, 2)),
    (lambda x: anp.transpose(anp.reshape(x, (2, 3)))[1:], (6,)),
    (lambda x: anp.concatenate([x, 2.0 * x]) @ np.arange(12.0).reshape(6, 2), (3,)),
    (lambda x: anp.broadcast_to(anp.expand_dims(x, 0), (4, 3)) - x, (3,)),
])
def test_derived_vjp_satisfies_the_inner_product_identity(fun, shape) -> None:
    rng = np.random.default_rng(1)
    x, v = rng.normal(size=shape), rng.normal(size=shape)
    _, jv = make_jvp(fun)(x)(v)
    u = rng.normal(size=np.shape(jv))
    derived = transposer.derived_vjp(fun, x)(u)
    engine = make_vjp(fun)(x)[0](u)
    assert derived.shape == engine.shape == shape
    np.testing.assert_allclose(derived, engine, rtol=1e-12, atol=1e-14)
    assert np.vdot(derived, v) == pytest.approx(np.vdot(u, jv), rel=1e-12)


def test_derived_gradient_of_a_nonlinear_function_matches_grad() -> None:
    def f(x):
        return anp.sum(anp.exp(anp.sin(x)) / (1.0 + x * x))

    x = np.random.default_rng(2).normal(size=(4,))
    derived = transposer.derived_vjp(f, x)(1.0)
    expected = grad(f)(x)
    assert derived.shape == expected.shape
    np.testing.assert_allclose(derived, expected, rtol=1e-12)


def test_primitive_without_transpose_rule_is_named() -> None:
    with pytest.raises(NotImplementedError, match="no transpose rule for roll"):
        transposer.derived_vjp(lambda x: anp.roll(x, 1), np.ones(3))(np.ones(3))


def test_constant_function_cannot_be_linearized() -> None:
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="does not depend on its input"):
        transposer.linearize(lambda x: np.ones(2), np.ones(2))


def test_page_checks_every_linear_primitive(text: str) -> None:
    rows = [row for row in table_rows(text) if len(row) == 6 and row[0] != "call"]
    programs = " ".join(row[2] for row in rows)
    for name in ("negative", "multiply", "divide", "sum", "reshape", "transpose", "broadcast_to",
                 "expand_dims", "repeat", "dot", "matmul", "array_getitem", "concatenate_args"):
        assert name in programs, name
    assert all(row[4] == "0" for row in rows), rows


def test_every_engine_rule_the_page_calls_is_guarded() -> None:
    """Break each JVP and VJP rule the page's snippets call, four ways each: some snippet of the
    page must raise for every mutant that changes an output."""
    snippets = [f"snippets/linearize_and_transpose/{path.name}" for path in sorted(FOLDER.glob("[a-z]*.py"))]
    # Each in an interpreter of its own, whose children fork cheaply (`in_fresh_process`).
    control = in_fresh_process("control_run", snippets)
    users: dict[tuple, list[str]] = {}
    for snippet in snippets:
        assert control[snippet]["error"] is None, (snippet, control[snippet]["error"])
        for rule in map(tuple, control[snippet]["called"]):
            if is_engine_rule(rule):
                users.setdefault(rule, []).append(snippet)
    assert {rule[1] for rule in users} == {"JVP", "VJP"}
    table = "snippets/linearize_and_transpose/linear_rules_transposed.py"
    assert any(table in users_of for users_of in users.values())
    mutants = [(*rule, kind) for rule in sorted(users) for kind in KINDS]
    outcomes = in_fresh_process("mutate_rules", mutants, users, control)
    survivors = [mutant for mutant, outcome in outcomes.items() if outcome.status not in
                 ("caught", "not applicable")]
    caught = sum(outcome.status == "caught" for outcome in outcomes.values())
    assert caught >= len(users), (caught, len(users))
    assert not survivors, survivors


PAGE_SNIPPETS = ("linear_rules_transposed.py", "end_to_end.py", "exercises.py")


def _page_fails_with(primitive, broken_rule) -> bool:
    """Run the page's snippets with one transpose rule replaced; True if one of them raises."""
    original = transposer.TRANSPOSE_RULES[primitive]
    transposer.TRANSPOSE_RULES[primitive] = broken_rule
    try:
        for snippet in PAGE_SNIPPETS:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    runpy.run_path(str(FOLDER / snippet))
            except Exception:  # any failure of the page is what this test wants to see
                return True
        return False
    finally:
        transposer.TRANSPOSE_RULES[primitive] = original


@pytest.mark.parametrize("primitive", list(transposer.TRANSPOSE_RULES), ids=lambda p: p.__name__)
@pytest.mark.parametrize("kind, change", [("sign", lambda ct: -ct), ("factor", lambda ct: 2.0 * ct)])
def test_a_wrong_transpose_rule_fails_the_page(primitive, kind, change) -> None:
    """Every transpose rule the chapter writes is used by its page, and a sign or factor error in
    any one of them makes a page snippet raise (the right rules leave them passing: the snippet
    tests run them unchanged)."""
    rule = transposer.TRANSPOSE_RULES[primitive]
    calls = []

    def broken(ct, argnum, args, kwargs, in_shape):
        calls.append(argnum)
        return change(rule(ct, argnum, args, kwargs, in_shape))

    assert _page_fails_with(primitive, broken), (primitive.__name__, kind)
    assert calls, f"the page never calls the transpose rule of {primitive.__name__}"


def test_jax_linearize_and_linear_transpose_agree_with_the_transposed_program() -> None:
    """JAX 0.10.2 on the page's end-to-end function: `jax.linearize` returns a linear function
    whose jaxpr holds no `tanh` and no `sin`, and `jax.linear_transpose` of it gives the gradient
    that the chapter's transposer derives from the engine's JVP rules."""
    jax = pytest.importorskip("jax")
    assert jax.__version__ == "0.10.2"
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    page = load_snippet_module(FOLDER / "end_to_end.py")

    def f_jax(x):
        return jnp.sum(jnp.tanh(jnp.dot(page.A, x)) * jnp.sin(x[:2]))

    value, f_jvp = jax.linearize(f_jax, page.x)
    assert float(value) == pytest.approx(float(page.value), rel=1e-12)
    primitives = {eqn.primitive.name for eqn in jax.make_jaxpr(f_jvp)(page.x).jaxpr.eqns}
    assert primitives == {"dot_general", "slice", "mul", "add", "add_any", "reduce_sum"}, primitives
    (jax_gradient,) = jax.linear_transpose(f_jvp, page.x)(1.0)
    derived = page.transposer.derived_vjp(page.f, page.x)(1.0)
    assert np.shape(jax_gradient) == derived.shape == page.x.shape
    np.testing.assert_allclose(np.asarray(jax_gradient), derived, rtol=1e-12)


def test_the_identity_cannot_catch_a_broken_jvp_rule_but_the_engine_comparison_does() -> None:
    """Both sides of <J^T u, v> = <u, J v> come from the engine's JVP rules, so a JVP rule
    broken by a factor of two leaves the identity holding; the comparison with the hand-written
    VJP rule is what fails."""
    rng = np.random.default_rng(3)
    x, v, u = rng.normal(size=(3, 4))
    saved_rules = dict(anp.negative.jvps)  # the engine caches a bound rule here once used
    anp.negative.jvps[0] = lambda g, ans, x: 2.0 * anp.negative(g)  # the right rule is negative(g)
    try:
        derived = transposer.derived_vjp(anp.negative, x)(u)
        _, jv = make_jvp(anp.negative)(x)(v)
    finally:
        anp.negative.jvps.clear()
        anp.negative.jvps.update(saved_rules)
    engine = make_vjp(anp.negative)(x)[0](u)
    assert derived.shape == engine.shape == x.shape
    assert np.vdot(derived, v) == pytest.approx(np.vdot(u, jv), rel=1e-12)
    np.testing.assert_allclose(derived, 2.0 * engine, rtol=1e-12)
    assert not np.allclose(derived, engine)
