"""stop_gradient in a graph: a temporal-difference loss whose target is held constant."""

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stop_gradient
from ad_core.recorder import trace_graph
from bookkit import central_differences, checked, given, mermaid_graph, text

rng = np.random.default_rng(7)
features, next_features = rng.standard_normal(3), rng.standard_normal(3)
reward, discount = given(1.0), given(0.9)


# --8<-- [start:loss]
def td_loss(w):
    value = anp.dot(w, features)
    target = reward.value + discount.value * anp.dot(w, next_features)
    return (value - stop_gradient(target)) ** 2
# --8<-- [end:loss]


def full_loss(w):  # the same number, with the target differentiated too
    value = anp.dot(w, features)
    target = reward.value + discount.value * anp.dot(w, next_features)
    return (value - target) ** 2


w = rng.standard_normal(3)
graph = trace_graph(td_loss, w)
stopped = [node for node in graph.nodes if node.primitive == "stop_gradient"]
assert len(stopped) == 1
print(mermaid_graph(graph, direction="TB"))
print()

engine = grad(td_loss)(w)
# What reaches w through the stopped branch alone: zeros of w's shape.
through_target = grad(lambda v: stop_gradient(reward.value + discount.value * anp.dot(v, next_features)))(w)
assert through_target.shape == w.shape and not through_target.any()
error = features @ w - (reward.value + discount.value * next_features @ w)
semi_gradient = 2 * error * features                       # the target as a constant
true_gradient = 2 * error * (features - discount.value * next_features)
assert engine.shape == w.shape == true_gradient.shape
print(text(
    "The graph still holds the target's whole computation; the `stop_gradient` node reads the "
    "`{parent}` that computes it, and its VJP sends zeros to everything above it. On random "
    "`w` of shape {shape}, `grad` gives {engine}, "
    "which is $2\\,\\delta\\,s$ for the error $\\delta$: the gradient of a loss whose target "
    "is a constant. Central differences of the function as computed give {fd}, the derivative "
    "$2\\,\\delta\\,(s - \\gamma s')$ with reward {r} and discount {gamma}: not what `grad` "
    "returned, by design.",
    parent=checked(graph.nodes[stopped[0].parents[0]].primitive, against="add"),
    shape=checked(engine.shape, against=(3,)),
    engine=checked(engine, against=semi_gradient, rtol=1e-12),
    fd=checked(central_differences(td_loss, w), against=true_gradient, rtol=1e-6),
    r=reward, gamma=discount,
))
print()
print(text(
    "And the function with the stop removed, differentiated by `grad`, gives {full} again.",
    full=checked(grad(full_loss)(w), against=true_gradient, rtol=1e-12),
))
