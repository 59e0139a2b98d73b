"""The built chapter "The Jacobian of broadcasting" shows what the engine and NumPy compute.

Expected values are computed here, independently of the snippets where possible (NumPy formulas,
HIPS/autograd 1.9.1 as a second engine), and formatted with the same `bookkit` functions the
snippets use. Inputs (sizes, seeded data) are read from the snippet modules, never pasted.

The page's sentences about PyTorch 2.13 are demonstrated at the end of this file with the real
library: where its broadcast reduction lives, what a custom `torch.autograd.Function` gets, which
shape slips raise, and what `torch.distributed.all_reduce` does by default.
"""

from __future__ import annotations

import re
from pathlib import Path

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import jacobian
from bookkit import fmt_array, fmt_shape, latex_matrix, load_snippet_module
from bookkit.testing import assert_table_row

FOLDER = "snippets/broadcasting_jacobian/"


def snippet(name: str):
    return load_snippet_module(FOLDER + name)


def test_both_kronecker_matrices_are_shown_and_the_engine_uses_row_major(text: str) -> None:
    module = snippet("broadcast_jacobian_matrix.py")
    m, n = module.m, module.n
    column_major = np.zeros((m * n, n))
    row_major = np.zeros((m * n, n))
    for i in range(m):
        for j in range(n):
            column_major[j * m + i, j] = 1.0  # vec stacks columns: Y[i, j] sits at j*m + i
            row_major[i * n + j, j] = 1.0  # vec stacks rows: Y[i, j] sits at i*n + j
    assert latex_matrix(column_major) in text
    assert latex_matrix(row_major) in text
    engine = jacobian(lambda b: anp.zeros((m, n)) + b)(np.ones(n)).reshape(m * n, n)
    reference = autograd.jacobian(lambda b: agnp.zeros((m, n)) + b)(np.ones(n)).reshape(m * n, n)
    np.testing.assert_array_equal(engine, row_major)
    np.testing.assert_array_equal(reference, row_major)
    assert f"returns an array of shape {fmt_shape((m, n, n))}" in text


def test_sum_rule_table_shows_the_column_sums(text: str) -> None:
    module = snippet("broadcast_sum_rule.py")
    cotangent = module.cotangent
    column_sums = np.array([sum(cotangent[:, j]) for j in range(cotangent.shape[1])])
    shown = latex_matrix(column_sums, vector="row")
    assert text.count(shown) >= 4, "all four routes should show the column sums"
    vjp_function, _ = autograd.make_vjp(lambda b: agnp.zeros(cotangent.shape) + b)(
        np.zeros(cotangent.shape[1])
    )
    np.testing.assert_allclose(vjp_function(cotangent), column_sums)


def test_derivations_report_their_checks(text: str) -> None:
    module = snippet("broadcast_differential_derivation.py")
    comparisons = (len(module.differential.lines) - 1 + len(module.gradient.lines) - 1) * 3
    assert f"{comparisons} comparisons passed" in text
    assert r"\bar b &= (I_n \otimes \mathbf{1}_m)^\top \operatorname{vec}(G)" in text


def test_general_rule_table_covers_every_shape(text: str) -> None:
    module = snippet("general_broadcast_rule.py")
    for shape in module.parameter_shapes:
        gradient = autograd.grad(lambda p: agnp.sum(module.upstream * (agnp.zeros(module.output_shape) + p)))(
            np.ones(shape)
        )
        assert np.shape(gradient) == shape
        assert f"| {fmt_shape(shape)} |" in text


def test_sum_vs_mean_table_matches_a_reference(text: str) -> None:
    module = snippet("sum_vs_mean_scale.py")
    bias, small, large = module.bias, module.fresh_small, module.fresh_large

    def norm_of_gradient(scale_of, x):
        residual = x + bias
        return np.linalg.norm(2 * residual.sum(axis=0) * scale_of(x))

    conventions = [lambda x: 1.0, lambda x: 1.0 / x.shape[0], lambda x: 1.0 / x.size]
    for scale_of in conventions:
        small_norm = norm_of_gradient(scale_of, small)
        large_norm = norm_of_gradient(scale_of, large)
        assert f"| {small_norm:.4f} | {large_norm:.4f} | {large_norm / small_norm:.3f} |" in text
    copies = large.shape[0] // small.shape[0]
    assert re.search(rf"\| {copies:.3f}\s*(\||$)", text, re.MULTILINE)  # sum loss, repeated data
    assert f"divide the learning rate by {copies}" in text


