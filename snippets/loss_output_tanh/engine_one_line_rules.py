"""The elementwise rules the chapter uses, read from ad_core's source at build time."""

import inspect
from pathlib import Path

import ad_core.numpy as anp
from bookkit.source import REPO_ROOT

# The module that registers the rules, found from a rule rather than by name.
rules_module = inspect.getmodule(anp.exp.vjps[0])
rules_path = Path(inspect.getsourcefile(rules_module)).resolve().relative_to(REPO_ROOT).as_posix()
source_lines = inspect.getsource(rules_module).splitlines()
wanted = ["anp.exp", "anp.log", "anp.tanh", "anp.negative", "anp.multiply", "anp.power"]
found = []
for prefix in wanted:
    matches = [
        (number, line) for number, line in enumerate(source_lines, start=1)
        if line.startswith(f"defvjp({prefix},")
    ]
    assert len(matches) == 1, prefix
    number, line = matches[0]
    block = [line]
    # A rule may continue on the next lines until the parentheses balance.
    while sum(text.count("(") - text.count(")") for text in block) > 0:
        block.append(source_lines[number - 1 + len(block)])
    found.append((number, block))

print(f"`{rules_path}`, the rules for the elementwise steps:")
print()
print("```python")
for number, block in found:
    for offset, text in enumerate(block):
        print(f"{number + offset:>4}  {text}")
print("```")

# The prose under this listing relies on these two facts; fail the build if the engine changes.
rule_text = {prefix: " ".join(block) for prefix, (_, block) in zip(wanted, found, strict=True)}
assert "ans" in rule_text["anp.tanh"].split("lambda g:")[1], "tanh's rule should reuse its output"
assert rule_text["anp.multiply"].count("unbroadcast_f") == 2
# The comparison section quotes these rule bodies too.
assert "g / x" in rule_text["anp.log"] and "ans * g" in rule_text["anp.exp"]
assert "g * (1 - ans**2)" in rule_text["anp.tanh"]
