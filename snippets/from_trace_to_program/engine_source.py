"""Staging's side of the engine, read live from `ad_core` (each section is one listing)."""
# Each section imports what it needs, because a page may run one section on its own.

# --8<-- [start:stage_node]
from ad_core.staging import StageNode
from bookkit import show_source

print(show_source(StageNode))
# --8<-- [end:stage_node]
