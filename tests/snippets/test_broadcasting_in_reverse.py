"""The built chapter "Broadcasting in reverse" shows the values the engine computes.

Every expected value here is computed in the test, from `ad_core` and NumPy, and formatted with
the same `bookkit` functions the snippets use; nothing is pasted from the page.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, make_vjp
from ad_core.extend import defvjp, primitive
from ad_core.numpy.vjps import unbroadcast
from ad_core.numpy.wrapper import metadata
from ad_core.recorder import record
from ad_core.test_util import check_grads
from bookkit import fmt_array_inline, fmt_shape, source_location
from bookkit.testing import assert_table_row

SCALAR_X = np.array([1.0, 2.0, 3.0])
MATRIX = np.arange(6.0).reshape(2, 3)
VECTOR_BIAS = np.array([10.0, 20.0, 30.0])


def f(value) -> str:
    return fmt_array_inline(value)


def test_page_has_no_traceback_and_every_block_ran(text: str, html: str) -> None:
    assert "Traceback" not in text
    assert "```" not in text  # every fence was rendered, none printed raw


def _both_routes(data, bias):
    vjp, output = make_vjp(lambda b: data + b)(bias)
    return output, vjp(np.ones_like(output)), grad(lambda b: anp.sum(data + b))(bias)


def test_bias_examples_table(text: str) -> None:
    """One table for both examples: rows pair the scalar-bias cells with the vector-bias cells."""
    (y, scalar_vjp, scalar_grad), (output, vector_vjp, vector_grad) = (
        _both_routes(SCALAR_X, 2.0), _both_routes(MATRIX, VECTOR_BIAS))
    assert np.shape(scalar_grad) == () and scalar_grad == 3.0
    np.testing.assert_array_equal(vector_grad, [2.0, 2.0, 2.0])
    assert_table_row(text, "output x + b", f(y), fmt_shape(y.shape), f(output), fmt_shape(output.shape))
    for label, scalar, vector in [("grad of sum (central differences agree)", scalar_grad, vector_grad),
                                  ("make_vjp, all-ones cotangent", scalar_vjp, vector_vjp)]:
        assert_table_row(text, label, f(scalar), "()", f(vector), "(3,)")
    assert_table_row(text, "x entering unbroadcast (both routes)", f(np.ones(3)), "(3,)",
                     f(np.ones((2, 3))), "(2, 3)")
    assert f"so its gradient is {f(scalar_grad)}" in text


def test_derivation(text: str) -> None:
    assert r"\texttt{unbroadcast}" in text
    assert re.search(r"compared each line with the one before it: \d+ comparisons", text)


def test_copy_map_is_the_broadcast(text: str, html: str) -> None:
    """The fan-out copy map draws an arrow from b[k] to each output position (i, j) that copies
    it: k = j for a (3,) bias on a (2, 3) matrix; and its B is two stacked identities."""
    flat = " ".join(html.split())
    for i, j in np.ndindex(MATRIX.shape):
        assert f"b{j} --&gt; y{i}{j}" in flat or f"b{j} --> y{i}{j}" in flat, (i, j)
        assert f"[{i}, {j}] = {MATRIX[i, j] + VECTOR_BIAS[j]}" in flat
    assert "b0 --&gt; y01" not in flat and "b0 --> y01" not in flat
    jacobian = make_vjp(lambda b: MATRIX + b)(VECTOR_BIAS)[0]
    B = np.stack([jacobian(np.eye(6)[r].reshape(2, 3)) for r in range(6)])
    np.testing.assert_array_equal(B, np.kron(np.ones((2, 1)), np.eye(3)))
    assert f"of shape {fmt_shape(B.shape)}: two identity blocks stacked" in text


def test_reduction_plan_rows(text: str) -> None:
    for data_shape, bias_shape, leading, keepdims in [
        ((2, 3), (1, 3), "none", "0"),
        ((2, 3), (2, 1), "none", "1"),
        ((4, 2, 3), (1, 3), "0", "0"),
    ]:
        data = np.ones(data_shape)
        gradient = grad(lambda b, data=data: anp.sum(data + b))(np.zeros(bias_shape))
        assert_table_row(
            text,
            fmt_shape(bias_shape),
            fmt_shape(data_shape),
            leading,
            keepdims,
            f(gradient),
            fmt_shape(gradient.shape),
        )


def test_metadata_table(text: str) -> None:
    for target in [2.0, VECTOR_BIAS, VECTOR_BIAS.reshape(1, 3)]:
        shape, ndim, dtype, iscomplex = metadata(target)
        assert_table_row(text, fmt_shape(shape), str(ndim), str(dtype), str(iscomplex))


def _stages(bias, data) -> list[tuple[str, str, str]]:
    with record() as recording:
        grad(lambda b: anp.sum(data + b))(bias)
    return [
        (event.detail["stage"], f(event.value), f"{fmt_shape(event.shape)} / {event.ndim}")
        for event in recording.events
        if event.kind == "unbroadcast"
    ]


@pytest.mark.parametrize(
    "bias, data",
    [(2.0, SCALAR_X), (VECTOR_BIAS.reshape(1, 3), MATRIX)],
    ids=["scalar-bias", "row-bias"],
)
def test_state_snapshot_tables(text: str, bias, data) -> None:
    stages = _stages(bias, data)
    assert stages[0][0] == "enter"
    for stage, value, shape_ndim in stages:
        assert_table_row(text, f"unbroadcast {stage} → x", value, shape_ndim)


def test_keepdims_and_wrong_axis_messages_come_from_the_engine(text: str) -> None:
    @primitive
    def add_summing_last_axis(x, b):
        return x + b

    defvjp(add_summing_last_axis, None, lambda ans, x, b: lambda g: anp.sum(g, axis=-1))
    with pytest.raises(ValueError) as caught:
        grad(lambda b: anp.sum(add_summing_last_axis(MATRIX, b)))(VECTOR_BIAS)
    message = str(caught.value)
    assert "(2,)" in message and "(3,)" in message
    # The page shows the same message (its rule has another name, so compare the rest).
    tail = message.split(" for argument ", 1)[1]
    assert tail in " ".join(text.split()), "the engine's shape error is not on the page"

    weights = np.arange(1.0, 10.0).reshape(3, 3)
    square = np.arange(9.0).reshape(3, 3)
    with pytest.raises(AssertionError) as caught_check:
        check_grads(lambda b: anp.sum(weights * add_summing_last_axis(square, b)), modes=("rev",), order=1)(
            VECTOR_BIAS
        )
    # The page's function has another name: compare what follows "check of <name> failed:".
    first_lines = " ".join(str(caught_check.value).splitlines()[:2])
    after_name = first_lines.split(" failed:", 1)[1]
    assert " ".join(after_name.split()) in " ".join(text.split())


def test_complex_to_real(text: str) -> None:
    z = np.array([1 + 2j, 3 - 1j, -0.5 + 0.5j])
    gradient = grad(lambda b: anp.sum(anp.abs(z + b) ** 2))(0.5)
    assert not np.iscomplexobj(gradient)
    dropped = np.sum(2 * np.conj(z + 0.5)).imag  # the imaginary part of the summed cotangent
    assert_table_row(text, "dL/db from the engine", f(gradient))
    assert_table_row(text, "imaginary part dropped by the real stage", f(dropped))
    assert "unbroadcast real → x" in text


def test_fan_out_versus_unbroadcast(text: str) -> None:
    once = grad(lambda b: anp.sum(MATRIX + b))(VECTOR_BIAS)
    twice = grad(lambda b: anp.sum(MATRIX[0] + b) + anp.sum(MATRIX[1] + b))(VECTOR_BIAS)
    assert f(once) == f(twice)
    with record() as recording:
        grad(lambda b: anp.sum(MATRIX[0] + b) + anp.sum(MATRIX[1] + b))(VECTOR_BIAS)
    arrivals = sum(1 for event in recording.events if event.kind == "accumulate" and event.node == 0)
    assert (f"both give {f(once)}: the first with 1 sum inside unbroadcast, the second with "
            f"{arrivals} contributions accumulated into b") in " ".join(text.split())


def test_source_map_and_theory_table_point_at_live_lines(text: str) -> None:
    path, first, last = source_location(unbroadcast)
    en_dash = "\N{EN DASH}"  # bookkit writes line ranges with an en dash
    assert_table_row(text, "unbroadcast", f"{path} lines {first}{en_dash}{last}")
    lines = inspect.getsource(unbroadcast).splitlines()
    keepdims_line = first + next(i for i, line in enumerate(lines) if "keepdims=True" in line)
    assert f"{path}:{keepdims_line}" in text


def test_source_map_counts_every_primitive_whose_rule_calls_unbroadcast_f(text: str) -> None:
    """The page once counted 14 primitives: its scan of `vjps.py` (and the "independent" count,
    on the same source text) skipped the registrations made inside `for` loops, so `maximum`,
    `minimum`, `fmax`, `fmin` and `mod` were missing. Count the live rule tables instead."""
    tables = {id(fun.vjps): fun.__name__ for fun in vars(anp.wrapper).values()
              if isinstance(getattr(fun, "vjps", None), dict)
              and any("unbroadcast_f" in getattr(getattr(m, "__code__", None), "co_names", ())
                      for m in fun.vjps.values())}
    assert {"maximum", "minimum", "fmax", "fmin", "remainder"} <= set(tables.values())
    assert f"The {len(tables)} primitives whose rules call unbroadcast_f" in text
    assert f"the VJP makers of {len(tables)} primitives" in text
    listed = text.split("counted again on the live rule tables):")[1].split(".")[0]
    assert {"maximum", "minimum", "fmax", "fmin", "mod"} <= {name.strip() for name in listed.split(",")}


def test_traced_graph(html: str) -> None:
    assert html.count('class="mermaid"') >= 2  # the traced graph and the copy map
    assert "0 · b" in html


def test_self_test_has_collapsible_worked_answers(html: str) -> None:
    questions = re.findall(r'<details class="question"', html)
    assert len(questions) >= 5


# --- Self-test 2: why the reduction lives in the rules (issue #13) -----------------------------


def test_self_test_two_is_no_straw_man(text: str) -> None:
    """The old answer said `backward_pass` "sees only shapes" and compared the rules with "all a
    generic engine could do with shapes alone" (`G.sum(axis=0)`, without the rule's local
    derivative). `backward_pass` knows each parent's shape; the answer must say so."""
    flat = " ".join(text.split())
    assert "all a generic engine could do" not in flat
    assert "sees only shapes" not in flat
    assert "checks every contribution against parent.shape" in flat
    source = inspect.getsource(__import__("ad_core.core", fromlist=["backward_pass"]).backward_pass)
    assert "!= parent.shape" in source


