"""The engine lines this chapter reads: where a JVP rule meets the tangent, and `def_linear`."""

# ruff: noqa: E402

# --8<-- [start:jvpnode]
from ad_core.core import JVPNode
from bookkit import show_excerpt

print(show_excerpt(JVPNode, r"for argnum, parent in zip", r"self\.g = tangent",
                   full_listing="[Forward mode](forward-mode.md)"))
# --8<-- [end:jvpnode]

# --8<-- [start:def_linear]
from ad_core.core import def_linear
from bookkit import show_excerpt

print(show_excerpt(def_linear, r"defjvp_argnum\(", r"^    \)",
                   full_listing="[Writing VJP rules](vjp-rules.md)"))
# --8<-- [end:def_linear]
