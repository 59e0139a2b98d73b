"""The reverse-mode core's source, read live from `ad_core` (each section is one listing)."""
# Each section imports what it needs, because a page may run one section on its own.
# ruff: noqa: E402

# --8<-- [start:toposort]
from ad_core.tracer import toposort
from bookkit import show_source

print(show_source(toposort))
# --8<-- [end:toposort]

# --8<-- [start:backward_pass]
from ad_core.core import backward_pass
from bookkit import show_source

print(show_source(backward_pass))
# --8<-- [end:backward_pass]

# --8<-- [start:make_vjp]
from ad_core.core import make_vjp
from bookkit import show_source

print(show_source(make_vjp))
# --8<-- [end:make_vjp]

# --8<-- [start:grad]
from ad_core import grad
from ad_core.differential_operators import _grad, _output_seed
from bookkit import show_source

print(show_source(grad))
print(show_source(_grad))
print(show_source(_output_seed))
# --8<-- [end:grad]
