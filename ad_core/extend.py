"""Everything a rule author needs, in one import: `from ad_core.extend import primitive, defvjp, ...`."""

from .core import (
    JVPNode,
    VJPNode,
    VSpace,
    def_linear,
    defjvp,
    defjvp_argnum,
    defjvp_argnums,
    defvjp,
    defvjp_argnum,
    defvjp_argnums,
    vspace,
)
from .numpy.jvps import broadcast
from .numpy.vjps import unbroadcast, unbroadcast_f
from .numpy.wrapper import metadata
from .tracer import Box, getval, isbox, notrace_primitive, primitive

__all__ = [
    "Box",
    "JVPNode",
    "VJPNode",
    "VSpace",
    "broadcast",
    "def_linear",
    "defjvp",
    "defjvp_argnum",
    "defjvp_argnums",
    "defvjp",
    "defvjp_argnum",
    "defvjp_argnums",
    "getval",
    "isbox",
    "metadata",
    "notrace_primitive",
    "primitive",
    "unbroadcast",
    "unbroadcast_f",
    "vspace",
]
