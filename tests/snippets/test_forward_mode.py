"""The chapter "Forward mode": the built page shows the tangents and the JVP/VJP agreement."""

from __future__ import annotations

import re

import autograd
import autograd.numpy as agnp
import numpy as np

from bookkit import fmt_array
from bookkit.testing import table_rows


def test_partial_derivatives_at_2_5_match_finite_differences(text: str) -> None:
    def f(x1: float, x2: float) -> float:
        return np.log(x1) + x1 * x2 - np.sin(x2)

    step = 1e-6
    d1 = (f(2 + step, 5) - f(2 - step, 5)) / (2 * step)
    d2 = (f(2, 5 + step) - f(2, 5 - step)) / (2 * step)
    rows = [row for row in table_rows(text) if len(row) == 5 and ("(1, 0)" in row[0] or "(0, 1)" in row[0])]
    assert len(rows) == 2
    for row, expected in zip(rows, [d1, d2], strict=True):
        assert row[1] == fmt_array(f(2.0, 5.0))
        assert abs(float(row[2]) - expected) < 1e-4 and row[2] == row[4], row


def test_tangent_trace_comes_from_jvp_events_only(text: str) -> None:
    trace = [row for row in table_rows(text) if len(row) == 8 and row[1] in {"jvp", "forward"}]
    assert trace and not any(row[1] in {"visit", "accumulate"} for row in table_rows(text))
    log_row = next(row for row in trace if row[1] == "jvp" and row[3] == "log")
    assert float(log_row[7]) == 0.5  # tangent 1 divided by x1 = 2


def test_inner_product_identity_rows_agree_with_autograd(text: str) -> None:
    weights = np.random.default_rng(80).standard_normal((3, 4))

    def layer(x):
        return agnp.tanh(weights @ x) * x[:3] + agnp.sin(x[3])

    rng = np.random.default_rng(8)
    rows = [row for row in table_rows(text) if len(row) == 5 and re.fullmatch(r"\d", row[0])]
    assert len(rows) == 5
    for row in rows:
        x, u, v = rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal(4)
        reference = float(np.dot(u, autograd.make_jvp(layer)(x)(v)[1]))
        assert abs(float(row[1]) - reference) < 1e-9 and abs(float(row[2]) - reference) < 1e-9
        assert abs(float(row[4]) - reference) < 1e-7  # central differences, shown to 8 digits


def test_same_wrong_rule_in_both_modes_passes_the_identity_and_fails_check_grads(text: str) -> None:
    rows = {row[0]: row[1:] for row in table_rows(text)
            if len(row) == 5 and row[0].startswith(("anp.sin", "my_sin"))}
    assert rows["anp.sin (the engine's rule)"] == ["yes", "yes", "passes", "passes"]
    assert rows["my_sin (2 cos x in both modes)"] == ["yes", "no", "fails", "fails"]
    assert "cheapest test" not in text


def test_exercise_counts_the_jvp_rows_of_the_tangent_trace(text: str) -> None:
    # The self-test's f is the minimal example's f: its count of JVP rules is the table's.
    trace = [row for row in table_rows(text) if len(row) == 8 and row[1] == "jvp" and row[2].isdigit()]
    count = re.search(r"The forward trace ran (\d+) JVP rules", text)
    assert count and int(count.group(1)) == len(trace)
    assert re.search(r"the forward-mode output only itself \(1\)", text)


def test_broadcast_stages_and_wrong_rules_are_shown(text: str) -> None:
    stages = [row[6] for row in table_rows(text) if len(row) == 8 and row[1] == "broadcast"]
    assert stages == ["enter", "expand_dims", "repeat"]
    assert "J v differs" in text
    assert "JVP has the wrong shape" in text


def test_theory_table_quotes_code_jvpnode_really_runs() -> None:
    """The table said the paths into a node are summed by `tangent + contribution`; the
    constructor calls `add_cotangents`, which adds lists, tuples and dicts element by element
    where `+` would join them. Every code span the table puts in `JVPNode.__init__` is in it."""
    import inspect
    from pathlib import Path

    from ad_core.core import JVPNode

    page = Path(__file__).parents[2] / "docs" / "part1" / "forward-mode.md"
    rows = [line for line in page.read_text(encoding="utf-8").splitlines()
            if "in `JVPNode.__init__`" in line]
    source = inspect.getsource(JVPNode.__init__)
    quoted = [span for row in rows for span in re.findall(r"`([^`]+)` in `JVPNode", row)]
    assert quoted, rows
    for span in quoted:
        assert span in source, span


