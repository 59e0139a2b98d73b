"""What a rule author imports: ad_core.extend, and where each name comes from."""

# --8<-- [start:map]
import ad_core.extend as extend
from bookkit import source_map

print(source_map([
    (extend.primitive, "raw function → traced primitive", "the engine records calls, never looks inside"),
    (extend.defvjp, "primitive, makers → reverse rules", "one VJP maker per argument"),
    (extend.defjvp, "primitive, rules → forward rules", "one JVP rule per argument"),
    (extend.unbroadcast_f, "target, raw VJP → shape-aware VJP", "binary rules with broadcasting"),
    (extend.vspace, "value → its vector space", "zeros, shapes, dtypes for rules"),
]))
print(f"\n`ad_core.extend` exports: {', '.join(f'`{name}`' for name in sorted(extend.__all__))}.")
assert {"primitive", "defvjp", "defjvp", "def_linear", "unbroadcast_f", "vspace"} <= set(extend.__all__)
# --8<-- [end:map]
