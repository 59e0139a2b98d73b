"""Theory ↔ source for chapter 14, located at build time."""

import inspect

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import md_table, source_location
from bookkit import mlp_by_hand as model

DASH = "\u2013"


def where(obj) -> str:
    path, first, last = source_location(obj)
    return f"`{path}` lines {first}{DASH}{last}"


def section(name: str) -> str:
    source = inspect.getsource(model).splitlines()
    start = next(i for i, s in enumerate(source) if s.strip() == f"# --8<-- [start:{name}]")
    end = next(i for i, s in enumerate(source) if s.strip() == f"# --8<-- [end:{name}]")
    first, last = start + 2, end       # 1-based numbers of the first and last code lines
    lines = f"line {first}" if first == last else f"lines {first}{DASH}{last}"
    return f"`bookkit/mlp_by_hand.py` {lines}"


rows = [
    ["BatchNorm backward, one atomic step at a time", section("batchnorm_backward")],
    ["two `+=`: `bndiff` and `hprebn` are used twice",
     f"{section('batchnorm_backward')}; {where(core.backward_pass)}"],
    ["BatchNorm backward as one formula", section("batchnorm_fused")],
    ["forward sum over the batch → backward copy", where(anp.sum.vjps[0])],
    ["forward broadcast of a `(1, H)` row → backward sum", where(unbroadcast)],
    ["input layer: $dW_1$, $db_1$, $d\\,\\text{embcat}$",
     f"{section('input_layer')}; {where(anp.dot.vjps[0])}, {where(anp.dot.vjps[1])}"],
    ["concatenation undone by a reshape", section("input_layer")],
    ["embedding backward adds once per use", f"{section('embedding')}; {where(anp.untake)}"],
    ["training with hand-written gradients only", section("training_loop")],
    ["BatchNorm statistics calibrated after training", where(model.calibrate_batchnorm)],
]
assert all("line" in cell for _, cell in rows)
print(md_table(["idea", "where it is implemented"], rows))