def test_no_ad_core_rule_passes_its_own_broadcast_idx(text: str) -> None:
    """The old answer said the rules that call `unbroadcast` "pass their own broadcast_idx"; in
    ad_core none does (every call has the cotangent and the metadata only)."""
    import ast

    import ad_core.numpy.vjps as vjps

    tree = ast.parse(inspect.getsource(vjps))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "unbroadcast"
    ]
    assert calls and all(len(call.args) == 2 and not call.keywords for call in calls)
    assert "which pass their own broadcast_idx" not in " ".join(text.split())


def test_autograd_links_point_at_the_lines_named() -> None:
    """HIPS/autograd 1.9.1, installed: the lines the page links are `backward_pass` (core.py
    L25-L32, which adds what rules return and checks no shape), `unbroadcast_einsum`
    (numpy_vjps.py L900-L908, which passes the position of `...` as `broadcast_idx`), and
    `unbroadcast` with `unbroadcast_f` (numpy_vjps.py L883-L897, the functions ad_core follows)."""
    from importlib.metadata import version

    import autograd.core
    import autograd.numpy.numpy_vjps

    assert version("autograd") == "1.9.1"
    core = inspect.getsource(autograd.core).splitlines()[24:32]
    assert core[0].startswith("def backward_pass(") and any("add_outgrads" in line for line in core)
    assert not any("shape" in line for line in core)
    rules = inspect.getsource(autograd.numpy.numpy_vjps).splitlines()[899:908]
    assert rules[0].startswith("def unbroadcast_einsum(")
    assert "unbroadcast(x, target_meta, subscript.index(Ellipsis))" in rules[-1]
    followed = inspect.getsource(autograd.numpy.numpy_vjps).splitlines()[882:897]
    assert followed[0].startswith("def unbroadcast(x, target_meta, broadcast_idx=0):")
    assert followed[-3].startswith("def unbroadcast_f(target, f):")
    assert "return lambda g: unbroadcast(f(g), target_meta)" in followed[-1]


