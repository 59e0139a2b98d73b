"""Open every built page in Debian's Chromium and check what a reader would see.

A page fails if it requests anything from a host other than 127.0.0.1, logs a console error
or throws, leaves math unrendered (every `.arithmatex` must hold a `.katex`, none may hold a
`.katex-error`), or leaves a Mermaid block that did not become an SVG. A light and a dark
screenshot of each page go to `test-artifacts/screenshots/`.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

REPO_ROOT = Path(__file__).resolve().parent.parent
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_HOST = "127.0.0.1"
RENDER_TIMEOUT_MS = 20_000

# Material renders each Mermaid diagram into a *closed* shadow root; opening it lets the test
# look for the SVG. This runs before any page script.
OPEN_SHADOW_ROOTS = """
const attachShadow = Element.prototype.attachShadow;
Element.prototype.attachShadow = function (options) {
  return attachShadow.call(this, Object.assign({}, options, { mode: "open" }));
};
"""

RENDER_STATE = """
() => {
  const math = [...document.querySelectorAll(".arithmatex")];
  const diagrams = [...document.querySelectorAll("div.mermaid")];
  return {
    math: math.length,
    mathRendered: math.filter((e) => e.querySelector(".katex")).length,
    mathErrors: document.querySelectorAll(".katex-error").length,
    unrenderedMath: math.filter((e) => !e.querySelector(".katex"))
      .slice(0, 3).map((e) => e.textContent.slice(0, 120)),
    pendingMermaid: document.querySelectorAll("pre.mermaid").length,
    mermaid: diagrams.length,
    mermaidSvgs: diagrams.filter((e) => e.shadowRoot && e.shadowRoot.querySelector("svg")).length,
  };
}
"""

ALL_RENDERED = """
() => {
  const math = [...document.querySelectorAll(".arithmatex")];
  const diagrams = [...document.querySelectorAll("div.mermaid")];
  return math.every((e) => e.querySelector(".katex"))
    && document.querySelectorAll("pre.mermaid").length === 0
    && diagrams.every((e) => e.shadowRoot && e.shadowRoot.querySelector("svg"));
}
"""


def _page_urls(site: Path) -> list[str]:
    urls = []
    for index in sorted(site.rglob("index.html")):
        relative = index.parent.relative_to(site).as_posix()
        if relative == "." or relative == "":
            urls.append("")
        elif not relative.startswith(("assets", "search")):
            urls.append(relative + "/")
    return urls


SITE_URL = "http://127.0.0.1:8000/"  # mkdocs.yml's site_url, written into sitemap.xml


@pytest.fixture(scope="module")
def site_server(built_site: Path) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, on a free port, from a background thread."""
    server = http.server.ThreadingHTTPServer((LOCAL_HOST, 0), None)
    base_url = f"http://{LOCAL_HOST}:{server.server_address[1]}/"
    server.RequestHandlerClass = functools.partial(_SiteHandler, directory=str(built_site), base_url=base_url)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site; sitemap.xml names the test server instead of `site_url`, because
    Material's instant navigation only intercepts links whose port matches the sitemap's."""

    def __init__(self, *args: object, base_url: str, **kwargs: object) -> None:
        self.base_url = base_url
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:
        if self.path.split("?")[0] != "/sitemap.xml":
            super().do_GET()
            return
        text = (Path(self.directory) / "sitemap.xml").read_text(encoding="utf-8")
        body = text.replace(SITE_URL, self.base_url).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # one line per asset would drown the test output


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: the browser test needs Debian's Chromium. "
            "Install it with `apt-get install chromium` (.ci/run does this).",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _check_page(browser: object, base_url: str, page_url: str, scheme: str) -> list[str]:
    """Load one page in one color scheme; return the problems found (empty when fine)."""
    problems: list[str] = []
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    context.add_init_script(OPEN_SHADOW_ROOTS)

    def guard(route: object) -> None:
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:", "about:")) or host == LOCAL_HOST:
            route.continue_()
        else:
            problems.append(f"request to another host: {route.request.url}")
            route.abort()

    context.route("**/*", guard)
    page = context.new_page()
    page.on(
        "console",
        lambda message: message.type == "error" and problems.append(f"console error: {message.text}"),
    )
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    try:
        page.goto(base_url + page_url, wait_until="load")
        # On a timeout the state below says what did not render.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
        state = page.evaluate(RENDER_STATE)
        if state["mathRendered"] != state["math"]:
            problems.append(
                f"{state['math'] - state['mathRendered']} of {state['math']} formulas not "
                f"rendered, e.g. {state['unrenderedMath']}"
            )
        if state["mathErrors"]:
            problems.append(f"{state['mathErrors']} KaTeX errors")
        if state["pendingMermaid"] or state["mermaidSvgs"] != state["mermaid"]:
            problems.append(
                f"Mermaid: {state['pendingMermaid']} blocks not rendered, "
                f"{state['mermaid'] - state['mermaidSvgs']} without an SVG"
            )
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = (page_url.strip("/").replace("/", "--") or "home") + f"-{scheme}.png"
        page.screenshot(path=str(SCREENSHOTS / name), full_page=True)
    finally:
        context.close()
    return problems


def test_site_has_pages(built_site: Path) -> None:
    assert "" in _page_urls(built_site)


def test_every_page_renders_offline(built_site: Path, site_server: str, browser: object) -> None:
    failures = {}
    for page_url in _page_urls(built_site):
        for scheme in ("light", "dark"):
            problems = _check_page(browser, site_server, page_url, scheme)
            if problems:
                failures[f"/{page_url} ({scheme})"] = problems
    report = "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in failures.items())
    assert not failures, "pages with problems:\n" + report


def test_math_renders_after_instant_navigation(built_site: Path, site_server: str, browser: object) -> None:
    """Material swaps the page body without a reload; KaTeX must run again on the new body."""
    pages_with_math = [
        url
        for url in _page_urls(built_site)
        if url and 'class="arithmatex"' in (built_site / url / "index.html").read_text("utf-8")
    ]
    if not pages_with_math:
        pytest.skip("no page other than the home page has math yet")
    target = pages_with_math[0]
    context = browser.new_context()
    context.add_init_script(OPEN_SHADOW_ROOTS)
    errors: list[str] = []
    page = context.new_page()
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        # Material intercepts clicks only once it has fetched the sitemap: wait for the network.
        page.goto(site_server, wait_until="networkidle")
        page.evaluate("() => { window.__beforeNavigation = true; }")
        page.locator(f'article a[href$="/{target}"]').first.click()
        page.wait_for_function(f"() => location.pathname.endsWith('/{target}')", timeout=RENDER_TIMEOUT_MS)
        page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
        # A full reload would have dropped the marker set on the previous page.
        loaded_by_instant_navigation = page.evaluate("() => window.__beforeNavigation === true")
    finally:
        context.close()
    assert loaded_by_instant_navigation, "the click reloaded the page instead of navigating"
    assert not errors
