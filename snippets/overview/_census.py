"""The two counts of checks in a snippet file, for verification_census.py.

They live in a helper module, not in the block, for speed: a block's own frames are traced
line by line by the build (it counts the asserts it executes), and these loops walk every
token of every snippet file. Each count is kept per file content (a SHA-256 of its bytes), so
during `mkdocs serve` a rebuild after one snippet edit reads the others' counts from here;
a changed file has a new digest and is counted again.
"""

import ast
import hashlib
import tokenize
from io import BytesIO
from pathlib import Path

HELPERS = ("assert_shape_then_close", "render", "check", "checked")

_by_content: dict[tuple[str, str], int] = {}  # (count's name, sha256 of the file) -> count


def _remembered(name, path, count):
    data = Path(path).read_bytes()
    key = (name, hashlib.sha256(data).hexdigest())
    if key not in _by_content:
        _by_content[key] = count(data)
    return _by_content[key]


def count_asserts(path: Path) -> int:
    """`assert` statements plus calls of the book's checking helpers, read from the syntax tree."""

    def count(data: bytes) -> int:
        found = 0
        for node in ast.walk(ast.parse(data)):
            if isinstance(node, ast.Assert):
                found += 1
            elif isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                found += name in HELPERS
        return found

    return _remembered("tree", path, count)


def count_asserts_by_tokens(path: Path) -> int:
    """The same count read from the token stream instead of the syntax tree (strings and
    comments are single tokens, so a helper named inside them does not count)."""

    def count(data: bytes) -> int:
        tokens = [t for t in tokenize.tokenize(BytesIO(data).readline)
                  if t.type in (tokenize.NAME, tokenize.OP)]
        found = 0
        for before, token, after in zip([None, *tokens[:-1]], tokens, [*tokens[1:], None], strict=True):
            if token.string == "assert":
                found += 1
            elif token.string in HELPERS and after is not None and after.string == "(":
                found += before is None or before.string != "def"
        return found

    return _remembered("tokens", path, count)


def helper_modules(snippets: Path) -> tuple[list[Path], list[Path]]:
    """The helper modules (`_*.py`) under `snippets`, and those that no other snippet file
    names (which would be dead code, not helpers)."""
    files = sorted(f for f in snippets.rglob("*.py") if "__pycache__" not in f.parts)
    texts = {f: f.read_text(encoding="utf-8") for f in files}
    helpers = [f for f in files if f.name.startswith("_")]
    unused = [h for h in helpers if not any(h.name in t for f, t in texts.items() if f != h)]
    return helpers, unused