def test_einsum_broadcasts_along_the_middle_axis_in_both_engines() -> None:
    """With `...` in the middle, summing the leading axis (what shapes alone suggest) is wrong;
    ad_core and HIPS/autograd 1.9.1 both return the central-difference VJP."""
    import autograd
    import autograd.numpy as agnp

    from bookkit import central_differences

    rng = np.random.default_rng(3)
    x, y, g = rng.standard_normal((3, 3)), rng.standard_normal((3, 3, 3)), rng.standard_normal((3, 3, 3))
    spec = "i...j,i...j->i...j"
    numeric = central_differences(lambda x: np.sum(g * np.einsum(spec, x, y)), x)
    ours = make_vjp(lambda x: anp.einsum(spec, x, y))(x)[0](g)
    theirs = autograd.make_vjp(lambda x: agnp.einsum(spec, x, y))(x)[0](g)
    np.testing.assert_allclose(ours, numeric, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(theirs, numeric, rtol=1e-7, atol=1e-8)
    assert not np.allclose((g * y).sum(axis=0), numeric, atol=1e-3)  # the shapes-only sum


def test_pytorch_engine_sums_a_gradient_the_input_broadcasts_to(text: str) -> None:
    """The answer says PyTorch 2.13's engine sums a gradient whose shape the input's shape
    broadcasts to, and refuses any other mismatch: a custom Function whose backward returns the
    output's shape (2, 3) for a (3,) bias gets the sum; one that returns a (3,) sum for a (2, 3)
    input, or (3, 1) for (3,), is refused. (The page once had it backwards: "a gradient that can
    be expanded to the input's shape".)"""
    import torch

    assert torch.__version__.startswith("2.13")
    flat = " ".join(text.split())
    assert "sums a gradient whose shape the input's shape broadcasts to, and refuses any other" in flat

    class AddBias(torch.autograd.Function):
        @staticmethod
        def forward(ctx, W, b):
            return W + b

        @staticmethod
        def backward(ctx, g):
            return g, g  # b's gradient left in the output's shape (2, 3)

    W = torch.zeros(2, 3)
    b = torch.zeros(3, requires_grad=True)
    AddBias.apply(W, b).sum().backward()
    assert b.grad.shape == (3,)
    assert torch.equal(b.grad, torch.full((3,), 2.0))

    def returning(reshape):
        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return 2 * x

            @staticmethod
            def backward(ctx, g):
                return reshape(2 * g)

        return Double

    for shape, reshape in [((2, 3), lambda g: g.sum(0)), ((3,), lambda g: g.reshape(3, 1))]:
        x = torch.zeros(shape, requires_grad=True)
        with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
            returning(reshape).apply(x).sum().backward()


def test_the_unbroadcast_shortcut_is_not_taken_for_every_pair_of_equal_shapes(text: str) -> None:
    """The page said the early `return x` happens "whenever both inputs of a binary primitive
    had the same shape". It needs a plain ndarray cotangent: two scalars, or a second-order
    gradient (boxed cotangents), run the stages although nothing was broadcast."""

    def stage_events(f, x):
        with record() as recording:
            f(x)
        return sum(1 for event in recording.events if event.kind == "unbroadcast")

    assert stage_events(grad(lambda b: anp.sum(VECTOR_BIAS * b)), np.ones(3)) == 0
    assert stage_events(grad(lambda a: a * 2.5), 3.0) > 0
    assert stage_events(grad(grad(lambda a: a * a)), 3.0) > 0
    assert "whenever both inputs of a binary primitive had the same shape" not in text
    assert "but not every one" in text


def test_complex_gradient_convention_matches_autograd_and_is_pytorchs_conjugate() -> None:
    """The page's claim: for L = |z|^2, ad_core and HIPS/autograd 1.9.1 return 2 conj(z);
    PyTorch 2.13 returns 2 z (the conjugate Wirtinger derivative, times two)."""
    import autograd
    import autograd.numpy as np_autograd
    import torch

    import ad_core
    import ad_core.numpy as anp

    z = 1.0 + 2.0j
    ours = ad_core.grad(lambda z: anp.abs(z) ** 2)(z)
    theirs = autograd.grad(lambda z: np_autograd.abs(z) ** 2)(z)
    tensor = torch.tensor(z, dtype=torch.complex128, requires_grad=True)
    (tensor.abs() ** 2).backward()
    assert ours == theirs == 2 * z.conjugate()
    assert complex(tensor.grad) == 2 * z


def test_complex_gradient_convention_is_jaxs() -> None:
    """JAX 0.10.2 returns the same 2 conj(z) as ad_core for L = |z|^2 (its `grad` of a real
    function of a complex input is the conjugate of PyTorch's)."""
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    import ad_core
    import ad_core.numpy as anp

    z = 1.0 + 2.0j
    ours = ad_core.grad(lambda z: anp.abs(z) ** 2)(z)
    theirs = complex(jax.grad(lambda z: jnp.abs(z) ** 2)(z))
    assert ours == theirs == 2 * z.conjugate() != 2 * z


def test_check_vjp_pairs_direction_and_cotangent_without_a_conjugate() -> None:
    """The page: `check_vjp`'s inner product conjugates its first argument (the direction) and
    the cotangent goes in conjugated by `covector`, so the pair is Re sum v_i g_i."""
    from ad_core.core import vspace

    rng = np.random.default_rng(3)
    v = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    g = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    space = vspace(v)
    pair = space.inner_prod(v, space.covector(g))
    assert pair == pytest.approx(float(np.sum(v * g).real), rel=1e-12)
    assert pair != pytest.approx(float(np.sum(np.conj(v) * g).real), rel=1e-3)


def test_the_opening_names_the_rules_that_wrap_in_unbroadcast_f(text: str) -> None:
    """The page once said every binary rule of "Writing VJP rules" wraps in `unbroadcast_f`, read
    as true of the engine; `subtract` and `true_divide` reduce their second argument through
    `reduce_then`. Check each rule the opening names."""
    import contextlib
    import io

    import ad_core.numpy.vjps as vjps
    from bookkit import load_snippet_module

    with contextlib.redirect_stdout(io.StringIO()):
        page = load_snippet_module("snippets/vjp_rules/binary_rule_broadcasting.py")

    def names(fun, argnum):
        return fun.vjps[argnum].__code__.co_names

    for fun in (page.my_mul, anp.add, anp.multiply):
        assert all(names(fun, argnum) == ("unbroadcast_f",) for argnum in (0, 1)), fun
    for fun in (anp.subtract, anp.true_divide):
        assert names(fun, 0) == ("unbroadcast_f",) and names(fun, 1) == ("reduce_then",), fun
    reduced = vjps.reduce_then(np.ones(3), lambda g: g, lambda r: -r)  # the closure a rule returns
    assert "unbroadcast" in reduced.__code__.co_names
    # Next: forward mode meets `broadcast` "in binary JVP rules such as add's" (not in every one:
    # multiply is def_linear)
    assert all(jvp.__code__.co_names == ("broadcast_to_output",) for jvp in anp.add.jvps.values())
    flat = " ".join(text.split())
    assert "second rules of subtract and true_divide reach the same unbroadcast through reduce_then" in flat
    assert "in binary JVP rules such as add's" in flat and "in every binary JVP rule" not in flat


def test_the_closure_keeps_the_targets_metadata_and_f_keeps_the_other_operand(text: str) -> None:
    """The walkthrough: of the target, the closure `unbroadcast_f` returns keeps four small values,
    not the array; `f` keeps what it needs (for `multiply`'s first argument, `y`)."""
    x, y = np.ones(1000), np.full(1000, 2.0)
    vjp = anp.multiply.vjps[0](x * y, x, y)
    cells = dict(zip(vjp.__code__.co_freevars, (c.cell_contents for c in vjp.__closure__), strict=True))
    assert set(cells) == {"f", "target_meta"}
    assert len(cells["target_meta"]) == 4 and not any(v is x for v in cells["target_meta"])
    kept_by_f = [c.cell_contents for c in cells["f"].__closure__]
    assert any(v is y for v in kept_by_f) and not any(v is x for v in kept_by_f)
    assert "Of the target it keeps four small values, not the array itself" in " ".join(text.split())
