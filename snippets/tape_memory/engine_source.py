"""Where the tape's memory and checkpointing live in ad_core: the source map and the live source."""

# Each named section runs on its own in the page, so it imports what it needs.
# ruff: noqa: E402

# --8<-- [start:map]
from ad_core import checkpoint
from ad_core.core import VJPNode, backward_pass
from bookkit import source_map

print(source_map([
    (VJPNode, "value, rule makers, args → node",
     "keeps parents, shape and VJP closures; each closure keeps what its rule reads"),
    (backward_pass, "g, end node → root's cotangent", "reads the closures; frees none of the tape"),
    (checkpoint, "f → checkpointed f", "one node whose closure holds the block's inputs and reruns it"),
]))
# --8<-- [end:map]

# --8<-- [start:checkpoint]
from ad_core import checkpoint
from bookkit import show_source

print(show_source(checkpoint))
# --8<-- [end:checkpoint]
