"""The built chapter "From trace to program" shows the staged programs and what they compute."""

from __future__ import annotations

import inspect

import numpy as np

import ad_core.numpy as anp
from ad_core import grad, stage, value_and_grad
from ad_core.staging import StageNode
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
