"""Where gradient checking lives in ad_core: the source map and the live source of each piece."""

# Each named section runs on its own in the page, so it imports what it needs.
# ruff: noqa: E402

# --8<-- [start:map]
from ad_core.test_util import (
    check_grads,
    check_jvp,
    check_vjp,
    numerical_jvp,
)
from bookkit import source_map

print(source_map([
    (check_grads, "f, argnum, modes, order → checker(*args)",
     "checks each float argument, recursing to higher orders"),
    (check_jvp, "f, x → (raises or returns)", "engine's J v against central differences"),
    (check_vjp, "f, x → (raises or returns)",
     "engine's Jᵀu against central differences, through ⟨u, J v⟩ = ⟨Jᵀu, v⟩"),
    (numerical_jvp, "f, x, v → J v (approximate)", "one central difference along v"),
]))
# --8<-- [end:map]

# --8<-- [start:numerical_jvp]
from ad_core.test_util import numerical_jvp
from bookkit import show_source

print(show_source(numerical_jvp))
# --8<-- [end:numerical_jvp]

# --8<-- [start:check_vjp]
from ad_core.test_util import check_jvp, check_vjp
from bookkit import show_source

print(show_source(check_jvp))
print(show_source(check_vjp))
# --8<-- [end:check_vjp]

# --8<-- [start:check_grads]
from ad_core.test_util import _check_derivatives, check_grads
from bookkit import show_source

print(show_source(_check_derivatives))
print(show_source(check_grads))
# --8<-- [end:check_grads]
