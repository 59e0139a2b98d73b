"""The rules that undo the lookup and the concatenation, read from ad_core at build time."""

import inspect
from pathlib import Path

import ad_core.numpy as anp
from bookkit import show_source
from bookkit.source import REPO_ROOT

# The module that registers the rules, found from a rule rather than by name.
rules_module = inspect.getmodule(anp.reshape.vjps[0])
rules_path = Path(inspect.getsourcefile(rules_module)).resolve().relative_to(REPO_ROOT).as_posix()
source_lines = inspect.getsource(rules_module).splitlines()
found = []
for prefix in ("anp.reshape", "anp.array_getitem", "anp.untake"):
    matches = [(i + 1, text) for i, text in enumerate(source_lines)
               if text.startswith(f"defvjp({prefix},")]
    assert len(matches) == 1, prefix
    number, text = matches[0]
    block = [text]
    while sum(t.count("(") - t.count(")") for t in block) > 0:
        block.append(source_lines[number - 1 + len(block)])
    found.append((number, block))
print(f"`{rules_path}`:")
print()
print("```python")
for number, block in found:
    for offset, text in enumerate(block):
        print(f"{number + offset:>4}  {text}")
print("```")
print()
print(show_source(anp.untake))

# The prose around this listing relies on these facts; fail the build if the engine changes.
getitem_rule = " ".join(next(block for _, block in found if block[0].startswith("defvjp(anp.array_getitem")))
assert "anp.untake" in getitem_rule
assert "add.at" in inspect.getsource(anp.untake)
