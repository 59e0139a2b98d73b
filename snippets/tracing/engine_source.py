"""The tracing layer's source, read live from `ad_core` (each section is one listing)."""
# Each section imports what it needs, because a page may run one section on its own.
# ruff: noqa: E402

# --8<-- [start:primitive]
from ad_core.tracer import primitive
from bookkit import show_source

print(show_source(primitive))
# --8<-- [end:primitive]

# --8<-- [start:box]
from ad_core.tracer import Box
from bookkit import show_source

print(show_source(Box))
# --8<-- [end:box]

# --8<-- [start:trace]
from ad_core.tracer import new_box, trace
from bookkit import show_source

print(show_source(trace))
print(show_source(new_box))
# --8<-- [end:trace]

# --8<-- [start:node]
from ad_core.tracer import Node
from bookkit import show_source

print(show_source(Node))
# --8<-- [end:node]

# --8<-- [start:vjp_node]
from ad_core.core import VJPNode
from bookkit import show_source

print(show_source(VJPNode.__init__))
# --8<-- [end:vjp_node]
