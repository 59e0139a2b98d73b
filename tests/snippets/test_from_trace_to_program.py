"""The built chapter "From trace to program" shows the staged programs and what they compute."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import ad_core.numpy as anp
from ad_core import grad, stage, value_and_grad
from ad_core.staging import Program, Ref, StageNode, StagingError, fold_shape_only
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
    """A print inside shows a JAX tracer's shape and dtype but a staging box's values; neither
    system lets np.asarray take a value out of the trace."""
    import jax

    shown_by_jax, shown_by_ad_core = [], []

    def jax_f(x):
        shown_by_jax.append(str(x))
        with pytest.raises(jax.errors.TracerArrayConversionError):
            np.asarray(x)
        return x * 2.0

    def ad_core_f(x):
        shown_by_ad_core.append(str(x))
        return x * 2.0

    def ad_core_leak(x):
        return anp.sum(np.asarray(x))

    x = np.array([0.0, 1.0, 2.0])
    with jax.enable_x64(False):  # JAX's default, which other tests of the suite change
        jax.jit(jax_f)(x)
    stage(ad_core_f)(x)
    assert shown_by_jax == ["JitTracer(float32[3])"]
    assert repr(x) in shown_by_ad_core[0]  # "ArrayBox(array([0., 1., 2.]), trace=0)"
    with pytest.raises(StagingError, match="converted to a plain NumPy array"):
        stage(ad_core_leak)(x)
    assert "a print inside the function shows JitTracer(float32[3])" in text
    assert ("np.asarray of a JAX tracer raises TracerArrayConversionError, and of a staging box a "
            "StagingError") in text


def test_make_jaxpr_returns_a_closed_jaxpr_whose_str_is_the_listing(text: str) -> None:
    import jax
    from jax.extend.core import ClosedJaxpr

    jaxpr = jax.make_jaxpr(lambda x: x * 2.0)(np.ones(3))
    assert isinstance(jaxpr, ClosedJaxpr)
    assert str(jaxpr).startswith("{ lambda") and "mul" in str(jaxpr)
    assert "jax.make_jaxpr returns it (its str is the listing)" in text


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


def _partitioned(partitioner):
    """The joint graph's ops, the forward's and backward's ops, and what the backward reads, for
    sum(cos(sin(x)) x) split by `partitioner` under AOTAutograd."""
    import torch
    from functorch.compile import aot_function, make_boxed_func

    graphs = {}

    def ops(module):
        return [str(node.target).split(".")[1] for node in module.graph.nodes if node.op == "call_function"]

    def compiler(name):
        def compile_(module, inputs):
            graphs[name] = ops(module)
            graphs[name + " inputs"] = [node.name for node in module.graph.nodes if node.op == "placeholder"]
            return make_boxed_func(module.forward)
        return compile_

    def partition(joint, joint_inputs, **kwargs):
        graphs["joint"] = ops(joint)
        return partitioner(joint, joint_inputs, **kwargs)

    f = aot_function(lambda x: (torch.cos(torch.sin(x)) * x).sum(), fw_compiler=compiler("forward"),
                     bw_compiler=compiler("backward"), partition_fn=partition)
    x = torch.linspace(-1.0, 1.0, 4, dtype=torch.float64, requires_grad=True)
    f(x).backward()
    assert torch.allclose(x.grad, torch.cos(torch.sin(x)) - x * torch.sin(torch.sin(x)) * torch.cos(x))
    return graphs


def test_aot_autograd_partitions_one_joint_graph_into_a_forward_and_a_backward_graph(text: str) -> None:
    pytest.importorskip("torch")
    from functorch.compile import default_partition, min_cut_rematerialization_partition

    saved = _partitioned(default_partition)
    assert {"sin", "cos"} <= set(saved["joint"])  # one graph holds the forward and the backward
    # default_partition: the backward reads sin(x) and cos(sin(x)) as the forward saved them.
    assert saved["backward inputs"] == ["primals_1", "sin", "cos", "tangents_1"]
    assert saved["backward"].count("sin") == 1 and saved["backward"].count("cos") == 1  # the rules' own
    # The min-cut partitioner saves only x and recomputes sin and cos in the backward.
    recomputed = _partitioned(min_cut_rematerialization_partition)
    assert recomputed["backward inputs"] == ["primals_1", "tangents_1"]
    assert recomputed["backward"].count("sin") == 2 and recomputed["backward"].count("cos") == 2
    assert "one joint graph, then a partitioner splits it" in text
    assert "either saved between them (default_partition) or, with the min-cut partitioner" in text


def test_torch_compile_partitions_with_min_cut_by_default(text: str, monkeypatch) -> None:
    """torch.compile's default backend, Inductor, calls min_cut_rematerialization_partition
    (torch/_inductor/compile_fx.py, partition_fn), and its backward then reads only x."""
    torch = pytest.importorskip("torch")
    from torch._functorch import config as functorch_config
    from torch._inductor import compile_fx
    from torch._inductor import config as inductor_config

    backward_inputs = []
    min_cut = compile_fx.min_cut_rematerialization_partition

    def watched(*args, **kwargs):
        forward, backward = min_cut(*args, **kwargs)
        backward_inputs.append([node.name for node in backward.graph.nodes if node.op == "placeholder"])
        return forward, backward

    monkeypatch.setattr(compile_fx, "min_cut_rematerialization_partition", watched)
    torch._dynamo.reset()
    # Without caches, so that a program compiled on an earlier run does not skip the partitioner.
    with inductor_config.patch(fx_graph_cache=False), functorch_config.patch(enable_autograd_cache=False):
        f = torch.compile(lambda x: (torch.cos(torch.sin(x)) * x).sum())
        x = torch.linspace(-1.0, 1.0, 4, dtype=torch.float64, requires_grad=True)
        f(x).backward()
    torch._dynamo.reset()
    assert backward_inputs == [["primals_1", "tangents_1"]]
    assert torch.allclose(x.grad, torch.cos(torch.sin(x)) - x * torch.sin(torch.sin(x)) * torch.cos(x))
    assert "the min-cut partitioner that torch.compile uses by default, some are recomputed" in text


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
    assert "it gives every call its result, the first included" in text
    assert "later calls with the same key run only the program" in text


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


def test_folding_saves_calls_not_memory(text: str) -> None:
    """The folding example's peak bytes leave out the constants folding makes, which the
    compiled program holds as long as it lives; counting them, the folded program holds more."""
    x = np.linspace(-1.0, 1.0, 4)
    raw = stage(lambda x: anp.sum(x * anp.ones_like(x) + anp.zeros_like(x))).raw_program(x)
    folded = fold_shape_only(raw)
    run = folded.compile()
    held = [value for name, value in run.__globals__.items() if name in folded.constants]
    assert not raw.constants and len(held) == 2  # ones_like(i0) and zeros_like(i0), now constants
    constant_bytes = sum(value.nbytes for value in held)
    assert folded.n_calls < raw.n_calls and folded.peak_bytes < raw.peak_bytes
    assert folded.peak_bytes + constant_bytes > raw.peak_bytes
    assert "folding saves calls and allocations on every replay, not memory" in text


def test_a_buffer_is_reused_only_from_an_elementwise_ufunc_of_the_same_shape_and_dtype(text: str) -> None:
    """Each argument of an elementwise call that has the result's shape and dtype and is dead
    after it (or kept by the caller: an input or an output), by what made it: only the results of
    elementwise ufuncs give their buffer."""
    a, x = np.ones((3, 3)), np.linspace(-1.0, 1.0, 3)

    def dying_arguments(fun, *args):
        program = stage(fun).program(*args)
        made_by = {op.out: op.name for op in program.ops} | dict.fromkeys(program.inputs, "an input")
        last, kept = program.last_uses(), program.kept()
        reused, not_reused = set(), set()
        for index, op in enumerate(program.ops):
            if isinstance(op.fun, np.ufunc) and program.info[op.out].shape:
                for var in {arg.var for arg in op.args if isinstance(arg, Ref)}:
                    same = (program.info[var].shape, program.info[var].dtype) == (
                        program.info[op.out].shape, program.info[op.out].dtype)
                    if same and (last.get(var) == index or var in kept):
                        (reused if op.reuses == var else not_reused).add(made_by[var])
        return reused, not_reused

    assert dying_arguments(lambda x: anp.exp(anp.sin(x)), x) == ({"sin"}, {"an input"})
    assert dying_arguments(lambda x: anp.exp(x), x) == (set(), {"an input"})
    output = dying_arguments(lambda x: (anp.sin(x), anp.exp(anp.sin(x))), x)
    assert output == (set(), {"an input", "sin"})  # sin(x) is an output
    assert dying_arguments(lambda x: anp.exp(anp.dot(a, x)), x) == (set(), {"dot"})
    assert dying_arguments(lambda a: anp.exp(anp.sum(a, axis=0)), a) == (set(), {"add.reduce"})
    view = dying_arguments(lambda a: anp.exp(anp.transpose(anp.sin(a))), a)
    assert view == (set(), {"an input", "ndarray.transpose"})
    reused, not_reused = dying_arguments(grad(lambda x: anp.sum(anp.exp(x[:2])) + anp.sum(anp.sin(x))), x)
    assert "untake" in not_reused and "untake" not in reused
    # Of another shape or dtype, a dying argument is not a candidate at all.
    assert dying_arguments(lambda x, a: anp.sin(x) + anp.cos(a), x, a) == ({"cos"}, {"an input"})  # not sin's
    assert stage(lambda x: anp.sin(x) > 0.0).program(x).ops[-1].reuses is None
    assert "was itself made by an elementwise ufunc, so never an input, a constant, an output, a view" in text


def test_what_the_direct_calls_skip_is_what_the_page_says(text: str) -> None:
    """sum, mean, var, max and min check type and dtype, reshape the type only; transpose is
    NumPy's public function and indexing a Python function around A[index]."""
    import sys

    from ad_core.numpy.wrapper import DIRECT_IMPLEMENTATIONS

    numpy_package = str(Path(np.__file__).parent)

    def numpy_frames(call, *args):
        entered = []

        def hook(frame, event, arg):
            if event == "call" and frame.f_code.co_filename.startswith(numpy_package):
                entered.append(frame.f_code.co_name)
        sys.setprofile(hook)
        try:
            call(*args)
        finally:
            sys.setprofile(None)
        return entered

    class Sub(np.ndarray):
        pass

    floats, ints = np.ones((2, 3)), np.ones((2, 3), dtype=np.int64)
    for fun in (np.sum, np.mean, np.var, np.max, np.min):
        direct = DIRECT_IMPLEMENTATIONS[fun]
        assert numpy_frames(direct, floats) == []
        assert fun.__name__ in numpy_frames(direct, ints)  # the dtype sends it to NumPy's own
        assert fun.__name__ in numpy_frames(direct, floats.view(Sub))  # and so does the type
    reshape = DIRECT_IMPLEMENTATIONS[np.reshape]
    assert numpy_frames(reshape, ints, (3, 2)) == []  # any dtype
    assert "reshape" in numpy_frames(reshape, floats.view(Sub), (3, 2))
    assert anp.transpose.fun is np.transpose and isinstance(np.transpose, type(np.dot))
    assert getattr(np.transpose, "__wrapped__", None) is not None  # a dispatcher around its implementation
    getitem = anp.array_getitem.fun
    assert inspect.getsource(getitem).rstrip().endswith("return A[index]")
    assert "its reshape checks the type; indexing is a Python function around A[index]" in text
