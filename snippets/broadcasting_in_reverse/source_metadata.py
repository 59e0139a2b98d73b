"""The live source of metadata(), the forward-pass description of a target's vector space."""

from ad_core.numpy.wrapper import metadata
from bookkit import show_source

print(show_source(metadata))
