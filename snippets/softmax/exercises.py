"""Self-test for "Softmax and cross-entropy": every worked answer is computed and checked here."""

from pathlib import Path

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, jacobian, make_vjp
from bookkit import (
    assert_shape_then_close,
    central_differences,
    checked,
    collapsible,
    given,
    load_snippet_module,
    text,
)

helpers = load_snippet_module(Path(__file__).with_name("_softmax.py"))
batch = load_snippet_module(Path(__file__).with_name("_variants.py"))
rng = np.random.default_rng(2026)


def title(number: int, words: str, **fields):
    return text("Exercise {k}. " + words, k=given(number), **fields)


# 1. The softmax Jacobian is singular.
V = 5
z = rng.standard_normal(V)
J = jacobian(helpers.softmax)(z)
rank = int(np.linalg.matrix_rank(J))
null_image = float(np.abs(J @ np.ones(V)).max())
print(collapsible(
    title(1, "Is the softmax Jacobian $\\operatorname{{diag}}(p) - pp^\\top$ invertible? What does "
             "it send $\\mathbf{{1}}$ to?"),
    text(
        "No. $J\\mathbf{{1}} = p - p\\,(p^\\top \\mathbf{{1}}) = p - p = 0$, because the "
        "probabilities sum to one: moving every logit by the same amount does not move $p$. For "
        "a random {V}-class row the engine's `jacobian` has rank {rank} and "
        "$\\lVert J\\mathbf{{1}}\\rVert_\\infty$ = {null}. The same fact makes every row of a "
        "softmax VJP sum to zero: $\\sum_j p_j (g_j - \\langle g, p\\rangle) = 0$.",
        V=given(V),
        rank=checked(rank, against=V - 1),
        null=checked(null_image, against=0.0, atol=4 * np.finfo(float).eps, shown_as=lambda v: f"{v:.1e}"),
    ),
))
print()

# 2. Temperature.
T = 0.5
B2, V2 = 2, 4
logits, upstream = rng.standard_normal((B2, V2)), rng.standard_normal((B2, V2))
vjp, _ = make_vjp(lambda x: helpers.softmax(x / T))(logits)
engine = vjp(upstream)
p = helpers.softmax_np(logits / T)
formula = p * (upstream - np.sum(upstream * p, axis=1, keepdims=True)) / T
assert_shape_then_close(engine, formula, rtol=1e-12, atol=1e-15)
assert_shape_then_close(
    formula, central_differences(lambda x: float(np.sum(upstream * helpers.softmax_np(x / T))), logits),
    rtol=1e-6, atol=1e-8,
)
print(collapsible(
    title(2, "With a temperature, $p = \\operatorname{{softmax}}(z / T)$. What is the VJP with "
             "respect to $z$?"),
    text(
        "The chain rule through $u = z/T$ multiplies by $1/T$: "
        "$\\bar z = \\frac{{1}}{{T}}\\, p \\odot (g - \\langle g, p\\rangle)$, per row. At "
        "$T$ = {T} on a random batch of shape {shape} the engine's `make_vjp` matches this to "
        "`rtol=1e-12`, and central differences agree. A small $T$ sharpens $p$ and scales the "
        "gradient up by $1/T$.",
        T=given(T), shape=given((B2, V2)),
    ),
))
print()


# 3. PyTorch's combination of class weights and label smoothing.
# --8<-- [start:torch_combined]
def weighted_smoothed_loss(z, y, weight, eps):
    """PyTorch's definition: (1-ε) times the weighted-mean NLL plus ε times the uniform term,
    whose class j is weighted by w_j; both are divided by the weights of the targets."""
    log_p = helpers.log_softmax(z)
    onehot = np.eye(z.shape[1])[y]
    nll = -anp.sum(weight[y] * anp.sum(onehot * log_p, axis=1))
    uniform = -anp.sum(log_p * weight) / z.shape[1]
    return ((1 - eps) * nll + eps * uniform) / np.sum(weight[y])
# --8<-- [end:torch_combined]


