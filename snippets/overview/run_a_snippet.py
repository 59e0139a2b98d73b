"""Run a snippet the way a reader would, in a fresh Python process, and check that it prints
exactly what the page shows."""

import contextlib
import io
import runpy
import subprocess
import sys
from pathlib import Path

here = globals().get("__file__")
repo = Path(here).resolve().parents[2] if here else Path.cwd()
snippet = "snippets/overview/first_gradient.py"

# --8<-- [start:command]
command = [sys.executable, snippet]  # python snippets/overview/first_gradient.py
completed = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True)
# --8<-- [end:command]

in_process = io.StringIO()
with contextlib.redirect_stdout(in_process):
    runpy.run_path(str(repo / snippet), run_name="__main__")
assert completed.returncode == 0
assert completed.stdout == in_process.getvalue(), "standalone and in-process runs differ"

print("```console")
print(f"$ python {snippet}")
print(completed.stdout.rstrip())
print("```")
print()
print(
    f"The fresh process exited with code {completed.returncode} and printed "
    f"{len(completed.stdout.splitlines())} lines, identical to what the same file prints when "
    "it runs inside the process that builds this page."
)
