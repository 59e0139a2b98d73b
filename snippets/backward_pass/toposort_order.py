"""The order `toposort` gives the running example's graph, and the property that makes it safe."""

from pathlib import Path

from ad_core.core import VJPNode
from ad_core.recorder import record
from ad_core.tracer import toposort, trace
from bookkit import checked, given, load_snippet_module, md_table, text

example = load_snippet_module(Path(__file__).with_name("_running_example.py"))

# --8<-- [start:order]
root = VJPNode.new_root(example.POINT)
with record() as recording:
    _, end_node = trace(root, example.f, example.POINT)
    order = toposort(end_node)  # the list backward_pass will walk
# --8<-- [end:order]

names = example.baydin_names(recording.of_kind("forward"))
name = {node: names[recording.node_id(node)] for node in order}
children = {node: [child for child in order if node in child.parents] for node in order}

rows = []
for position, node in enumerate(order):
    primitive = "root" if node.fun is None else node.fun.__name__
    # The property the backward pass relies on: every child comes earlier in the list.
    assert all(order.index(child) < position for child in children[node])
    rows.append(
        [
            given(position, shown_as=str),  # the row's index in the list: a label
            f"${name[node]}$",
            f"`{primitive}`",
            ", ".join(f"${name[child]}$" for child in children[node]) or "— (the output)",
            ", ".join(f"${name[parent]}$" for parent in node.parents) or "— (the input)",
        ]
    )
assert order[0] is end_node and order[-1] is root

print(
    md_table(
        ["position", "node", "primitive", "its children (used by)", "its parents (uses)"],
        rows,
    )
)
shared = [f"${name[node]}$" for node in order if len(children[node]) > 1]
print()
print(
    text(
        "{count} nodes, each listed once. Nodes with more than one child: {shared}. Each of them "
        "appears only after all of its children.",
        count=checked(len(order), against=len(recording.of_kind("forward")) + 1),
        shared=", ".join(shared),
    )
)
assert len(order) == len(set(order))
