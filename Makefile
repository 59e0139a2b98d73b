# Two entry points: `make serve` and `make test`. Both build .venv from scratch when needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
VENDOR := docs/assets/vendor
ASSETS := $(VENDOR)/.installed
# mkdocs-material prints a multi-line banner about MkDocs 2 on every build; it is not ours.
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve test build bench lint clean browser autograd-suite

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[docs,test,bench]'
	touch $@

# KaTeX and Mermaid come from npm and are copied next to the pages, so a page load stays local.
# Noto Sans SC (@fontsource/noto-sans-sc) stays in node_modules: after each build the mkdocs
# hook cuts it down to the Chinese characters the pages use (bookkit/cjk_font.py).
$(ASSETS): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)/katex/contrib $(VENDOR)/mermaid
	cp node_modules/katex/dist/katex.min.js node_modules/katex/dist/katex.min.css $(VENDOR)/katex/
	cp node_modules/katex/dist/contrib/auto-render.min.js $(VENDOR)/katex/contrib/
	cp -r node_modules/katex/dist/fonts $(VENDOR)/katex/fonts
	# Mermaid's ES module build: each diagram type is a chunk loaded on first use.
	mkdir -p $(VENDOR)/mermaid/chunks/mermaid.esm.min
	cp node_modules/mermaid/dist/mermaid.esm.min.mjs $(VENDOR)/mermaid/
	cp node_modules/mermaid/dist/chunks/mermaid.esm.min/*.mjs $(VENDOR)/mermaid/chunks/mermaid.esm.min/
	touch $@

# Rebuilds reuse unchanged block outputs and pages (bookkit/exec_cache.py); `make build` runs all.
serve: $(INSTALLED) $(ASSETS)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(INSTALLED) $(ASSETS)
	$(BIN)/mkdocs build --strict

# The browser test drives Debian's Chromium. Install it where this user can (root with apt, as
# on CI), otherwise stop with the command to run.
CHROMIUM := /usr/bin/chromium
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing Chromium for the browser test (apt-get install chromium)"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "The browser test needs Chromium at $(CHROMIUM). Install it, then run make test again:"; \
	    echo "    sudo apt-get install chromium"; \
	    exit 1; \
	  fi; \
	fi

# One strict build serves the whole suite (BOOK_BUILT_SITE: the docs-build test, the snippet
# tests, the browser test). It runs beside the suite: tests that need no site (the engine, the
# build harness) run meanwhile, and the first test that needs the site waits for it
# (BOOK_SITE_BUILDING). The browser test, which mostly waits on Chromium, and HIPS/autograd's
# suite run beside the rest.
TEST_SITE := test-artifacts/site
test: $(INSTALLED) $(ASSETS) browser
	$(BIN)/ruff check .
	rm -rf $(TEST_SITE) $(TEST_SITE).*.json && mkdir -p test-artifacts
	@started=$$(date +%s); export BOOK_BUILT_SITE=$(CURDIR)/$(TEST_SITE) BOOK_SITE_BUILDING=1; \
	  $(BIN)/python -m bookkit.testing build $(TEST_SITE) & build=$$!; \
	  $(BIN)/python -m pytest -q tests/test_browser.py > test-artifacts/browser-test.log 2>&1 & browser=$$!; \
	  $(BIN)/python tools/autograd_suite/run.py > test-artifacts/autograd-suite.log 2>&1 & suite=$$!; \
	  $(BIN)/python -m pytest --ignore=tests/test_browser.py; rest=$$?; \
	  wait $$build; build_status=$$?; wait $$browser; browser_status=$$?; wait $$suite; suite_status=$$?; \
	  if [ $$build_status != 0 ]; then echo "--- mkdocs build --strict failed ---"; \
	    $(BIN)/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["log"])' $(TEST_SITE).build-status.json; fi; \
	  echo "--- browser test (test-artifacts/browser-test.log) ---"; tail -n 25 test-artifacts/browser-test.log; \
	  echo "--- HIPS/autograd suite (test-artifacts/autograd-suite.log) ---"; tail -n 15 test-artifacts/autograd-suite.log; \
	  echo "--- make test: $$(( $$(date +%s) - started )) s from the build's start to the last check; the build took" \
	    "$$($(BIN)/python -c 'import json, sys; print(json.load(open(sys.argv[1]))["seconds"])' $(TEST_SITE).build-status.json) s ---"; \
	  test $$build_status = 0 && test $$rest = 0 && test $$browser_status = 0 && test $$suite_status = 0

# HIPS/autograd 1.9.1's own test files, run on autograd and on ad_core (see the README).
autograd-suite: $(INSTALLED)
	$(BIN)/python tools/autograd_suite/run.py

bench: $(INSTALLED)
	$(BIN)/python -m pip install --quiet torch==2.13.0 || echo "torch not installed: PyTorch column skipped"
	$(BIN)/python benchmarks/mlp_step.py

lint: $(INSTALLED)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) node_modules $(VENDOR) site test-artifacts
