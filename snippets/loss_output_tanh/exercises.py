"""Self-test for "Loss, output layer and tanh, by hand": every worked answer is computed here."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from bookkit import (
    central_differences,
    checked,
    collapsible,
    fmt_array,
    given,
    load_snippet_module,
    md_table,
    observed,
    text,
)
from bookkit.gradient_comparison import compare

model = load_snippet_module("snippets/network_by_hand/_model.py")
by_hand = load_snippet_module("snippets/network_by_hand/_backward.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
ALPHABET, LOSS_TO_HPREACT = model.ALPHABET, model.LOSS_TO_HPREACT
backward_loss_to_hpreact = by_hand.backward_loss_to_hpreact
cross_entropy_backward_fused = by_hand.cross_entropy_backward_fused
predicted_bit_equal, worked_example = worked.predicted_bit_equal, worked.worked_example

LECTURE = "Karpathy's lecture"
# A title with a number in it, printed as the given name of the source.
LECTURE_LINK = text(
    "From Andrej Karpathy's [{title}](https://www.youtube.com/watch?v=q8SA3rM6ckI). ",
    title=given("Building makemore Part 4: Becoming a Backprop Ninja"),
)
EPS = np.finfo(float).eps
example = worked_example()
V = example.cache["logits"].shape[1]


def title(number: int, words: str, **fields) -> str:
    return text("Exercise {k}. " + words, k=given(number), **fields)


# 1. The atomic backward pass from logprobs to hpreact.
comparisons = [compare(n, example.hand[n], example.engine[n]) for n in LOSS_TO_HPREACT]
agree = example.central_differences_agree(LOSS_TO_HPREACT)
assert all(c.approximate for c in comparisons)
used_twice = ["counts", "logits"]
print(collapsible(
    title(1, "Write the gradient of every tensor from `logprobs` back to `hpreact` in atomic "
             "steps, without the fused softmax formula (the first half of exercise {lec} of "
             + LECTURE + ").",
          lec=given(1)),
    text(
        "{source}Draw the forward graph first and mark every tensor that is used twice: {twice} (the "
        "graph above shows both). Then go backwards one line at a time and give each `d<name>` "
        "the shape of `<name>`. The book's answer is the listing in [the backward pass, step by "
        "step](loss-output-tanh.md#the-backward-pass-step-by-step). Checked against `ad_core`, "
        "its {n} gradients all pass the shape check and the closeness test (and central "
        "differences confirm each one); at $B = {B}$ all {exact} are also bit-equal, which "
        "[the comparison section]"
        "(loss-output-tanh.md#exact-equality-and-closeness-are-different-claims) shows is "
        "a property of that batch size, not of the code.",
        source=LECTURE_LINK,
        twice=" and ".join(f"`{n}`" for n in used_twice),
        n=checked(len(comparisons), against=sum(agree.values())),
        B=given(example.batch_size),
        exact=checked(sum(c.exact for c in comparisons),
                      against=sum(predicted_bit_equal(n, example.batch_size) for n in LOSS_TO_HPREACT)),
    ),
))
print()

# 2. The fused gradient and its zero row sums.
fused = cross_entropy_backward_fused(example.cache["logits"], example.Yb)
row_sums = np.abs(fused.sum(axis=1))
print(collapsible(
    title(2, "Derive $\\partial L / \\partial Z$ by index calculus and explain why every row of "
             "the result sums to zero (exercise {lec} of " + LECTURE + ").", lec=given(2)),
    text(
        "{source}The derivation is [above](loss-output-tanh.md#the-three-line-gradient). Each row is "
        "$(P_{{b,:}} - \\mathbf{{1}}_{{y_b}})/B$. Summing over $j$: $\\sum_j P_{{bj}} = 1$ because "
        "a row of probabilities sums to one, and $\\sum_j \\mathbf{{1}}[j = y_b] = 1$ because "
        "exactly one class is correct, so the row sums to $(1 - 1)/B = 0$. The same fact follows "
        "from invariance: adding a constant to a row of logits leaves the softmax unchanged, so "
        "the directional derivative along $(1, 1, \\dots, 1)$ is zero. On the chapter's minibatch "
        "the largest absolute row sum is {largest}, rounding noise for {V} terms.",
        source=LECTURE_LINK,
        largest=checked(float(row_sums.max()), against=0.0, atol=V * EPS * float(np.max(np.abs(fused))),
                        shown_as=lambda v: f"{v:.1e}"),
        V=checked(V, against=len(ALPHABET)),
    ),
))
print()

# 3. The counterexample.
broken = backward_loss_to_hpreact(example.params, example.cache, example.Yb, "drop")
first_failing = next(
    n for n in LOSS_TO_HPREACT if not compare(n, broken[n], example.engine[n]).approximate
)
still_right = LOSS_TO_HPREACT[: LOSS_TO_HPREACT.index(first_failing)]
print(collapsible(
    title(3, "Delete the line `dcounts += ...`. Which comparison fails first?"),
    text(
        "`d{first}`. The gradients before it ({right}) are computed before the deleted line and "
        "stay correct; every gradient after it inherits the error. Comparing tensor by tensor, "
        "from the loss towards the input, points at the first wrong line instead of leaving you "
        "to search the whole network.",
        first=checked(first_failing, against="counts"),     # where the two paths meet
        right=", ".join(f"`d{n}`" for n in still_right),
    ),
))
print()

# 4. Shape (32, 1) versus (32,).
dcounts_sum = example.hand["counts_sum"]
flat = dcounts_sum[:, 0]
try:
    np.ones_like(example.cache["counts"]) * flat
except ValueError as error:
    message = f"ValueError: {str(error).splitlines()[0]}"
else:
    raise AssertionError("broadcasting (32,) against (32, 27) should fail")
# With as many examples as classes, the same line runs and puts example i's value in column i.
square = np.random.default_rng(4).standard_normal(V)
silently = np.ones((V, V)) * square
assert np.array_equal(silently[0], square) and not np.allclose(silently[:, 0], square)
print(collapsible(
    text("Exercise {k}. `dcounts_sum` has shape {shape}. What goes wrong if you keep it as {flat}?",
         k=given(4), shape=checked(dcounts_sum.shape, against=example.cache["counts_sum"].shape),
         flat=checked(flat.shape, against=(example.batch_size,))),
    text(
        "NumPy aligns shapes from the right, so {flat} is matched against the class axis of "
        "{counts}, not the batch axis. Here the sizes differ and NumPy refuses:\n\n",
        flat=checked(flat.shape, against=(example.batch_size,)),
        counts=checked(example.cache["counts"].shape, against=(example.batch_size, V)),
    )
    + observed(message)
    + text(
        "\nWith a batch of {V} examples (as many as classes) the same line runs and adds each "
        "*example's* value to a *class* column (checked on a random {shape} case): a wrong "
        "gradient with the right shape. Keep reduced axes with `keepdims=True`.",
        V=checked(V, against=len(ALPHABET)),
        shape=checked(silently.shape, against=(V, V)),
    ),
))
print()

# 5. Ties in the maximum.
tied = np.array([[1.0, 1.0, -0.5], [0.3, -0.2, 0.1]])
y = np.array([2, 0])


def atomic_loss(Z):
    N = Z - anp.max(Z, axis=1, keepdims=True)
    Q = anp.exp(N)
    return -anp.mean(anp.log(Q * anp.sum(Q, axis=1, keepdims=True) ** -1)[np.arange(2), y])


engine = grad(atomic_loss)(tied)
fused_tied = cross_entropy_backward_fused(tied, y)
# The hand-written chain needs only the loss-side intermediates; h and W2 are placeholders.
counts = np.exp(tied - tied.max(axis=1, keepdims=True))
tiny_cache = {"logits": tied, "h": np.zeros((2, 1)), "counts": counts,
              "counts_sum": counts.sum(axis=1, keepdims=True)}
tiny_cache["counts_sum_inv"] = tiny_cache["counts_sum"] ** -1
tiny_cache["probs"] = counts * tiny_cache["counts_sum_inv"]
hand = backward_loss_to_hpreact({"W2": np.zeros((1, 3))}, tiny_cache, y)["logits"]
assert np.allclose(engine, hand, rtol=1e-12, atol=1e-15)


# A loss that reads the maximum itself, the penalty Σ_b m_b, at the same tie.
def max_penalty(Z):
    return anp.sum(anp.max(Z, axis=1))


split = grad(max_penalty)(tied)[0]  # ad_core's rule: shared equally between the winners
first = np.zeros(tied.shape[1])
first[np.argmax(tied[0])] = 1.0  # the hand-written scatter: all of it to the first winner
by_differences = central_differences(lambda Z: float(max_penalty(Z)), tied)[0]
winners = tied[0] == tied[0].max()
first_winner = next(j for j, value in enumerate(tied[0]) if value == max(tied[0]))
assert not np.allclose(by_differences, first, atol=1e-3)


def as_code(v):
    return f"`{fmt_array(v)}`"


print(collapsible(
    title(5, "The first row of the logits below has two equal maxima. Does the gradient depend on which "
             "one the max path picks?"),
    md_table(["logits", "targets"], [[given(tied), given(y)]])
    + "\n"
    + text(
        "`max` is not differentiable at a tie: the two candidates give different one-sided "
        "derivatives of $m_b$. `ad_core`'s rule for `max` splits the max path's cotangent equally "
        "between the winners; `np.argmax` in the hand-written code gives all of it to the first. "
        "The total `dlogits` is the same either way, because the cotangent arriving at the max, "
        "$-\\sum_j dN_{{bj}}$, is zero up to rounding: the probabilities do not depend on $m_b$, "
        "and that holds for every loss computed from the probabilities. `ad_core` gives {engine}; "
        "the hand-written chain and the fused formula agree with it to `rtol=1e-12`. A loss that "
        "reads the maximum directly (a penalty on $m_b$ or on $N$) gets a gradient that depends on "
        "the choice. For the penalty $\\sum_b m_b$ the tied row's gradient is {split} with "
        "`ad_core`'s equal split and {first} with `argmax`; central differences along each "
        "coordinate give {differences}, the equal split, because a central difference across the "
        "kink averages the two one-sided slopes. So a gradient check at a tie passes or fails "
        "with the tie rule, and neither answer is a derivative: that is why gradient checks use "
        "random inputs without ties.",
        engine=checked(engine, against=fused_tied, rtol=1e-12, atol=1e-15),
        split=checked(split, against=winners / winners.sum(), shown_as=as_code),
        first=checked(first, against=np.eye(tied.shape[1])[first_winner], shown_as=as_code),
        differences=checked(by_differences, against=split, atol=1e-8, shown_as=as_code),
    ),
))