def test_dual_numbers_do_the_engines_operations_bit_for_bit() -> None:
    """The page says the engine's rules for log, sin and multiply do the same operations as the
    dual-number class, so the tangents agree in every bit. Compared exactly on many random
    points, where a rule written another way (g * (1 / x), say) would differ on some."""
    from ad_core import make_jvp
    from ad_core import numpy as anp
    from bookkit import load_snippet_module

    dual = load_snippet_module("snippets/forward_mode/_dual.py")
    rng = np.random.default_rng(11)
    for a, b, c, d in rng.uniform(0.1, 10.0, (500, 4)):
        assert dual.log(dual.Dual(a, b)).tangent == make_jvp(anp.log)(a)(b)[1]
        assert dual.sin(dual.Dual(a, b)).tangent == make_jvp(anp.sin)(a)(b)[1]
        product = make_jvp(lambda x: x[0] * x[1])(np.array([a, c]))(np.array([b, d]))[1]
        assert (dual.Dual(a, b) * dual.Dual(c, d)).tangent == product


def test_multiply_has_one_jvp_rule_run_per_argument_before_the_recorder_logs(text: str) -> None:
    """The minimal example says: `multiply` has one JVP rule, from `def_linear`, applied once per
    traced argument; the recorder logs the `jvp` rows and then the `forward` row when the
    constructor returns; the rules ran before that, inside the constructor. A spy in place of
    the rule sees each of those, and fails if the rows were logged while the rules ran."""
    import sys

    from ad_core import make_jvp
    from ad_core import numpy as anp
    from ad_core.core import JVPNode
    from ad_core.recorder import record

    sentence = "multiply has one JVP rule, from def_linear, applied once per traced argument"
    assert sentence in " ".join(text.split())
    assert anp.multiply.jvp_every_argnum is not None and set(anp.multiply.vjps) == {0, 1}
    rule, cached = anp.multiply.jvp_every_argnum, dict(anp.multiply.jvps)
    calls = []

    def spy(argnum, g, ans, args, kwargs):
        frame, in_constructor = sys._getframe(), False
        while frame is not None and not in_constructor:
            in_constructor, frame = frame.f_code is JVPNode.__init__.__code__, frame.f_back
        calls.append((argnum, len(recording.events), in_constructor))
        return rule(argnum, g, ans, args, kwargs)

    anp.multiply.jvp_every_argnum = spy
    anp.multiply.jvps.clear()  # bound copies of the old rule, made on first use
    try:
        with record() as recording:
            make_jvp(lambda x: anp.log(x[0]) + x[0] * x[1])(np.array([2.0, 5.0]))(np.array([1.0, 0.0]))
    finally:
        anp.multiply.jvp_every_argnum = rule
        anp.multiply.jvps.clear()
        anp.multiply.jvps.update(cached)
    assert [argnum for argnum, _, _ in calls] == [0, 1]
    assert all(in_constructor for _, _, in_constructor in calls)
    rows = [(i, e.kind, e.argnum) for i, e in enumerate(recording.events) if e.primitive == "multiply"]
    assert [(kind, argnum) for _, kind, argnum in rows] == [("jvp", 0), ("jvp", 1), ("forward", None)]
    assert max(logged for _, logged, _ in calls) <= rows[0][0]  # nothing of multiply logged yet


def test_sin_of_a_dual_follows_from_its_taylor_series_which_the_class_cannot_sum() -> None:
    """The page: sin(a + bε) = sin a + b cos a ε follows from ε² = 0 through the Taylor series.
    The class's own + and * on a truncated series approach that tangent as terms are added, but
    a truncation is not `sin`; the class has no series of its own, which is why it defines it."""
    import math

    from bookkit import load_snippet_module

    dual = load_snippet_module("snippets/forward_mode/_dual.py")
    a, b = 1.3, 0.7
    errors = []
    for terms in (3, 6, 12):
        x, power, series = dual.Dual(a, b), dual.Dual(a, b), dual.Dual(0.0)
        for k in range(terms):  # sin x = sum (-1)^k x^(2k+1) / (2k+1)!
            series = series + power * ((-1) ** k / math.factorial(2 * k + 1))
            power = power * x * x
        errors.append(abs(series.tangent - b * math.cos(a)))
    assert errors[0] > 1e-3 and errors[0] > errors[1] > errors[2] and errors[2] < 1e-14
    assert dual.sin(dual.Dual(a, b)).tangent == b * math.cos(a)


def test_trace_levels_live_in_trace_and_primitive_not_in_jvpnode() -> None:
    """'trace levels from `trace` and `primitive`': the level is handed out by `trace` and read
    by `primitive`; `JVPNode` never sees one, the same as `VJPNode`."""
    import inspect

    from ad_core import tracer
    from ad_core.core import JVPNode, VJPNode

    assert "trace_stack.new_trace()" in inspect.getsource(tracer.trace)
    assert "_trace" in inspect.getsource(tracer.primitive)
    for node_type in (JVPNode, VJPNode):
        assert "_trace" not in inspect.getsource(node_type) and "level" not in inspect.getsource(node_type)