def test_pitfalls_show_what_numpy_does(text: str) -> None:
    assert_table_row(
        text,
        "(1, n) bias, np.allclose(hand, engine)",
        "(3,) vs (1, 3)",
        "True: the comparison broadcasts and misses the bug",
    )
    assert "AssertionError: shape (3,) differs from expected (1, 3)" in text
    module = snippet("pitfall_forgotten_keepdims.py")
    m = module.m
    assert f"silently becomes {fmt_shape((m, m))}" in text
    with pytest.raises(ValueError) as error:
        column = np.zeros((m, 1))
        column -= np.ones(m)
    assert f"ValueError: {error.value}" in text

    rebroadcast = snippet("pitfall_silent_rebroadcast.py")
    assert f"b is now {fmt_shape(rebroadcast.upstream.shape)}" in text


def test_double_reduction_is_off_by_the_world_size(text: str) -> None:
    module = snippet("pitfall_double_reduction.py")
    world = module.world_size
    inputs, targets, bias = module.global_inputs, module.global_targets, module.bias
    reference_mean = 2 * (inputs + bias - targets).sum(axis=0) / inputs.shape[0]
    shards = zip(np.split(inputs, world), np.split(targets, world), strict=True)
    local = [2 * (x + bias - t).sum(axis=0) / x.shape[0] for x, t in shards]
    summed = np.sum(local, axis=0)
    np.testing.assert_allclose(summed, world * reference_mean, rtol=1e-12)
    assert_table_row(
        text,
        "mean over the local batch",
        "all-reduce sum",
        fmt_array(summed),
        fmt_array(reference_mean),
        f"{world:g} times too large",
    )
    assert_table_row(
        text,
        "mean over the local batch",
        "all-reduce mean",
        fmt_array(summed / world),
        fmt_array(reference_mean),
        "matches one process",
    )


def test_two_sided_broadcast_table(text: str) -> None:
    module = snippet("two_sided_broadcasting.py")
    m, n = module.m, module.n
    assert m != n, "distinct sizes keep the two reductions apart"
    w = module.weights
    grad_b = autograd.grad(lambda b: agnp.sum(w * (module.x + b + module.column_bias)))(module.row_bias)
    grad_r = autograd.grad(lambda r: agnp.sum(w * (module.x + module.row_bias + r)))(module.column_bias)
    np.testing.assert_allclose(grad_b, w.sum(axis=0))
    np.testing.assert_allclose(grad_r, w.sum(axis=1, keepdims=True))
    assert_table_row(text, r"\(b\)", fmt_shape((n,)), "[0]", "none", "no", fmt_shape(grad_b.shape))
    assert_table_row(text, r"\(r\)", fmt_shape((m, 1)), "none", "[1]", "yes", fmt_shape(grad_r.shape))


def test_attention_mask_and_rope_rows(text: str) -> None:
    module = snippet("attention_mask_and_rope.py")
    mask_gradient = autograd.grad(lambda mask: agnp.sum(module.scores_upstream * (module.scores + mask)))(
        module.mask
    )
    cos_gradient = autograd.grad(lambda cos: agnp.sum(module.rope_upstream * (module.activations * cos)))(
        module.cos_table
    )
    np.testing.assert_allclose(module.mask_gradient, mask_gradient, rtol=1e-12)
    np.testing.assert_allclose(module.cos_gradient, cos_gradient, rtol=1e-12)
    assert_table_row(
        text,
        "mask add",
        "mask",
        fmt_shape(module.mask.shape),
        "(0, 1)",
        "yes",
        fmt_shape(mask_gradient.shape),
    )
    assert_table_row(
        text,
        "RoPE multiply",
        "cos",
        fmt_shape(module.cos_table.shape),
        "(0,)",
        "yes",
        fmt_shape(cos_gradient.shape),
    )


# --- PyTorch 2.13, as the page describes it ------------------------------------------------------

torch = pytest.importorskip("torch")


def _custom_add(bias_gradient):
    """A custom `torch.autograd.Function` computing `x + b` whose backward returns, for `b`,
    whatever `bias_gradient(g)` makes of the upstream gradient."""

    class CustomAdd(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, b):
            return x + b

        @staticmethod
        def backward(ctx, g):
            return g, bias_gradient(g)

    return CustomAdd


def test_pytorch_is_2_13() -> None:
    assert torch.__version__.split("+")[0].startswith("2.13"), "the page names PyTorch 2.13"


def test_pytorch_reduces_in_the_engine_not_in_the_operator() -> None:
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, dtype=torch.float64, requires_grad=True)
    for y, name in [(x + b, "AddBackward0"), (x * b, "MulBackward0")]:
        assert type(y.grad_fn).__name__ == name
        # Called directly, the operator's backward hands b an unreduced (4, 3) gradient ...
        _, for_b = y.grad_fn(torch.ones(4, 3, dtype=torch.float64))
        assert tuple(for_b.shape) == (4, 3)
    # ... and the engine delivers the reduced (3,) one.
    (grad_b,) = torch.autograd.grad((x * b).sum(), b)
    assert tuple(grad_b.shape) == (3,)
    torch.testing.assert_close(grad_b, x.detach().sum(dim=0))


