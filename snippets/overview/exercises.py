"""Self-test for the overview; every answer is computed from the live package."""

import ad_core
from ad_core import numpy as anp
from ad_core.core import backward_pass
from ad_core.tracer import toposort
from bookkit import collapsible, source_location

# 1. Where to look for the backward pass.
path, first, last = source_location(backward_pass)
topo_path, topo_first, _ = source_location(toposort)
print(
    collapsible(
        "1. You want to read what happens to a cotangent at a node with two children. Which "
        "file and function do you open?",
        f"`{path}`, function `backward_pass` (lines {first} to {last}). It calls `toposort` from "
        f"`{topo_path}` (line {topo_first}) for the order, then adds contributions itself. "
        "[The backward pass](backward-pass.md) and [Fan-out](fan-out.md) read both.",
    )
)

# 2. How much of NumPy can be differentiated.
wrapped = [getattr(anp, name) for name in anp.__all__ if callable(getattr(anp, name, None))]
primitives = [f for f in wrapped if getattr(f, "is_primitive", False)]
with_vjp = [f for f in primitives if getattr(f, "vjps", None)]
with_jvp = [f for f in primitives if getattr(f, "jvps", None)]
no_derivative = [f for f in wrapped if getattr(f, "is_primitive", None) is False]
assert len(with_vjp) <= len(primitives) <= len(wrapped)
assert anp.sin in with_vjp and anp.argmax in no_derivative
print(
    collapsible(
        "2. How many callables does `ad_core.numpy` export, and how many can carry a derivative "
        "in each mode?",
        f"{len(wrapped)} callables. {len(primitives)} are traced primitives, of which "
        f"{len(with_vjp)} have VJP rules (reverse mode) and {len(with_jvp)} have JVP rules "
        f"(forward mode). {len(no_derivative)} are wrapped as functions without a derivative "
        f"(shapes, comparisons, rounding, `argmax`...), and the other "
        f"{len(wrapped) - len(primitives) - len(no_derivative)} are NumPy's types and classes, "
        "passed through unchanged. A primitive without a rule still computes "
        "its value; it raises an error naming itself only when a derivative must flow through it.",
    )
)

# 3. What the top-level package exports.
exported = sorted(ad_core.__all__)
assert "grad" in exported and "make_vjp" in exported
print(
    collapsible(
        "3. Which names does `import ad_core` give you?",
        ", ".join(f"`{name}`" for name in exported)
        + ". The rest lives in `ad_core.numpy` (the traced NumPy), `ad_core.extend` (for rule "
        "authors), `ad_core.inspect` (the recorder) and `ad_core.test_util`.",
    )
)
