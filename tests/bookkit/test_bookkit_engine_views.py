"""mermaid_graph and events_table, fed by the engine's real recorder."""

from __future__ import annotations

import re

import numpy as np

import ad_core.numpy as anp
from ad_core import grad
from ad_core.recorder import record, trace_graph
from bookkit import events_table, mermaid_graph, mermaid_graphs


def _loss(b):
    x = np.arange(6.0).reshape(2, 3)
    return anp.sum(anp.tanh(x + b) * b)


def test_mermaid_graph_has_one_node_per_graph_node_and_one_edge_per_parent() -> None:
    graph = trace_graph(_loss, np.ones(3))
    text = mermaid_graph(graph, title='A "quoted" title', names={0: "b"})
    assert text.startswith("```mermaid\n---\ntitle: A #quot;quoted#quot; title\n---\nflowchart LR\n")
    assert text.endswith("```\n")
    node_lines = re.findall(r"^    n(\d+)[\[(]", text, flags=re.MULTILINE)
    assert sorted(int(n) for n in node_lines) == sorted(node.id for node in graph.nodes)
    edges = re.findall(r"^    n(\d+) -->\|\"arg (\d+)\"\| n(\d+)$", text, flags=re.MULTILINE)
    expected = {
        (parent, argnum, node.id)
        for node in graph.nodes
        for parent, argnum in zip(node.parents, node.parent_argnums, strict=True)
    }
    assert {(int(a), int(b), int(c)) for a, b, c in edges} == expected
    assert '(["0 · b<br/>(3,)"])' in text
    assert f"n{graph.output}[[" in text


def test_compact_mermaid_graph_labels_only_the_edges_into_a_node_with_several_parents() -> None:
    graph = trace_graph(_loss, np.ones(3))
    text = mermaid_graph(graph, direction="TB", compact=True)
    assert "<br/>" not in text and "\nflowchart TB\n" in text and "rankSpacing: 28" in text
    several = {node.id for node in graph.nodes if len(node.parents) > 1}
    assert several, "the example needs a node with two parents"
    labelled = {int(c) for c in re.findall(r'-->\|"arg \d+"\| n(\d+)$', text, flags=re.MULTILINE)}
    bare = {int(c) for c in re.findall(r"^    n\d+ --> n(\d+)$", text, flags=re.MULTILINE)}
    assert labelled == several
    assert bare == {node.id for node in graph.nodes if len(node.parents) == 1}


def test_mermaid_graphs_draws_each_graph_in_its_own_box_with_ids_kept_apart() -> None:
    one = trace_graph(_loss, np.ones(3))
    two = trace_graph(lambda x: anp.sum(anp.exp(x)), np.ones(2))
    text = mermaid_graphs([("first", one), ("second", two)])
    assert text.startswith("```mermaid\nflowchart TB\n") and text.endswith("```\n")
    boxes = re.findall(r'^    subgraph (g\d+) \["([^"]+)"\]\n        direction TB$', text, flags=re.MULTILINE)
    assert boxes == [("g0", "first"), ("g1", "second")]
    for prefix, graph in (("g0", one), ("g1", two)):
        nodes = re.findall(rf"^        {prefix}n(\d+)[\[(]", text, flags=re.MULTILINE)
        assert sorted(int(n) for n in nodes) == sorted(node.id for node in graph.nodes)
        edge = rf'^        {prefix}n(\d+) -->\|"arg (\d+)"\| {prefix}n(\d+)$'
        edges = re.findall(edge, text, flags=re.MULTILINE)
        parent_edges = sum(len(node.parents) for node in graph.nodes)
        assert len(edges) == parent_edges
    # No edge joins the two boxes: each keeps its own direction.
    assert not re.search(r"g0n\d+ --.*g1n|g1n\d+ --.*g0n", text)


def test_events_table_has_a_row_per_event_with_recorded_values() -> None:
    with record() as recording:
        grad(_loss)(np.ones(3))
    events = recording.of_kind("forward", "visit")
    # These checks only exercise the table's layout (they restate the recording).
    checks = {"shape": lambda e: np.shape(e.value), "value": lambda e: np.copy(e.value)}
    table = events_table(events, ["step", "kind", "primitive", "shape", "value"], checks=checks)
    rows = table.strip().splitlines()[2:]
    assert len(rows) == len(events)
    for event, row in zip(events, rows, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[0] == str(event.step)
        assert cells[1] == f"`{event.kind}`"
        assert cells[3] == f"`{event.shape}`".replace(",)", ",)")


def test_events_table_reads_detail_entries_and_custom_columns() -> None:
    with record() as recording:
        grad(_loss)(np.ones(3))
    stages = recording.of_kind("unbroadcast")
    assert stages, "adding a (3,) bias to a (2, 3) array must unbroadcast"
    ndim = {"ndim": lambda e: np.ndim(e.value)}
    table = events_table(stages, ["stage", ("ndim", lambda e: e.ndim)], checks=ndim)
    rows = table.strip().splitlines()[2:]
    assert [r.split("|")[1].strip() for r in rows] == [f"`{e.detail['stage']}`" for e in stages]
    assert [r.split("|")[2].strip() for r in rows] == [str(e.ndim) for e in stages]
