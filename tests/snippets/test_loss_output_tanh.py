"""The built chapter "Loss, output layer, tanh" shows what the model and the engine compute.

Expected values are recomputed here: the dataset from the `names` package files, reference
gradients with HIPS/autograd 1.9.1 and with float64 central differences, the small examples with
plain NumPy. Nothing is pasted from the page.
"""

from __future__ import annotations

import importlib.resources
import re

import autograd
import autograd.numpy as agnp
import numpy as np
import pytest

from bookkit import fmt_array, load_snippet_module
from bookkit.testing import assert_hand_vs_engine_rows, row_starting_with

model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")


@pytest.fixture(scope="module")
def example() -> worked.WorkedExample:
    return worked.worked_example()


@pytest.fixture(scope="module")
def autograd_gradients(example: worked.WorkedExample) -> dict[str, np.ndarray]:
    """An independent engine's gradient of the loss with respect to every tensor."""
    names = model.LOSS_TO_HPREACT + model.HPREACT_TO_INPUT
    return worked.engine_gradients(example.params, example.Xb, example.Yb, names, autograd.grad, agnp)


def census_names() -> tuple[int, int, int]:
    files = importlib.resources.files("names")
    lists = [
        [line.split()[0].lower() for line in (files / name).read_text().splitlines() if line.strip()]
        for name in ("dist.male.first", "dist.female.first")
    ]
    return len(lists[0]), len(lists[1]), len(set(lists[0]) | set(lists[1]))


def test_page_says_where_the_names_come_from(text: str) -> None:
    male, female, unique = census_names()
    assert "dist.male.first" in text and "dist.female.first" in text
    assert f"({male} names)" in text and f"({female} names)" in text
    assert f"{unique} distinct names" in text


def test_loss_chapter_compares_every_tensor_to_hpreact(text: str, example, autograd_gradients) -> None:
    assert_hand_vs_engine_rows(text, model.LOSS_TO_HPREACT, example.hand, example.engine, autograd_gradients)


def test_hand_gradients_agree_with_central_differences(example) -> None:
    rng = np.random.default_rng(123)
    step = 1e-5
    for _ in range(3):
        direction = {k: rng.standard_normal(example.params[k].shape) for k in model.PARAM_NAMES}

        def loss_at(sign: float, direction=direction) -> float:
            shifted = {k: example.params[k] + sign * step * direction[k] for k in model.PARAM_NAMES}
            return float(model.forward(shifted, example.Xb, example.Yb)["loss"])

        numeric = (loss_at(1.0) - loss_at(-1.0)) / (2 * step)
        analytic = sum(float(np.sum(example.hand[k] * direction[k])) for k in model.PARAM_NAMES)
        assert abs(numeric - analytic) <= 1e-6 * abs(analytic)


def test_dlogits_matches_central_differences_entrywise(example) -> None:
    logits = example.cache["logits"]
    step = 1e-6

    def loss_of_logits(Z: np.ndarray) -> float:
        shifted = Z - Z.max(axis=1, keepdims=True)
        log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return float(-log_probs[np.arange(len(example.Yb)), example.Yb].mean())

    rng = np.random.default_rng(0)
    for index in zip(rng.integers(0, logits.shape[0], 10), rng.integers(0, logits.shape[1], 10), strict=True):
        bump = np.zeros_like(logits)
        bump[index] = step
        numeric = (loss_of_logits(logits + bump) - loss_of_logits(logits - bump)) / (2 * step)
        assert abs(numeric - example.hand["logits"][index]) < 1e-9


def test_counterexample_reports_the_first_failing_tensor(text: str, example, autograd_gradients) -> None:
    broken = by_hand.backward_loss_to_hpreact(example.params, example.cache, example.Yb, "drop")
    failing = [
        name for name in model.LOSS_TO_HPREACT
        if not np.allclose(broken[name], autograd_gradients[name], rtol=1e-9, atol=1e-12)
    ]
    assert failing, "deleting the accumulation must break some gradient"
    assert f"the first comparison to fail is `d{failing[0]}`".replace("`", "") in text.replace("`", "")


def test_seed_examples_are_regenerated(text: str) -> None:
    dY = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert " ".join(f"db = {fmt_array(dY.sum(axis=0))}".split()) in text
    row = np.array([0.2, 0.3, 0.5])
    expected = (row - np.eye(3)[1]) / 2
    assert " ".join(fmt_array(expected).split()) in text
    assert "1.28" in text and str(round((1 - 0.6**2) * 2.0, 12)) in text


def test_stability_table_shows_stable_probabilities_and_losses(text: str) -> None:
    logits = np.array([1000.0, 1001.0, 999.0])
    probs = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    stable_row = row_starting_with(text, "[1000, 1001, 999]")
    assert " ".join(fmt_array(probs, precision=6).split()) in stable_row
    assert f"{-np.log(probs[1]):.6f}" in stable_row
    assert "nan" in stable_row
    tiny_row = row_starting_with(text, "[0, -1000]")
    assert "inf" in tiny_row
    fused = np.logaddexp(0.0, -1000.0) - (-1000.0)
    assert f"loss {fused:.1f}" in tiny_row


def test_dR_matrix_has_minus_one_over_B_at_targets(html: str) -> None:
    assert r"dR = \begin{bmatrix}0 &amp; 0 &amp; -0.5 \\ -0.5 &amp; 0 &amp; 0\end{bmatrix}" in html or (
        r"dR = \begin{bmatrix}0 & 0 & -0.5 \\ -0.5 & 0 & 0\end{bmatrix}" in html
    )


