"""Count the engine's work without its recorder: node constructors and rule calls, patched.

The recorder (`ad_core.recorder.record`) emits events from inside the engine; this counts the
same work from outside, by wrapping the node classes, so a count printed from the recorder can
be checked against a count made another way.
"""

from __future__ import annotations

import contextlib
from collections import Counter

from ad_core.core import JVPNode, VJPNode


@contextlib.contextmanager
def counted_work():
    """Within the block, count nodes created, VJP closure calls and JVP rule calls."""
    counts: Counter = Counter()
    vjp_init, jvp_init = VJPNode.__init__, JVPNode.__init__

    def counting(closure):
        def call(g):
            counts["vjp_calls"] += 1
            return closure(g)

        return call

    def vjp_node(self, value, fun, args, kwargs, parent_argnums, parents):
        vjp_init(self, value, fun, args, kwargs, parent_argnums, parents)
        counts["nodes"] += 1
        self.vjps = tuple(counting(closure) for closure in self.vjps)

    def jvp_node(self, value, fun, args, kwargs, parent_argnums, parents):
        jvp_init(self, value, fun, args, kwargs, parent_argnums, parents)
        counts["nodes"] += 1
        counts["jvp_calls"] += len(parent_argnums)  # one rule per traced argument

    VJPNode.__init__, JVPNode.__init__ = vjp_node, jvp_node
    try:
        yield counts
    finally:
        VJPNode.__init__, JVPNode.__init__ = vjp_init, jvp_init
