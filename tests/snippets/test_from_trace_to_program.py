"""The built chapter "From trace to program" shows the staged programs and what they compute."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, stage, value_and_grad
from ad_core.staging import Program, StageNode
from ad_core.tracer import getval
from bookkit import load_snippet_module

model = load_snippet_module("snippets/network_by_hand/_model.py")


def test_small_example_listing_is_the_programs(text: str) -> None:
    def f(x):
        return anp.sum(anp.tanh(x) * x)

    x = np.linspace(-1.0, 1.0, 4)
    staged = stage(grad(f))
    for program in (staged.raw_program(x), staged.program(x)):
        for line in str(program).splitlines()[2:]:
            assert line.split("#")[0].strip() in text


def test_mlp_counts_are_the_programs(text: str) -> None:
    params = model.init_params()
    Xb, Yb = model.sample_batch(seed=0)
    staged = stage(value_and_grad(lambda p, X, Y: model.forward(p, X, Y, xp=anp)["loss"]))
    program = staged.program(params, Xb, Yb)
    assert f"The program has {program.n_calls} primitive calls" in text
    assert f"at most {program.peak_bytes} bytes" in text


def test_the_stage_node_listing_is_the_live_source(text: str) -> None:
    for line in inspect.getsource(StageNode).splitlines():
        assert line.strip() in text


def test_refusal_is_shown(text: str) -> None:
    assert "cannot stage this function" in text and "in clipped" in text


def test_the_comparison_with_the_hand_written_backward_is_the_programs(text: str) -> None:
    params = model.init_params()
    Xb, Yb = model.sample_batch(seed=0)

    def loss(p, X, Y):
        return model.forward(p, X, Y, xp=anp)["loss"]

    step = stage(value_and_grad(loss)).program(params, Xb, Yb)
    forward_only = stage(loss).program(params, Xb, Yb)
    backward, forward = step.n_calls - forward_only.n_calls, forward_only.n_calls
    assert (f"The staged program makes {backward} calls beyond the {forward} that the loss alone "
            f"needs, and holds at most {step.peak_bytes} bytes") in text


# -- what the page says about closed-over arrays, the first call, the passes, the watched places --


def test_a_closed_over_array_keeps_its_staged_value_in_ad_core_and_in_jax_jit(text: str) -> None:
    """The same in-place change after staging, in both systems: neither program sees it."""
    import jax
    import jax.numpy as jnp

    w = np.array([1.0, 2.0])
    x = np.array([1.0, 1.0])
    staged = stage(lambda x: x * w + anp.sum(anp.ones_like(x) * w))
    jitted = jax.jit(lambda x: x * w + jnp.sum(jnp.ones_like(x) * w))
    before = x * w + np.sum(w)
    assert np.array_equal(staged(x), before) and np.array_equal(np.asarray(jitted(x)), before)
    w[:] = [10.0, 20.0]
    assert not np.array_equal(x * w + np.sum(w), before)  # eagerly, the change is seen
    assert np.array_equal(staged(x), before)
    assert np.array_equal(np.asarray(jitted(x)), before)
    assert "To see new values, pass the array as an argument" in text
    assert "A closed-over array is the same in both" in text


def test_jax_traces_with_shapes_and_dtypes_and_ad_core_with_the_first_calls_values(text: str) -> None:
    import jax

    seen_by_jax, seen_by_ad_core = [], []

    def jax_f(x):
        seen_by_jax.append(x)
        with pytest.raises(jax.errors.TracerArrayConversionError):
            np.asarray(x)
        return x * 2.0

    def ad_core_f(x):
        seen_by_ad_core.append(getval(x))
        return x * 2.0

    x = np.array([1.0, 2.0, 3.0])
    jax.jit(jax_f)(x)
    stage(ad_core_f)(x)
    assert isinstance(seen_by_jax[0], jax.core.Tracer) and seen_by_jax[0].shape == x.shape
    assert np.array_equal(seen_by_ad_core[0], x)
    assert "Its tracers carry shapes and dtypes" in text


def test_a_python_float_is_an_input_of_jax_jit_and_a_cache_key_of_ad_core(text: str) -> None:
    import jax

    traces = []

    def f(x, s):
        traces.append(s)
        return x * s

    x = np.ones(3)
    plain, static = jax.jit(f), jax.jit(f, static_argnums=1)
    for s in (2.0, 3.0):
        plain(x, s)
    assert len(traces) == 1 and isinstance(traces[0], jax.core.Tracer)
    traces.clear()
    for s in (2.0, 3.0):
        static(x, s)
    assert traces == [2.0, 3.0]
    staged = stage(lambda x, s: x * s)
    for s in (2.0, 3.0, 2.0):
        assert np.array_equal(staged(x, s), x * s)
    assert staged.stagings == 2
    assert "unless you name it in static_argnums" in text


def test_aot_autograd_partitions_one_joint_graph_into_a_forward_and_a_backward_graph(text: str) -> None:
    torch = pytest.importorskip("torch")
    from functorch.compile import aot_function, default_partition, make_boxed_func

    graphs = {}

    def ops(module):
        return {str(node.target).split(".")[1] for node in module.graph.nodes if node.op == "call_function"}

    def compiler(name):
        def compile_(module, inputs):
            graphs[name] = ops(module)
            return make_boxed_func(module.forward)
        return compile_

    def partition(joint, joint_inputs, **kwargs):
        graphs["joint"] = ops(joint)
        return default_partition(joint, joint_inputs, **kwargs)

    f = aot_function(lambda x: (torch.sin(x) * x).sum(), fw_compiler=compiler("forward"),
                     bw_compiler=compiler("backward"), partition_fn=partition)
    x = torch.linspace(-1.0, 1.0, 4, dtype=torch.float64, requires_grad=True)
    f(x).backward()
    assert {"sin", "cos"} <= graphs["joint"]  # one graph holds the forward and the backward
    assert "sin" in graphs["forward"] and "cos" not in graphs["forward"]
    assert "cos" in graphs["backward"]
    assert torch.allclose(x.grad, torch.sin(x) + x * torch.cos(x))
    assert "one joint graph, then a partitioner splits it" in text


def test_the_first_call_returns_the_programs_result(text: str, monkeypatch) -> None:
    """The object the first call returns is the one the compiled program returned."""
    returned = []
    compile_ = Program.compile

    def watched(program):
        run = compile_(program)

        def recording(*args):
            returned.append(run(*args))
            return returned[-1]
        return recording

    monkeypatch.setattr(Program, "compile", watched)
    staged = stage(grad(lambda x: anp.sum(anp.tanh(x) * x)))
    x = np.linspace(-1.0, 1.0, 4)
    first = staged(x)
    assert len(returned) == 1 and first is returned[0]
    assert "it returns the program's result" in text


@pytest.mark.parametrize(("mean_kwargs", "var_kwargs", "merged"), [
    ({"axis": 0, "keepdims": True}, {"axis": 0, "keepdims": True}, 2),
    ({"axis": 0, "keepdims": True}, {"axis": 0, "ddof": 1}, 2),  # var's own keepdims and ddof: no matter
    ({"keepdims": True}, {}, 2),
    ({"axis": 0}, {"axis": 0, "keepdims": True}, 0),  # the mean reduces to another shape
    ({}, {}, 0),
    ({"axis": (0,), "keepdims": True}, {"axis": 0}, 0),  # the same axis written another way
    ({"axis": 1, "keepdims": True}, {"axis": 0}, 0),
])
def test_cse_merges_a_mean_and_a_var_only_as_the_page_says(mean_kwargs, var_kwargs, merged, text) -> None:
    def f(x):
        return anp.sum(anp.mean(x, **mean_kwargs)) + anp.sum(anp.var(x, **var_kwargs))

    x = np.random.default_rng(0).standard_normal((6, 3))
    program = stage(f).program(x)
    cse = next(report for report in program.passes if report.name == "common-subexpression elimination")
    assert len(cse.removed) == merged
    if merged:
        assert sorted(line.split(" = ")[1].split("(")[0] for line in cse.removed) == ["add.reduce", "divide"]
    assert "if the mean has keepdims=True and the same axis, written the same way" in text


def test_the_page_lists_every_place_staging_replaces(text: str) -> None:
    for name in ("tracer.new_box", "tracer.getval", "Box.__bool__", "ArrayBox.__array__",
                 "ArrayBox.__gt__", "notrace_primitive"):
        assert name in text


def test_the_hand_written_comparison_names_the_rules_calls(text: str) -> None:
    assert "fuses softmax" not in text
    for line in ("np.add.at(dC, Xb, demb)", "winners = np.argmax(logits, axis=1)", "= untake(", "= equal("):
        assert line in text
