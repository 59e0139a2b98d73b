"""Where contributions are added in the engine: a source map computed from ad_core's code."""

from ad_core.core import backward_pass
from ad_core.numpy.vjps import unbroadcast, unbroadcast_f
from ad_core.numpy.wrapper import untake
from ad_core.tracer import toposort
from bookkit import source_map

print(
    source_map(
        [
            (
                backward_pass,
                "contribution, running total → new total",
                "adds across graph edges: `add_cotangents(previous, contribution)`",
            ),
            (toposort, "output node → order", "makes every total final before it is used"),
            (unbroadcast_f, "input, raw VJP → shape-aware VJP", "captures the input's shape at trace time"),
            (
                unbroadcast,
                "broadcast cotangent → input-shaped cotangent",
                "adds across copies made by broadcasting, inside one rule",
            ),
            (
                untake,
                "cotangent of `A[index]` → cotangent of `A`",
                "adds across repeated indices with `np.add.at`, inside one rule",
            ),
        ]
    )
)
