"""Scaled dot-product attention built from engine primitives, and its backward pass by hand.

Hidden helper for the attention chapter: the snippets import it with `load_snippet_module`.
Arrays have shape (B, H, T, d): batch, heads, positions, features per head.
"""

import numpy as np

import ad_core.numpy as anp

# Distinct sizes, so that no axis can be mistaken for another in a shape check.
BATCH, HEADS, LENGTH, WIDTH = 2, 3, 5, 4


def causal_mask(length: int) -> np.ndarray:
    """The additive mask: 0 where query i may look at key j (j <= i), -inf above the diagonal."""
    future = np.triu(np.ones((length, length), dtype=bool), k=1)
    return np.where(future, -np.inf, 0.0)


def make_inputs(rng: np.random.Generator, masked: bool = True) -> dict:
    shape = (BATCH, HEADS, LENGTH, WIDTH)
    return {
        "Q": rng.normal(size=shape),
        "K": rng.normal(size=shape),
        "V": rng.normal(size=shape),
        "dO": rng.normal(size=shape),  # the upstream gradient of the output
        "M": causal_mask(LENGTH) if masked else np.zeros((LENGTH, LENGTH)),
    }


# --8<-- [start:forward]
def softmax_last_axis(S):
    shifted = S - anp.max(S, axis=-1, keepdims=True)  # e^(-max) cancels; keeps exp <= 1
    E = anp.exp(shifted)  # a masked entry is exp(-inf) = 0
    return E / anp.sum(E, axis=-1, keepdims=True)


def attention(Q, K, V, M):
    d = Q.shape[-1]
    S = anp.matmul(Q, anp.swapaxes(K, -1, -2)) / np.sqrt(d) + M  # (B, H, T, T)
    P = softmax_last_axis(S)  # each row sums to one
    return anp.matmul(P, V)  # (B, H, T, d)


# --8<-- [end:forward]


def forward_values(Q, K, V, M) -> dict:
    """The intermediates the backward pass needs, in plain NumPy."""
    d = Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d) + M
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    P = E / E.sum(axis=-1, keepdims=True)
    return {"S": S, "P": P, "O": P @ V}


# --8<-- [start:backward]
def attention_backward(Q, K, V, M, dO):
    d = Q.shape[-1]
    P = forward_values(Q, K, V, M)["P"]
    dV = np.swapaxes(P, -1, -2) @ dO  # (B, H, T, T) @ (B, H, T, d)
    dP = dO @ np.swapaxes(V, -1, -2)  # (B, H, T, d) @ (B, H, d, T)
    row_dot = np.sum(dP * P, axis=-1, keepdims=True)  # <g, p> per row, (B, H, T, 1)
    dS = P * (dP - row_dot)  # softmax's VJP, row by row
    dQ = dS @ K / np.sqrt(d)
    dK = np.swapaxes(dS, -1, -2) @ Q / np.sqrt(d)
    return {"dQ": dQ, "dK": dK, "dV": dV, "dP": dP, "dS": dS}


# --8<-- [end:backward]


def engine_gradients(Q, K, V, M, dO) -> dict:
    """The engine's VJP of the attention output, pulled back from dO, for each of Q, K, V."""
    from ad_core import make_vjp

    return {
        "dQ": make_vjp(lambda q: attention(q, K, V, M))(Q)[0](dO),
        "dK": make_vjp(lambda k: attention(Q, k, V, M))(K)[0](dO),
        "dV": make_vjp(lambda v: attention(Q, K, v, M))(V)[0](dO),
    }


def numeric_loss(Q, K, V, M, dO) -> float:
    """<dO, O>: the scalar whose gradient in Q, K, V is the VJP of dO."""
    return float(np.sum(dO * forward_values(Q, K, V, M)["O"]))
