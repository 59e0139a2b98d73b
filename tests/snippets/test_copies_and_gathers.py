"""The built chapter "Copies and gathers" shows what the engine and NumPy compute.

Expected values are computed here with NumPy and HIPS/autograd 1.9.1 (a second engine), from the
inputs the snippet modules define, and formatted with the snippets' own `bookkit` functions.
"""

from __future__ import annotations

import re

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

from bookkit import fmt_array, fmt_shape, latex_matrix, load_snippet_module
from bookkit.testing import assert_table_row

FOLDER = "snippets/copies_and_gathers/"


def snippet(name: str):
    return load_snippet_module(FOLDER + name)


def test_copy_tensor_of_the_broadcast_is_shown(text: str) -> None:
    module = snippet("einsum_copy_tensor.py")
    m, n = module.m, module.n
    expected = np.tile(np.eye(n), (m, 1))  # row (i, j) copies entry j
    assert latex_matrix(expected) in text


def test_copy_counts_of_each_copy(text: str) -> None:
    module = snippet("einsum_copy_tensor.py")
    size, copies, index = module.size, module.copies, module.index
    counts = {
        "np.repeat(a, 2)": np.full(size, copies),
        "np.tile(a, 2)": np.full(size, copies),
        f"a[{index.tolist()}]": np.bincount(index, minlength=size),
    }
    for label, count in counts.items():
        row = re.search(re.escape(label) + r"\s*\|[^\n]*\|\s*\\\((.*?)\\\)\s*\|\s*yes", text)
        assert row, f"no row for {label}"
        assert row.group(1) == latex_matrix(count.astype(float), vector="row")


def test_expand_and_repeat_memory(text: str) -> None:
    module = snippet("expand_vs_repeat.py")
    m, n = module.m, module.n
    item = np.dtype(float).itemsize
    gradient = autograd.grad(lambda b: agnp.sum(module.weights * agnp.tile(b, (m, 1))))(module.bias)
    shown_gradient = fmt_array(gradient)
    assert_table_row(
        text,
        "np.broadcast_to(b, (m, n))",
        fmt_shape((m, n)),
        str((0, item)),
        str(m * n * item),
        "0",
        "no (read-only view)",
        shown_gradient,
    )
    assert_table_row(
        text,
        "np.repeat(b[None], m, axis=0)",
        fmt_shape((m, n)),
        str((n * item, item)),
        str(m * n * item),
        str(m * n * item),
        "yes",
        shown_gradient,
    )


def test_gather_matrix_and_its_transpose(text: str) -> None:
    module = snippet("gather_scatter_adjoint.py")
    index, vocab = module.index, module.vocab
    gather_matrix = np.eye(vocab)[index]
    assert latex_matrix(gather_matrix) in text
    assert latex_matrix(gather_matrix.T) in text
    assert f"here {np.bincount(index, minlength=vocab).tolist()}" in text


def test_embedding_rows_match_a_reference(text: str) -> None:
    module = snippet("embedding_backward_repeats.py")
    tokens, table, upstream = module.tokens, module.embedding, module.upstream
    reference = autograd.grad(lambda t: agnp.sum(t[tokens] * upstream))(table)
    counts = np.bincount(tokens, minlength=table.shape[0])
    for token in range(table.shape[0]):
        last = np.flatnonzero(tokens == token)
        buggy = upstream[last[-1]] if last.size else np.zeros(table.shape[1])
        assert_table_row(
            text,
            str(token),
            str(counts[token]),
            fmt_array(buggy),
            fmt_array(reference[token]),
            fmt_array(reference[token]),
            "yes" if counts[token] <= 1 else "no",
        )
    repeated = [int(t) for t in np.flatnonzero(counts > 1)]
    assert repeated, "the example needs repeated tokens"
    assert f"is wrong on rows {repeated}" in text


def test_engine_walkthrough_lists_untake(text: str) -> None:
    assert "np.add.at(result, index, g)" in text or "_np.add.at(result, index, g)" in text


def test_pytorch_expand_is_a_view_and_repeat_a_copy() -> None:
    """The page: in PyTorch 2.13 `Tensor.expand` returns a view with no copying, `Tensor.repeat`
    copies memory, and both give the same gradient."""
    torch = pytest.importorskip("torch")
    assert torch.__version__.split("+")[0].startswith("2.13")
    module = snippet("expand_vs_repeat.py")
    m, n = module.m, module.n
    weights = torch.tensor(module.weights)

    def gradient_and_copy(make):
        bias = torch.tensor(module.bias, requires_grad=True)
        copy = make(bias)
        (weights * copy).sum().backward()
        return bias, copy

    bias, expanded = gradient_and_copy(lambda b: b.expand(m, n))
    assert expanded.stride() == (0, 1)
    assert expanded.untyped_storage().data_ptr() == bias.untyped_storage().data_ptr()  # same memory
    assert expanded.untyped_storage().nbytes() == n * bias.element_size()
    expand_gradient = bias.grad

    bias, repeated = gradient_and_copy(lambda b: b.repeat(m, 1))
    assert repeated.stride() == (n, 1)
    assert repeated.untyped_storage().data_ptr() != bias.untyped_storage().data_ptr()
    assert repeated.untyped_storage().nbytes() == m * n * bias.element_size()

    torch.testing.assert_close(expand_gradient, bias.grad)
    torch.testing.assert_close(bias.grad, weights.sum(dim=0))
