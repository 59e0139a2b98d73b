"""A heat map of dlogits for the chapter's minibatch: one negative cell per row, at the target."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import TwoSlopeNorm

from bookkit import checked, load_snippet_module, svg_figure, text

model = load_snippet_module("snippets/network_by_hand/_model.py")
worked = load_snippet_module("snippets/network_by_hand/_worked_example.py")
ALPHABET = model.ALPHABET
worked_example = worked.worked_example

example = worked_example()
dlogits = example.hand["logits"]
B = dlogits.shape[0]

# Each row's only negative entry sits at its target: P - 1 < 0 there, P > 0 elsewhere.
assert np.array_equal(np.argmin(dlogits, axis=1), example.Yb)
assert np.all((dlogits < 0).sum(axis=1) == 1)

scaled = dlogits * B
# Two slopes: the target cells reach almost -1, the others stay small and positive; one linear
# scale would wash the positive cells out.
norm = TwoSlopeNorm(vmin=float(scaled.min()), vcenter=0.0, vmax=float(scaled.max()))
fig, ax = plt.subplots(figsize=(7.5, 6.0))
image = ax.imshow(scaled, cmap="RdBu_r", norm=norm, aspect="auto")
ax.scatter(example.Yb, np.arange(B), marker="o", s=18, facecolors="none", edgecolors="black",
           linewidths=0.8, label="target class")
ax.set_xticks(np.arange(len(ALPHABET)), list(ALPHABET))
ax.set_xlabel("class (next character)")
ax.set_ylabel("example in the minibatch")
ax.set_title(r"dlogits $\times$ B = P - one_hot(y)")
ax.legend(loc="upper right", fontsize=8, framealpha=0.9)
colorbar = fig.colorbar(image, ax=ax, shrink=0.8)
colorbar.set_ticks([norm.vmin, norm.vmin / 2, 0.0, norm.vmax / 2, norm.vmax])
fig.tight_layout()
print(svg_figure(fig))
plt.close(fig)
print()
rows_with_one_negative = int(np.sum((dlogits < 0).sum(axis=1) == 1))
print(text(
    "The plot multiplies by $B = {B}$ so that the colours read as $P - \\mathbf{{1}}_y$. In "
    "every one of the {rows} rows the only blue cell is the circled target: there the model put "
    "too little probability, everywhere else too much. The colour scale has two slopes, one for "
    "the negative target cells and one for the small positive rest.",
    B=checked(B, against=len(example.Yb)),
    rows=checked(rows_with_one_negative, against=len(example.Yb)),
))