@pytest.mark.parametrize("bias_shape", [(3,), (1, 3)])
def test_pytorch_custom_function_gets_the_reduction(bias_shape) -> None:
    """The page: a custom Function's backward may return the unreduced (m, n) gradient."""
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(*bias_shape, dtype=torch.float64, requires_grad=True)
    weights = torch.randn(4, 3, dtype=torch.float64)
    (_custom_add(lambda g: g).apply(x, b) * weights).sum().backward()
    assert tuple(b.grad.shape) == bias_shape
    torch.testing.assert_close(b.grad, weights.sum(dim=0).reshape(bias_shape))


def test_pytorch_raises_on_a_gradient_the_input_cannot_expand_to() -> None:
    """The page: an (n,) gradient for a (1, n) input raises in validate_outputs."""
    x = torch.randn(4, 3, requires_grad=True)
    row = torch.randn(1, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"returned an invalid gradient at index 1"):
        _custom_add(lambda g: g.sum(dim=0)).apply(x, row).sum().backward()
    assert row.grad is None, "raised before anything was accumulated"
    parameter = torch.nn.Parameter(torch.zeros(1, 3))
    with pytest.raises(RuntimeError, match="assign a gradient of size"):
        parameter.grad = torch.ones(3)


def test_pytorch_all_reduce_sums_unless_told_otherwise(tmp_path) -> None:
    """The page: torch.distributed.all_reduce sums by default; ReduceOp.AVG exists."""
    import inspect

    import torch.distributed as dist
    import torch.multiprocessing as mp

    assert inspect.signature(dist.all_reduce).parameters["op"].default == dist.ReduceOp.SUM
    assert hasattr(dist.ReduceOp, "AVG")
    results = tmp_path / "results"
    results.mkdir()
    mp.spawn(_all_reduce_rank, args=(2, str(tmp_path)), nprocs=2, join=True)
    reduced = [float((results / f"{rank}.txt").read_text()) for rank in range(2)]
    assert reduced == [1.0 + 2.0, 1.0 + 2.0], "every rank holds the sum of the ranks' values"


def _all_reduce_rank(rank: int, world_size: int, folder: str) -> None:
    import torch.distributed as dist

    dist.init_process_group(
        "gloo", init_method=f"file://{folder}/rendezvous", rank=rank, world_size=world_size
    )
    value = torch.tensor([float(rank + 1)])
    dist.all_reduce(value)  # the default op
    (Path(folder) / "results" / f"{rank}.txt").write_text(repr(value.item()))
    dist.destroy_process_group()


def test_binary_rules_reduce_through_unbroadcast() -> None:
    """The page: every binary arithmetic rule reduces with unbroadcast_f, the second arguments of
    subtract and divide with reduce_then."""
    from ad_core.numpy import vjps
    from bookkit.source import rule_registrations

    names = ["anp.add", "anp.subtract", "anp.multiply", "anp.true_divide", "anp.power"]
    for rule in rule_registrations(vjps, names):
        per_argument = rule.text.split("lambda ans")[1:]
        assert len(per_argument) == 2, rule.text
        for argnum, body in enumerate(per_argument):
            second_of_inverse = argnum == 1 and rule.primitive in ("anp.subtract", "anp.true_divide")
            assert ("reduce_then(" if second_of_inverse else "unbroadcast_f(") in body, (rule.primitive, body)


def test_part_three_model_stores_batchnorm_parameters_as_rows() -> None:
    """The page: the batch-norm gain and bias of Part III's model are (1, n) rows."""
    from bookkit import load_snippet_module

    worked_example = load_snippet_module("snippets/network_by_hand/_worked_example.py").worked_example

    params = worked_example().params
    for name in ("bngain", "bnbias"):
        assert params[name].ndim == 2 and params[name].shape[0] == 1, name


def test_mixing_conventions_scales_the_step_by_the_count_the_mean_divided_by(text: str) -> None:
    """The warning: a sum loss under a learning rate tuned for a mean multiplies the step by what
    the mean divided by, m for (1/m)Σ and m·n for the mean over every entry (the page once said
    "by the batch size" for both). HIPS/autograd 1.9.1 computes the three gradients."""
    module = snippet("sum_vs_mean_scale.py")
    x, bias = module.fresh_small, module.bias
    m, n = x.shape

    def gradient(scale):
        return autograd.grad(lambda b: agnp.sum((x + b) ** 2) * scale)(bias)

    summed, over_batch, over_entries = gradient(1.0), gradient(1.0 / m), gradient(1.0 / (m * n))
    np.testing.assert_allclose(summed, m * over_batch, rtol=1e-12)
    np.testing.assert_allclose(summed, m * n * over_entries, rtol=1e-12)
    assert not np.allclose(summed, m * over_entries)
    assert "multiplies the step by the count the mean divided by" in " ".join(text.split())