z3, y3, w3, eps3 = batch.LOGITS, batch.LABELS, batch.WEIGHTS, batch.SMOOTHING
q_torch = (1 - eps3) * w3[y3][:, None] * np.eye(batch.V)[y3] + eps3 * w3 / batch.V   # (B, V)
p3 = helpers.softmax_np(z3)
torch_formula = (p3 * q_torch.sum(axis=1, keepdims=True) - q_torch) / w3[y3].sum()
engine3 = grad(weighted_smoothed_loss)(z3, y3, w3, eps3)
assert_shape_then_close(engine3, torch_formula, rtol=1e-12, atol=1e-15)
assert_shape_then_close(
    torch_formula, central_differences(lambda x: float(weighted_smoothed_loss(x, y3, w3, eps3)), z3),
    rtol=1e-6, atol=1e-8,
)
# The chapter's one-option formula with both options set is a different loss.
chapter_both = helpers.cross_entropy_gradient(z3, y3, label_smoothing=eps3, weight=w3)
gap_to_chapter = float(np.abs(chapter_both - torch_formula).max())
row_sums = float(np.abs(torch_formula.sum(axis=1)).max())
print(collapsible(
    title(3, "PyTorch {version}'s `cross_entropy` with both `weight=` and `label_smoothing=` weights "
             "the uniform part of the target class by class. Derive its gradient.",
          version=given("2.13")),
    text(
        "Write the per-row target as "
        "$q'_{{b}} = (1-\\varepsilon)\\, w_{{y_b}} \\mathbf{{1}}_{{y_b}} + \\varepsilon\\, w / V$ "
        "(no longer a distribution: its entries sum to $\\sum_k q'_{{bk}} \\ne 1$) and the loss as "
        "$-\\sum_b \\sum_k q'_{{bk}} \\log p_{{bk}} / \\sum_b w_{{y_b}}$. The index form of the "
        "derivation above gives "
        "$\\partial L / \\partial z_{{bj}} = \\big(p_{{bj}} \\sum_k q'_{{bk}} - q'_{{bj}}\\big) / "
        "\\sum_b w_{{y_b}}$, whose rows still sum to zero (largest row sum {rows}). On the "
        "variants batch the engine's gradient of this loss matches it to `rtol=1e-12`, central "
        "differences agree, and PyTorch's autograd gives the same array (a test runs it). The "
        "chapter's one-option formula with both options set differs from it by up to {gap}. "
        "<!-- tested: tests/snippets/test_softmax.py::test_weights_with_label_smoothing_match_pytorch -->",
        rows=checked(row_sums, against=0.0, atol=8 * np.finfo(float).eps, shown_as=lambda v: f"{v:.1e}"),
        gap=checked(gap_to_chapter, against=float(np.abs(chapter_both - engine3).max()), rtol=1e-6,
                    shown_as=lambda v: f"{v:.3f}"),
    ),
))
print()

# 4. A batch of one class: the weight cancels.
same = np.full(batch.B, 3)
weighted = grad(helpers.cross_entropy)(batch.LOGITS, same, weight=batch.WEIGHTS)
plain = (helpers.softmax_np(batch.LOGITS) - np.eye(batch.V)[same]) / batch.B
assert_shape_then_close(weighted, plain, rtol=1e-12, atol=1e-15)
print(collapsible(
    title(4, "Every label of a batch is the same class $c$. How do the class weights change the "
             "weighted-mean gradient?"),
    text(
        "Not at all. Every row weight is $w_c$, so $r_b / \\sum_{{b'}} r_{{b'}} = w_c / (B w_c) = "
        "1/B$ and the gradient is the plain $(p_b - \\mathbf{{1}}_c)/B$: on the variants batch "
        "(class weight {w}) the engine's weighted gradient equals it to `rtol=1e-12`. Class "
        "weights only shift influence *between* classes of a batch; with a sum instead of a "
        "mean, they would scale it by $w_c$.",
        w=given(float(batch.WEIGHTS[3])),
    ),
))
