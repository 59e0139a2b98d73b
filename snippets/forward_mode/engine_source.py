"""Where forward mode lives in ad_core: the source map and the live source of each piece."""

# Each named section runs on its own in the page, so it imports what it needs.
# ruff: noqa: E402

# --8<-- [start:map]
from ad_core import differential_operators
from ad_core.core import JVPNode, def_linear, defjvp, make_jvp
from ad_core.numpy.jvps import broadcast, broadcast_to_output
from bookkit import source_map

print(source_map([
    (differential_operators.make_jvp, "f, argnum → (x → jvp)",
     "fixes the other arguments, checks the argument's dtype"),
    (make_jvp, "f, x → (v → (f(x), J v))", "starts one forward trace per direction"),
    (JVPNode, "value, parents' tangents → node with tangent `g`",
     "applies each JVP rule as the node is created"),
    (defjvp, "primitive, one rule per argument → rules stored on the primitive",
     "registers forward-mode rules; `None` means zero"),
    (def_linear, "primitive → JVP rules", "the JVP of a linear map is the map"),
    (broadcast_to_output, "tangent, ans → tangent of ans's shape", "used by binary rules"),
    (broadcast, "tangent, target metadata → expanded tangent", "forward twin of unbroadcast"),
]))
# --8<-- [end:map]

# --8<-- [start:jvpnode]
from ad_core.core import JVPNode
from bookkit import show_source

print(show_source(JVPNode))
# --8<-- [end:jvpnode]

# --8<-- [start:make_jvp]
from ad_core.core import make_jvp
from bookkit import show_source

print(show_source(make_jvp))
# --8<-- [end:make_jvp]

# --8<-- [start:defjvp]
from ad_core.core import defjvp
from bookkit import show_source

print(show_source(defjvp))
# --8<-- [end:defjvp]

# --8<-- [start:broadcast]
from ad_core.numpy.jvps import broadcast, broadcast_to_output
from bookkit import show_source

print(show_source(broadcast))
print(show_source(broadcast_to_output))
# --8<-- [end:broadcast]
