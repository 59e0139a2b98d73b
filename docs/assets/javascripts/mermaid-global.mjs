// Material for MkDocs renders ```mermaid blocks with a global `mermaid` when one exists, and
// fetches Mermaid from a CDN otherwise. The ES module build keeps each diagram type in its own
// chunk, loaded on first use, so a page loads far less than the single-file build.
// A module script runs before DOMContentLoaded, hence before Material looks for the global.
import mermaid from "../vendor/mermaid/mermaid.esm.min.mjs";

window.mermaid = mermaid;
