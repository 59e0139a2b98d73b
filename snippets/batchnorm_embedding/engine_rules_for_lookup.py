"""The rules that undo the lookup and the concatenation, read from ad_core at build time."""

import inspect

import ad_core.numpy as anp
from bookkit import show_excerpt
from bookkit.source import rule_registrations, rules_listing

# The module that registers the rules, found from a rule rather than by name.
rules_module = inspect.getmodule(anp.reshape.vjps[0])
rules = rule_registrations(rules_module, ["anp.reshape", "anp.array_getitem", "anp.untake"])
print(f"`{rules[0].path}`:")
print()
print(rules_listing(rules))
print()
print(show_excerpt(anp.untake, r"if type\(index\) is _np\.ndarray", r"_np\.add\.at\(result\.reshape",
                   full_listing="[Copies and gathers](../part2/copies-and-gathers.md)"))

# The prose around this listing relies on these facts; fail the build if the engine changes.
getitem_rule = next(rule.text for rule in rules if rule.primitive == "anp.array_getitem")
assert "anp.untake" in getitem_rule
assert "add.at" in inspect.getsource(anp.untake)