def test_heat_map_and_graph_are_on_the_page(html: str) -> None:
    assert re.search(r"<svg[^>]*>", html), "the dlogits heat map is an inline SVG"
    assert 'class="mermaid"' in html
    assert html.count("<details") >= 5, "five exercises with collapsible answers"


def test_derivation_renders_the_three_line_gradient(text: str) -> None:
    assert r"\frac{1}{B} \big( P_{bj} - \mathbf{1}[j = y_b] \big)" in text
    assert "12 comparisons" in text


def test_bit_equality_comes_from_a_power_of_two_not_from_equal_operations(text: str) -> None:
    """The hand-written log step and ad_core's rule are different operations; they give the same
    bits at B = 32 only because -1/32 is a power of two. The page must not say otherwise."""
    p = np.random.default_rng(0).uniform(1e-3, 1.0, 10_000)
    for batch, same in ((32, True), (16, True), (30, False), (27, False)):
        d = -1.0 / batch
        assert np.array_equal((1.0 / p) * d, d / p) is same, batch
    assert "same floating-point operations, in the same order" not in text
    assert "does not mean the same operations" in text
    # The table's second column of bits, recomputed: at B = 30 only dlogprobs stays bit-equal.
    other = worked.worked_example(batch_size=30)
    for name in model.LOSS_TO_HPREACT:
        cells = row_starting_with(text, f"d{name}").split(" | ")
        assert cells[5].strip() == ("yes" if np.array_equal(other.hand[name], other.engine[name]) else "no")
    bit_equal = [n for n in model.LOSS_TO_HPREACT if np.array_equal(other.hand[n], other.engine[n])]
    assert bit_equal == ["logprobs"]
    # Written as the rule writes it, the log step makes every row bit-equal at B = 30 as well.
    as_rule = worked.worked_example(batch_size=30, log_step="divide")
    names = model.LOSS_TO_HPREACT + model.HPREACT_TO_INPUT
    assert all(np.array_equal(as_rule.hand[n], as_rule.engine[n]) for n in names)


def test_max_path_is_zero_for_any_loss_of_the_probabilities(text: str, example) -> None:
    """HIPS/autograd 1.9.1, as an independent engine: the gradient with respect to the row maxima
    is rounding noise for a second loss of the probabilities, and real for a loss that reads the
    shifted logits."""
    logits, maxes, Yb = example.cache["logits"], example.cache["logit_maxes"], example.Yb
    B, V = logits.shape

    def probs(m):
        counts = agnp.exp(logits - m)
        return counts / agnp.sum(counts, axis=1, keepdims=True)

    def brier(m):
        return agnp.sum((probs(m) - np.eye(V)[Yb]) ** 2) / B

    def penalised(m):
        return -agnp.mean(agnp.log(probs(m))[np.arange(B), Yb]) + agnp.mean((logits - m) ** 2)

    assert np.max(np.abs(autograd.grad(brier)(maxes))) < 1e-15
    assert np.max(np.abs(autograd.grad(penalised)(maxes))) > 1e-3
    assert "property of this loss" not in text
    assert "shift invariance" in text


def test_cosines_of_the_broken_gradients_match_an_independent_engine(
    text: str, example, autograd_gradients
) -> None:
    right = np.concatenate([autograd_gradients[n].ravel() for n in model.PARAM_NAMES])
    for variant, label in (("drop", "with the line deleted"), ("=", "with `=` for `+=`")):
        upper = by_hand.backward_loss_to_hpreact(example.params, example.cache, example.Yb, variant)
        lower = by_hand.backward_hpreact_to_input(example.params, example.cache, example.Xb, upper["hpreact"])
        wrong = np.concatenate([{**upper, **lower}[n].ravel() for n in model.PARAM_NAMES])
        cosine = right @ wrong / (np.linalg.norm(right) * np.linalg.norm(wrong))
        sentence = f"The parameter gradient {label} has cosine similarity {cosine:.3f}"
        assert sentence.replace("`", "") in text.replace("`", ""), sentence


def test_sources_are_named(text: str) -> None:
    assert "Karpathy" in text and "Becoming a Backprop Ninja" in text
    assert "seed's" not in text and "the course's" not in text


def test_central_differences_at_a_tie_match_the_equal_split(text: str) -> None:
    """Exercise 5: at a tie, central differences along each coordinate average the two one-sided
    slopes, so they match the equal split (ad_core's and HIPS/autograd 1.9.1's rule for `max`),
    not the `argmax` scatter. The page once said they would match neither."""
    tied = np.array([[1.0, 1.0, -0.5], [0.3, -0.2, 0.1]])
    step = 1e-6

    def penalty(Z):
        return float(np.sum(np.max(Z, axis=1)))

    differences = np.zeros_like(tied)
    for index in np.ndindex(tied.shape):
        bump = np.zeros_like(tied)
        bump[index] = step
        differences[index] = (penalty(tied + bump) - penalty(tied - bump)) / (2 * step)
    equal_split = autograd.grad(lambda Z: agnp.sum(agnp.max(Z, axis=1)))(tied)
    np.testing.assert_allclose(differences, equal_split, atol=1e-8)
    np.testing.assert_allclose(equal_split[0], [0.5, 0.5, 0.0])
    assert "would match neither" not in text
    assert f"give {fmt_array(differences[0])}, the equal split" in text
