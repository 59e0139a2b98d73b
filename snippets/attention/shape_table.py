"""Every tensor of attention and of its backward pass, with its shape: computed, then checked
against the shape the formula predicts from (B, H, T, d)."""

from pathlib import Path

import numpy as np

from bookkit import checked, given, load_snippet_module, md_table, text

attn = load_snippet_module(Path(__file__).with_name("_attention.py"))
B, H, T, d = attn.BATCH, attn.HEADS, attn.LENGTH, attn.WIDTH
v = attn.make_inputs(np.random.default_rng(0))
forward = attn.forward_values(v["Q"], v["K"], v["V"], v["M"])
hand = attn.attention_backward(**v)
engine = attn.engine_gradients(**v)

# (name, how it is computed, the computed array, the shape the formula predicts)
rows = [
    ("$Q, K, V$", "inputs", v["Q"], (B, H, T, d)),
    ("$S$", r"$Q K^\top / \sqrt d + M$", forward["S"], (B, H, T, T)),
    ("$P$", r"$\operatorname{softmax}(S)$, last axis", forward["P"], (B, H, T, T)),
    ("$O$", "$P V$", forward["O"], (B, H, T, d)),
    (r"$\bar O$", "given (upstream)", v["dO"], (B, H, T, d)),
    (r"$\bar V$", r"$P^\top \bar O$", hand["dV"], engine["dV"].shape),
    (r"$\bar P$", r"$\bar O V^\top$", hand["dP"], forward["P"].shape),
    (
        r"$\bar S$",
        r"$P \odot (\bar P - \langle \bar P, P\rangle_{\text{row}})$",
        hand["dS"],
        forward["S"].shape,
    ),
    (r"$\bar Q$", r"$\bar S K / \sqrt d$", hand["dQ"], engine["dQ"].shape),
    (r"$\bar K$", r"$\bar S^\top Q / \sqrt d$", hand["dK"], engine["dK"].shape),
]
letters = {B: "B", H: "H", T: "T", d: "d"}
assert len(letters) == 4, "the sizes must differ, or a swapped axis could pass"
print(
    text(
        "With $B = {B}$, $H = {H}$, $T = {T}$, $d = {d}$ (all different, so a swapped axis would show):",
        B=given(B),
        H=given(H),
        T=given(T),
        d=given(d),
    )
)
print()
print(
    md_table(
        ["tensor", "computed as", "shape", "in letters"],
        [
            [
                name,
                how,
                checked(array.shape, against=tuple(expected)),
                "`(" + ", ".join(letters[n] for n in array.shape) + ")`",
            ]
            for name, how, array, expected in rows
        ],
    )
)
