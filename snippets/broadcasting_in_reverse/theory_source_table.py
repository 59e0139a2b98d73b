"""Theory to source: each idea of the chapter, and the line of ad_core that implements it."""

import inspect

from ad_core.core import backward_pass
from ad_core.numpy.jvps import broadcast
from ad_core.numpy.vjps import grad_sum, unbroadcast, unbroadcast_f
from bookkit import checked, md_table
from bookkit.source import source_line

# (idea, object, a pattern for the line that implements it): line and text are looked up.
ideas = [
    ("the target's vector space, fixed in the forward pass", unbroadcast_f,
     r"target_meta = anp\.metadata\(target\)"),
    ("$B^\\top$ removes the axes broadcasting added", unbroadcast,
     r"x = anp\.sum\(x, axis=broadcast_idx\)"),
    ("$B^\\top$ folds a stretched axis back and keeps it (`keepdims`)", unbroadcast,
     r"anp\.sum\(x, axis=axis, keepdims=True\)"),
    ("a real input has a real cotangent", unbroadcast, r"x = anp\.real\(x\)"),
    ("the shape of a cotangent is part of the contract", backward_pass,
     r"if .*contribution.* != parent\.shape"),
    ("contributions along different graph edges add up", backward_pass,
     r"add_cotangents\(previous, contribution\)"),
    ("$B$ itself, applied to a tangent (forward mode)", broadcast,
     r"x = anp\.repeat\("),
    ("the VJP of `sum` is a broadcast", grad_sum, r"anp\.broadcast_to\("),
]

rows = []
for idea, obj, pattern in ideas:
    path, line, code = source_line(obj, pattern)
    # The line number found another way: the function's first line plus the offset of the text.
    lines, first = inspect.getsourcelines(obj)
    offset = next(i for i, source in enumerate(lines) if source.strip() == code)
    rows.append([idea, f"`{obj.__name__}`",
                 checked(line, against=first + offset, shown_as=lambda n, path=path: f"`{path}:{n}`"),
                 f"`{code}`"])

print(md_table(["idea", "symbol", "file:line", "code"], rows))
