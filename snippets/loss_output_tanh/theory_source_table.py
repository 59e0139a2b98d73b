"""Theory ↔ source: each idea of the chapter and the code that carries it, located at build time."""

import inspect

import ad_core.numpy as anp
from ad_core import core
from ad_core.extend import unbroadcast
from bookkit import md_table, source_location
from bookkit import mlp_by_hand as model


def where(obj) -> str:
    path, first, last = source_location(obj)
    return f"`{path}` lines {first}\u2013{last}"


def section(name: str) -> str:
    """The line span of a `--8<--` section of the model module."""
    source = inspect.getsource(model).splitlines()
    start = source.index(next(s for s in source if s.strip() == f"# --8<-- [start:{name}]"))
    end = source.index(next(s for s in source if s.strip() == f"# --8<-- [end:{name}]"))
    first, last = start + 2, end      # 1-based numbers of the first and last code lines
    return "`bookkit/mlp_by_hand.py` " + (f"line {first}" if first == last else f"lines {first}\u2013{last}")


rows = [
    ["two paths into one tensor add up (`+=`)",
     f"{section('accumulate')}; in the engine {where(core.backward_pass)}"],
    ["forward sum → backward copy", f"{where(anp.sum.vjps[0])}"],
    ["forward broadcast → backward sum", f"{where(unbroadcast)}"],
    ["the max path goes to the winner", f"{section('max_path')}; {where(anp.max.vjps[0])}"],
    ["picking `R[b, y_b]` → scatter $-1/B$", f"{section('loss_backward')}; {where(anp.untake)}"],
    ["$dh = dZ W_2^\\top$, $dW_2 = h^\\top dZ$", f"{section('output_layer')}; "
     f"{where(anp.dot.vjps[0])}, {where(anp.dot.vjps[1])}"],
    ["$(P - \\mathbf{1}_y)/B$", section("ce_fused")],
    ["every tensor checked, shape first", where(model.compare)],
]
assert all("line" in cell for _, cell in rows)
print(md_table(["idea", "where it is implemented"], rows))
