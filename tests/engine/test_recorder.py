"""The recorder (`ad_core.recorder`) against the contract in CONTRIBUTING.md.

The expected values are computed here with plain NumPy from the example's inputs, so a
recorder that stored the wrong object, the wrong stage or the wrong order fails.
"""

from __future__ import annotations

import numpy as np
import pytest

import ad_core.numpy as anp
import ad_core.recorder as ad_recorder
from ad_core import grad, make_jvp
from ad_core.recorder import record, trace_graph

X = np.array([1.0, 2.0, 3.0])
BIAS = 2.0


def sum_of_broadcast_add(b):
    return anp.sum(X + b)


@pytest.fixture
def scalar_bias_events():
    with record() as recording:
        gradient = grad(sum_of_broadcast_add)(BIAS)
    return recording.events, gradient


def test_broadcasting_add_events_come_in_the_documented_order(scalar_bias_events) -> None:
    events, _ = scalar_bias_events
    observed = [
        (event.kind, event.detail.get("stage")) if event.kind == "unbroadcast" else event.kind
        for event in events
    ]
    assert observed == [
        "forward",  # add(x, b)
        "forward",  # sum(...)
        "visit",  # the output node, holding the seed cotangent
        "vjp",  # sum's rule
        "accumulate",  # into the add node
        "visit",  # the add node
        ("unbroadcast", "enter"),
        ("unbroadcast", "sum_leading"),
        ("unbroadcast", "return"),
        "vjp",  # add's rule for argument 1, the bias
        "accumulate",  # into the root
        "visit",  # the root
    ]
    assert [event.step for event in events] == list(range(len(events)))


def test_broadcasting_add_events_carry_the_documented_values(scalar_bias_events) -> None:
    events, gradient = scalar_bias_events
    (
        forward_add,
        forward_sum,
        visit_sum,
        vjp_sum,
        acc_add,
        visit_add,
        enter,
        leading,
        ret,
        vjp_add,
        acc_root,
        visit_root,
    ) = events

    assert forward_add.primitive == "add"
    np.testing.assert_array_equal(forward_add.value, X + BIAS)
    assert forward_add.shape == X.shape
    assert forward_add.detail["parents"] == (0,), "the root must be node 0"
    assert tuple(forward_add.detail["argnums"]) == (1,), "the bias is argument 1 of add"

    assert forward_sum.primitive == "sum"
    assert forward_sum.value == np.sum(X + BIAS)
    assert forward_sum.detail["parents"] == (forward_add.node,)

    assert visit_sum.node == forward_sum.node
    assert visit_sum.value == 1.0, "the backward pass starts from a cotangent of one"

    assert (vjp_sum.node, vjp_sum.argnum) == (forward_sum.node, 0)
    np.testing.assert_array_equal(vjp_sum.value, np.ones_like(X))
    assert vjp_sum.detail["cotangent"] == 1.0

    assert acc_add.node == forward_add.node
    assert acc_add.detail["before"] is None
    assert acc_add.detail["count"] == 1
    np.testing.assert_array_equal(acc_add.value, np.ones_like(X))

    assert visit_add.node == forward_add.node
    np.testing.assert_array_equal(visit_add.value, np.ones_like(X))

    assert enter.shape == (3,)
    assert enter.detail["target_shape"] == ()
    assert enter.detail["target_ndim"] == 0
    np.testing.assert_array_equal(enter.value, np.ones_like(X))
    assert leading.shape == ()
    assert leading.detail["axis"] == 0
    assert leading.value == float(X.size), "summing the leading axis counts the copies"
    assert ret.shape == ()
    assert ret.value == leading.value

    assert (vjp_add.node, vjp_add.argnum, vjp_add.primitive) == (forward_add.node, 1, "add")
    assert vjp_add.value == ret.value
    np.testing.assert_array_equal(vjp_add.detail["cotangent"], np.ones_like(X))

    assert acc_root.node == 0
    assert acc_root.detail["before"] is None
    assert acc_root.detail["contribution"] == vjp_add.value
    assert acc_root.value == gradient

    assert visit_root.node == 0
    assert visit_root.value == gradient
    assert gradient == float(X.size)


def test_size_one_axis_is_summed_with_keepdims() -> None:
    matrix = np.arange(6.0).reshape(2, 3)
    with record() as recording:
        grad(lambda b: anp.sum(matrix * b))(np.ones((1, 3)))
    stages = recording.of_kind("unbroadcast")
    assert [event.detail["stage"] for event in stages] == ["enter", "sum_keepdims", "return"]
    keepdims = stages[1]
    assert keepdims.detail["axis"] == 0
    assert keepdims.shape == (1, 3)
    np.testing.assert_array_equal(keepdims.value, matrix.sum(axis=0, keepdims=True))


