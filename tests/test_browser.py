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
import json
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
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


@contextlib.contextmanager
def _serve(site: Path, served: _Served | None = None) -> Iterator[str]:
    """The built site over HTTP on 127.0.0.1, on a free port, from a background thread; what
    it sends is counted in `served`."""
    server = http.server.ThreadingHTTPServer((LOCAL_HOST, 0), None)
    base_url = f"http://{LOCAL_HOST}:{server.server_address[1]}/"
    server.RequestHandlerClass = functools.partial(
        _SiteHandler, directory=str(site), base_url=base_url, served=served
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base_url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def site_server(built_site: Path) -> Iterator[str]:
    with _serve(built_site) as base_url:
        yield base_url


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the site; sitemap.xml names the test server instead of `site_url`, because
    Material's instant navigation only intercepts links whose port matches the sitemap's."""

    def __init__(self, *args: object, base_url: str, served: _Served | None, **kwargs: object) -> None:
        self.base_url = base_url
        self.served = served
        super().__init__(*args, **kwargs)

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "content-length" and self.served is not None:
            self.served.add(self.path.split("?")[0], int(value))
        super().send_header(keyword, value)

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


@contextlib.contextmanager
def _chromium() -> Iterator[object]:
    """Debian's Chromium, driven by a Playwright of this thread's own (Playwright's sync API
    belongs to the thread that started it)."""
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} not found: the browser test needs Debian's Chromium. "
            "Install it with `apt-get install chromium` (.ci/run does this).",
            pytrace=False,
        )
    with _chromium() as chromium:
        yield chromium


PROBE = (Path(__file__).with_name("_page_probe.js")).read_text(encoding="utf-8")
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def _check_page(
    browser: object, base_url: str, page_url: str, scheme: str, viewport: str = "desktop",
    served: _Served | None = None, block: str | None = None,
) -> tuple[list[str], dict]:
    """Load one page in one color scheme and viewport; return the problems found (empty when
    fine) and the probe's measurements (`_page_probe.js`), with the bytes the page loaded.
    `block` names a path fragment whose requests fail (to show what the test catches)."""
    problems: list[str] = []
    context = browser.new_context(color_scheme=scheme, viewport=VIEWPORTS[viewport])
    context.add_init_script(OPEN_SHADOW_ROOTS)

    def guard(route: object) -> None:
        host = urlsplit(route.request.url).hostname
        if block and block in route.request.url:
            route.abort()
        elif route.request.url.startswith(("data:", "blob:", "about:")) or host == LOCAL_HOST:
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
        if served is not None:
            served.reset()
        page.goto(base_url + page_url, wait_until="load")
        # On a timeout the state below says what did not render.
        with contextlib.suppress(PlaywrightTimeout):
            page.wait_for_function(ALL_RENDERED, timeout=RENDER_TIMEOUT_MS)
        if served is not None:
            # Whatever the page fetches by itself after rendering (lazy assets) counts too.
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_load_state("networkidle", timeout=RENDER_TIMEOUT_MS)
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
        probe = page.evaluate(PROBE)
        probe["math"], probe["mermaid"] = state["math"], state["mermaid"]
        if served is not None:
            probe["bytes"], probe["requests"] = served.total(), served.paths()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        suffix = "" if viewport == "desktop" else f"-{viewport}"
        name = (page_url.strip("/").replace("/", "--") or "home") + f"-{scheme}{suffix}.jpg"
        # The whole page at 1280 px; the first screen on a phone (a full phone page is tall
        # and slow to capture, and its layout is checked by the probe). JPEG: a full page
        # encodes in about half the time of a PNG, and a reviewer reads it as well.
        page.screenshot(
            path=str(SCREENSHOTS / name), full_page=viewport == "desktop", type="jpeg", quality=80
        )
    finally:
        context.close()
    return problems, probe


class _Served:
    """What the test server sent since the last `reset()`: path and body size per request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sent: list[tuple[str, int]] = []

    def reset(self) -> None:
        with self._lock:
            self._sent = []

    def add(self, path: str, size: int) -> None:
        with self._lock:
            self._sent.append((path, size))

    def total(self) -> int:
        with self._lock:
            return sum(size for _, size in self._sent)

    def paths(self) -> dict[str, int]:
        with self._lock:
            return dict(self._sent)


ARTIFACTS = REPO_ROOT / "test-artifacts"
HOME_PAGE_BUDGET = 600 * 1024  # bytes the home page loads on a first visit, all requests
MAX_SCROLLING = 5  # code blocks, and tables, that may scroll sideways at 1280 px, in the whole book
MIN_CONTRAST = 4.5  # WCAG AA for text: every diagram label, in both color schemes
MIN_DIAGRAM_TEXT_PX = {"desktop": 11.0, "phone": 11.0}  # the smallest label, as drawn on screen


def test_site_has_pages(built_site: Path) -> None:
    """The pages visited are the built ones, found on disk, so a page another branch adds to
    the nav is judged like the rest; each nav page must be among them."""
    from bookkit.testing import nav_pages

    visited = set(_page_urls(built_site))
    assert "" in visited
    missing = [page.url for page in nav_pages() if page.url not in visited]
    assert not missing, f"nav pages the browser test would not visit: {missing}"


VISIT_WORKERS = 3  # Chromiums loading pages at once: a page load mostly waits, on a 2-core machine too


@pytest.fixture(scope="module")
def visits(built_site: Path, browser: object) -> dict[tuple[str, str, str], tuple]:
    """Every page, once in each scheme at 1280 px and once on a phone (390 px, light), shared
    among VISIT_WORKERS threads, each with its own Chromium and its own server (so the bytes a
    page loads are counted by a server that serves only that page).
    The figures go to test-artifacts/browser-report.json for a reviewer."""
    wanted = [
        (page_url, scheme, viewport)
        for page_url in _page_urls(built_site)
        for scheme, viewport in (("light", "desktop"), ("dark", "desktop"), ("light", "phone"))
    ]

    def visit_share(share: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], tuple]:
        served = _Served()
        found = {}
        with _serve(built_site, served) as base_url, _chromium() as chromium:
            for page_url, scheme, viewport in share:
                counted = served if (scheme, viewport) == ("light", "desktop") else None
                found[page_url, scheme, viewport] = _check_page(
                    chromium, base_url, page_url, scheme, viewport, served=counted
                )
        return found

    with ThreadPoolExecutor(max_workers=VISIT_WORKERS) as pool:
        shares = pool.map(visit_share, [wanted[i::VISIT_WORKERS] for i in range(VISIT_WORKERS)])
        results = {visit: outcome for share in shares for visit, outcome in share.items()}
    results = {visit: results[visit] for visit in wanted}
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report = {f"/{url} {scheme} {viewport}": probe for (url, scheme, viewport), (_, probe) in results.items()}
    (ARTIFACTS / "browser-report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False), "utf-8")
    return results


def test_every_page_renders_offline(visits: dict) -> None:
    failures = {
        f"/{url} ({scheme}, {viewport})": problems
        for (url, scheme, viewport), (problems, _) in visits.items()
        if problems
    }
    report = "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in failures.items())
    assert not failures, "pages with problems:\n" + report


def test_diagram_text_is_readable_in_both_schemes(visits: dict) -> None:
    """Every label of every Mermaid diagram contrasts with what is behind it (light and dark),
    and is drawn large enough to read."""
    problems = []
    for (url, scheme, viewport), (_, probe) in visits.items():
        for diagram in probe["diagrams"]:
            if not diagram["labels"]:
                problems.append(f"/{url} {scheme} {viewport} diagram {diagram['index']}: no labels found")
            for label in diagram["labels"]:
                if label["contrast"] < MIN_CONTRAST:
                    problems.append(
                        f"/{url} {scheme} diagram {diagram['index']}: {label['text']!r} contrast "
                        f"{label['contrast']} < {MIN_CONTRAST}"
                    )
            smallest = min((label["px"] for label in diagram["labels"]), default=99)
            if smallest < MIN_DIAGRAM_TEXT_PX[viewport]:
                problems.append(
                    f"/{url} {scheme} {viewport} diagram {diagram['index']} ({diagram['kind']}): "
                    f"text drawn at {smallest} px < {MIN_DIAGRAM_TEXT_PX[viewport]} px"
                )
    assert not problems, "\n".join(problems[:40]) + f"\n({len(problems)} problems)"


def test_chinese_terms_are_not_boxes(visits: dict) -> None:
    pages = {url: probe for (url, scheme, viewport), (_, probe) in visits.items() if scheme == "light"}
    assert any(probe["cjkCharacters"] for probe in pages.values()), "no page shows Chinese text"
    boxes = {url: "".join(probe["boxes"]) for url, probe in pages.items() if probe["boxes"]}
    assert not boxes, f"Chinese characters drawn as boxes: {boxes}"


def test_chinese_font_is_what_draws_them(built_site: Path, site_server: str, browser: object) -> None:
    """The same check with the site's CJK font blocked must fail: the glyphs come from the site."""
    chinese = re.compile("[\u4e00-\u9fff]")
    pages = [
        url
        for url in _page_urls(built_site)
        if chinese.search((built_site / url / "index.html").read_text("utf-8"))
    ]
    assert pages, "no page shows Chinese text"
    url = pages[0]
    _, probe = _check_page(browser, site_server, url, "light", block="/assets/fonts/")
    assert probe["cjkCharacters"] and len(probe["boxes"]) == probe["cjkCharacters"], (
        f"with the font blocked, {len(probe['boxes'])} of {probe['cjkCharacters']} characters were boxes"
    )


def test_page_weight(visits: dict, built_site: Path) -> None:
    """A first visit loads only what the page uses; the home page stays under budget."""
    problems = []
    for (url, _scheme, _viewport), (_, probe) in visits.items():
        if "bytes" not in probe:
            continue
        requested = probe["requests"]
        katex = [p for p in requested if "/vendor/katex/" in p]
        mermaid = [p for p in requested if "/vendor/mermaid/" in p]
        if katex and not probe["math"]:
            problems.append(f"/{url} has no math but loads {len(katex)} KaTeX files")
        if mermaid and not probe["mermaid"]:
            problems.append(f"/{url} has no diagram but loads {len(mermaid)} Mermaid files")
    home = visits["", "light", "desktop"][1]
    if home["bytes"] > HOME_PAGE_BUDGET:
        heaviest = sorted(home["requests"].items(), key=lambda kv: -kv[1])[:6]
        problems.append(f"home page loads {home['bytes']} bytes > {HOME_PAGE_BUDGET}: {heaviest}")
    assert not problems, "\n".join(problems)


def test_wide_listings_and_tables(visits: dict) -> None:
    """At 1280 px, at most MAX_SCROLLING code blocks and as many tables scroll sideways."""
    code, tables = [], []
    for (url, scheme, viewport), (_, probe) in visits.items():
        if (scheme, viewport) != ("light", "desktop"):
            continue
        code += [f"/{url}#{c['at']}: {c['first']!r} (+{c['overflow']} px)" for c in probe["scrollingCode"]]
        tables += [f"/{url}#{t['at']}: {t['head']!r} (+{t['overflow']} px)" for t in probe["scrollingTables"]]
    message = (
        f"{len(code)} code blocks scroll sideways:\n  " + "\n  ".join(code)
        + f"\n{len(tables)} tables scroll sideways:\n  " + "\n  ".join(tables)
    )
    print(message)
    assert len(code) <= MAX_SCROLLING and len(tables) <= MAX_SCROLLING, message


def test_phone_layout(visits: dict) -> None:
    """At 390 px: the page itself does not scroll sideways, inline math stays on one line, and
    the copy button covers no code."""
    problems = []
    for (url, _scheme, viewport), (_, probe) in visits.items():
        if viewport != "phone":
            continue
        if probe["pageOverflow"] > 1:
            problems.append(f"/{url}: the page is {probe['pageOverflow']} px wider than the screen")
        problems += [f"/{url}: inline math wraps: {m!r}" for m in probe["wrappedMath"]]
        problems += [f"/{url}#{c['at']}: copy button covers {c['first']!r}" for c in probe["coveredCode"]]
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:60])


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


def test_search_index_loads_on_first_use(site_server: str, browser: object) -> None:
    """The search index is not part of a page's first load, and search still finds pages."""
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    requested: list[str] = []
    context.on("request", lambda request: requested.append(request.url))
    page = context.new_page()
    try:
        page.goto(site_server, wait_until="networkidle")
        before = [url for url in requested if url.endswith("/search/search_index.json")]
        page.locator("input.md-search__input").click()
        page.locator("input.md-search__input").fill("gradient")
        page.wait_for_selector(".md-search-result__item", timeout=RENDER_TIMEOUT_MS)
        results = page.locator(".md-search-result__item").count()
        after = [url for url in requested if url.endswith("/search/search_index.json")]
    finally:
        context.close()
    assert not before, "the search index was loaded before the reader searched"
    assert after and results > 0, f"search found {results} results (index requested: {bool(after)})"
