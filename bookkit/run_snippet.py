"""Run a snippet as a script, with `print` checking that every claim it prints carries its check.

`python -m bookkit.run_snippet snippets/<chapter>/<file>.py` prints what
`python snippets/<chapter>/<file>.py` prints, but exits with an `UncheckedClaim` traceback if
the snippet prints a number or a yes/no that no bookkit helper vouched for
(`bookkit.claims.guard_printed`). The tests run every snippet this way; the mkdocs hook puts
the same check on markdown-exec's `print`.
"""

from __future__ import annotations

import builtins
import runpy
import sys
from pathlib import Path

from bookkit.claims import guard_printed


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m bookkit.run_snippet snippets/<chapter>/<file>.py")
    path = Path(argv[0])
    original_print = builtins.print

    def guarded_print(*texts: object, **options: object) -> None:
        if "file" not in options:  # output to stderr or a file is not page content
            guard_printed(*texts)
        original_print(*texts, **options)

    builtins.print = guarded_print
    sys.argv = [str(path)]
    sys.path.insert(0, str(path.parent))
    runpy.run_path(str(path), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