def test_real_target_gets_a_real_stage_after_the_sums() -> None:
    coefficients = np.array([1 + 2j, 0.5 - 1j, -1 + 0.3j])
    with record() as recording:
        gradient = grad(lambda x: anp.sum(anp.real(x * coefficients)))(BIAS)
    stages = recording.of_kind("unbroadcast")
    assert [event.detail["stage"] for event in stages] == ["enter", "sum_leading", "real", "return"]
    enter, summed, real_part, returned = stages
    assert np.iscomplexobj(enter.value)
    assert summed.value == np.sum(coefficients)
    assert real_part.value == np.real(summed.value)
    assert not np.iscomplexobj(returned.value)
    assert gradient == np.sum(np.real(coefficients))


def test_accumulate_counts_contributions_from_every_use() -> None:
    b = np.array([1.5, -0.5])
    with record() as recording:
        gradient = grad(lambda v: anp.sum(v * v))(b)
    into_root = [event for event in recording.of_kind("accumulate") if event.node == 0]
    assert [event.detail["count"] for event in into_root] == [1, 2]
    first, second = into_root
    assert first.detail["before"] is None
    np.testing.assert_array_equal(second.detail["before"], first.value)
    np.testing.assert_array_equal(second.value, first.value + second.detail["contribution"])
    np.testing.assert_array_equal(gradient, second.value)


def test_recorded_values_are_snapshots_not_live_references() -> None:
    b = np.array([1.5, -0.5])
    with record() as recording:
        grad(lambda v: anp.sum(v * v))(b)
    first = next(event for event in recording.of_kind("accumulate") if event.node == 0)
    # The root's total later grows to 2 * b; the first event must still show one contribution.
    np.testing.assert_array_equal(first.value, b)


def test_forward_mode_records_broadcast_stages_and_jvps() -> None:
    with record() as recording:
        _, tangent = make_jvp(lambda b: anp.sin(X + b))(BIAS)(1.0)
    stages = recording.of_kind("broadcast")
    assert [event.detail["stage"] for event in stages] == ["enter", "expand_dims", "repeat"]
    assert stages[-1].shape == X.shape
    np.testing.assert_array_equal(stages[-1].value, np.ones_like(X))
    jvps = recording.of_kind("jvp")
    assert [event.primitive for event in jvps] == ["add", "sin"]
    np.testing.assert_array_equal(jvps[-1].value, tangent)
    np.testing.assert_allclose(tangent, np.cos(X + BIAS), rtol=1e-15)


def test_forward_mode_root_is_node_zero() -> None:
    # CONTRIBUTING.md: "node ids are small integers in order of first appearance ... (the root is 0)".
    with record() as recording:
        make_jvp(lambda b: anp.sin(X + b))(BIAS)(1.0)
    first_forward = recording.of_kind("forward")[0]
    assert first_forward.detail["parents"] == (0,)


def test_nothing_is_recorded_outside_a_record_block() -> None:
    assert ad_recorder.active is None
    with record() as recording:
        grad(sum_of_broadcast_add)(BIAS)
    assert ad_recorder.active is None, "leaving the block must switch recording off"
    count = len(recording.events)
    grad(sum_of_broadcast_add)(BIAS)
    make_jvp(sum_of_broadcast_add)(BIAS)(1.0)
    assert len(recording.events) == count


def test_nested_records_restore_the_outer_one() -> None:
    with record() as outer:
        grad(sum_of_broadcast_add)(BIAS)
        outer_count = len(outer.events)
        with record() as inner:
            grad(sum_of_broadcast_add)(BIAS)
        assert ad_recorder.active is outer
        assert len(outer.events) == outer_count, "the inner block's events belong to it alone"
        assert len(inner.events) == outer_count
    assert ad_recorder.active is None


def test_recording_does_not_change_the_result(rng) -> None:
    x = rng.standard_normal((2, 3))
    plain = grad(lambda v: anp.sum(anp.tanh(v) * X))(x)
    with record():
        recorded = grad(lambda v: anp.sum(anp.tanh(v) * X))(x)
    np.testing.assert_array_equal(plain, recorded)


def test_trace_graph_lists_nodes_in_forward_order() -> None:
    graph = trace_graph(sum_of_broadcast_add, BIAS)
    assert [node.primitive for node in graph.nodes] == ["root", "add", "sum"]
    root, add, total = graph.nodes
    assert root.is_root
    assert root.id == 0
    assert add.parents == (0,)
    assert tuple(add.parent_argnums) == (1,)
    assert total.parents == (add.id,)
    assert graph.output == total.id
    np.testing.assert_array_equal(add.value, X + BIAS)
    assert total.shape == ()
