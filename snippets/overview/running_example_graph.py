"""Part I's running example as the engine sees it: the graph one call traces, and the
cotangent each edge carries back, both drawn from one recording of `grad(f)(x)`."""

import numpy as np

from ad_core import grad
from ad_core.recorder import record
from bookkit import Rendered, checked, given, load_snippet_module, text

example = load_snippet_module("snippets/backward_pass/_running_example.py")

# --8<-- [start:example]
with record() as recording:
    gradient = grad(example.f)(example.POINT)
# --8<-- [end:example]

forward = recording.of_kind("forward")
names = example.baydin_names(forward)
root = forward[0].detail["parents"][0]
primitive = {event.node: event.primitive for event in forward}


def mermaid_id(node: int) -> str:
    """A Mermaid node id from Baydin's name: v_{-1} -> vm1, v_{3} -> v3."""
    return names[node].replace("_{", "").replace("}", "").replace("-", "m")


SUBSCRIPT = str.maketrans("-0123456789", "₋₀₁₂₃₄₅₆₇₈₉")


def node_line(node: int) -> Rendered:
    # Baydin's subscript in Unicode, so that it reads as a name in a Mermaid label: v_{-1} -> v₋₁.
    name = names[node].replace("_{", "").replace("}", "").translate(SUBSCRIPT)
    if node == root:
        return text('    {id}(["x (input)"])', id=mermaid_id(node))
    return text('    {id}["{name} = {primitive}"]', id=mermaid_id(node), name=name,
                primitive=primitive[node])


def as_tuple(value) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in np.ravel(value)) + ")" if np.ndim(value) else f"{value:.4g}"


# The forward graph: one box per primitive call, an arrow from each argument to its use.
forward_lines = ["```mermaid", "flowchart LR", *(node_line(node) for node in names)]
for event in forward:
    for parent in event.detail["parents"]:
        forward_lines.append(text("    {parent} --> {child}", parent=mermaid_id(parent),
                                  child=mermaid_id(event.node)))
forward_lines.append("```")

# The backward graph: the same edges reversed, each labelled with what the engine's VJP call
# returned for it, checked against the closed-form adjoint times the local partial derivative.
parents_of = {event.node: event.detail["parents"] for event in forward}
backward_lines = ["```mermaid", "flowchart RL", *(node_line(node) for node in names)]
arriving: dict[int, list] = {}  # node -> what the arrows into it carried
for event in recording.of_kind("vjp"):
    argnums = next(f.detail["argnums"] for f in forward if f.node == event.node)
    parent = parents_of[event.node][argnums.index(event.argnum)]
    arriving.setdefault(parent, []).append(event.value)
    carried = checked(event.value, against=example.contribution(names[event.node], event.argnum),
                      rtol=1e-12, shown_as=as_tuple)
    backward_lines.append(
        text('    {child} -->|"{value}"| {parent}', child=mermaid_id(event.node),
             parent=mermaid_id(parent), value=carried)
    )
backward_lines.append("```")
# One backward arrow per forward arrow; the arrows into a node add up to its cotangent, the
# closed-form adjoint, and at some nodes two arrows do meet.
arrows_in = {node: len(values) for node, values in arriving.items()}
arrows_forward = [len(parents) for parents in parents_of.values()]
assert sum(arrows_in.values()) == sum(arrows_forward) and max(arrows_in.values()) > 1
for node, values in arriving.items():
    np.testing.assert_allclose(sum(values), example.adjoint(names[node]), rtol=1e-12)

print(text(
    "The function is $f(x) = \\ln x_1 + x_1 x_2 - \\sin x_2$ at $x = {point}$. The engine traces "
    "one call into this graph, one node per primitive:",
    point=given(tuple(example.POINT.tolist()), shown_as=lambda p: f"({p[0]:g}, {p[1]:g})"),
))
print()
print(Rendered("\n").join(forward_lines))
print()
print(text(
    "The backward pass walks it from the output to the input. Each arrow below is one VJP call, "
    "labelled with what it carried back (to four digits), so the picture is the chain rule evaluated: "
    "the two arrows into `x` add up to the gradient {gradient}, which equals the closed form "
    "$(1/x_1 + x_2,\\ x_1 - \\cos x_2)$.",
    gradient=checked(gradient, against=example.closed_form_gradient(example.POINT), rtol=1e-14,
                     shown_as=lambda g: f"${as_tuple(g)}$"),
))
print()
print(Rendered("\n").join(backward_lines))
