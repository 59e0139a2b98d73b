"""A new primitive: a numerically stable log-sum-exp, with its VJP and JVP, checked."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.extend import defjvp, defvjp, primitive
from ad_core.test_util import check_grads
from bookkit import Derivation, checked, fmt_shape, given, md_table, text


# --8<-- [start:primitive]
@primitive
def logsumexp(z):
    """log(sum(exp(z))) over the last axis; the result has shape z.shape[:-1]."""
    peak = np.max(z, axis=-1, keepdims=True)  # subtracting it keeps every exp() <= 1
    return np.squeeze(peak, axis=-1) + np.log(np.sum(np.exp(z - peak), axis=-1))


def softmax_from(ans, z):
    # exp(z - logsumexp(z)) is softmax(z): never overflows, because z - ans <= 0.
    return anp.exp(z - anp.expand_dims(ans, -1))


defvjp(logsumexp, lambda ans, z: lambda g: anp.expand_dims(g, -1) * softmax_from(ans, z))
defjvp(logsumexp, lambda g, ans, z: anp.sum(g * softmax_from(ans, z), axis=-1))
# --8<-- [end:primitive]


SHAPE = (5,)


def inputs(rng: np.random.Generator) -> dict:
    return {"z": rng.standard_normal(SHAPE)}


rule = Derivation(inputs)
rule.step(r"\frac{\partial}{\partial z_i} \log \sum_j e^{z_j} &= \texttt{grad(logsumexp)}(z)_i",
          lambda v: grad(logsumexp)(v["z"]))
rule.step(r"&= \frac{e^{z_i}}{\sum_j e^{z_j}}", lambda v: np.exp(v["z"]) / np.exp(v["z"]).sum())
rule.step(r"&= e^{\,z_i - \log \sum_j e^{z_j}} = \operatorname{softmax}(z)_i",
          lambda v: np.exp(v["z"] - np.log(np.exp(v["z"]).sum())))
print(text("The rule, for $z$ of shape {shape}, each line evaluated on random inputs:\n", shape=given(SHAPE)))
print(rule.render(rtol=1e-12))

# --8<-- [start:check]
rng = np.random.default_rng(11)
passed = []
for shape in [(5,), (4, 3)]:
    z = rng.standard_normal(shape)
    check_grads(logsumexp, modes=("fwd", "rev"), order=2)(z)  # raises unless it passes
    passed.append(shape)
# --8<-- [end:check]
print(md_table(
    ["input shape", "output shape", "modes", "order", "`check_grads`"],
    # Compared as lists: the empty shape () is one shared object in CPython, which checked()
    # would take for a comparison of a value with itself.
    [[given(shape), checked(list(logsumexp(np.zeros(shape)).shape), against=list(shape[:-1]),
                            shown_as=lambda s: f"`{fmt_shape(tuple(s))}`"), "fwd, rev",
      given(2), "passed"]
     for shape in passed],
))
