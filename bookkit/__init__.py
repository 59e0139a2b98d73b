"""bookkit: the only place that turns engine data into page content.

Snippets print what these functions return; every function is deterministic. See the
"bookkit" section of CONTRIBUTING.md for how chapters use it.
"""

from .checks import Derivation, assert_shape_then_close, central_differences
from .claims import Rendered, UncheckedClaim, checked, given, yes_no
from .engine_views import events_table, mermaid_graph, mermaid_graphs
from .figures import svg_figure
from .formatting import (
    collapsible,
    fmt_array,
    fmt_array_inline,
    fmt_number,
    fmt_shape,
    latex_matrix,
    latex_number,
    md_table,
    observed,
    text,
)
from .snippet_modules import load_snippet_module
from .source import engine_index, show_excerpt, show_source, source_location, source_map

__all__ = [
    "Derivation",
    "Rendered",
    "UncheckedClaim",
    "assert_shape_then_close",
    "central_differences",
    "checked",
    "collapsible",
    "engine_index",
    "events_table",
    "fmt_array",
    "fmt_array_inline",
    "fmt_number",
    "fmt_shape",
    "given",
    "latex_matrix",
    "latex_number",
    "load_snippet_module",
    "md_table",
    "mermaid_graph",
    "mermaid_graphs",
    "observed",
    "show_excerpt",
    "show_source",
    "source_location",
    "source_map",
    "svg_figure",
    "text",
    "yes_no",
]
