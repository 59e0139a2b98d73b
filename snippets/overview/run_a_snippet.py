"""Run a snippet the way a reader would, in a fresh Python process, and check that it prints
exactly what the page shows."""

import contextlib
import io
import runpy
import subprocess
import sys
from pathlib import Path

from bookkit import checked, observed, text

repo = Path(__file__).resolve().parents[2]  # snippets/overview/run_a_snippet.py → the repository
snippet = Path(__file__).resolve().with_name("first_gradient.py").relative_to(repo).as_posix()

# --8<-- [start:command]
command = [sys.executable, snippet]  # python snippets/overview/first_gradient.py
completed = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True)
# --8<-- [end:command]

in_process = io.StringIO()
with contextlib.redirect_stdout(in_process):
    runpy.run_path(str(repo / snippet), run_name="__main__")
assert completed.returncode == 0
assert completed.stdout == in_process.getvalue(), "standalone and in-process runs differ"

print(observed(f"$ python {snippet}\n{completed.stdout}", lang="console"))
print(
    text(
        "The fresh process exited with code {code} and printed {lines} lines, identical to what "
        "the same file prints when it runs inside the process that builds this page.",
        code=checked(completed.returncode, against=0),
        lines=checked(len(completed.stdout.splitlines()), against=in_process.getvalue().count("\n")),
    )
)
