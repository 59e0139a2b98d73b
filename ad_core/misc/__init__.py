"""`ad_core.misc`: the helpers HIPS/autograd users import next to the engine.

`flatten` turns a nested list, tuple or dict of arrays (a model's parameters) into one vector
and back; `optimizers` has `sgd`, `rmsprop` and `adam`, which optimize such containers by
working on the flat vector; `const_graph` traces a function once and replays its primitives
on later calls. They have the names and signatures of `autograd.misc` 1.9.1, and the tests
compare their results with autograd's, so code written for autograd keeps working when only the
import changes.
"""

from .flatten import flatten, flatten_func
from .tracers import const_graph

__all__ = ["const_graph", "flatten", "flatten_func"]
