"""The elementwise rules the chapter uses, read from ad_core's source at build time."""

import inspect

import ad_core.numpy as anp
from bookkit.source import rule_registrations, rules_listing

# The module that registers the rules, found from a rule rather than by name.
rules_module = inspect.getmodule(anp.exp.vjps[0])
wanted = ["anp.exp", "anp.log", "anp.tanh", "anp.negative", "anp.multiply", "anp.power"]
rules = rule_registrations(rules_module, wanted)

print(f"`{rules[0].path}`, the rules for the elementwise steps:")
print()
print(rules_listing(rules))

# The prose under this listing relies on these two facts; fail the build if the engine changes.
rule_text = {rule.primitive: rule.text for rule in rules}
assert list(rule_text) == wanted
assert "ans" in rule_text["anp.tanh"].split("lambda g:")[1], "tanh's rule should reuse its output"
assert rule_text["anp.multiply"].count("unbroadcast_f") == 2
# The comparison section quotes these rule bodies too.
assert "g / x" in rule_text["anp.log"] and "ans * g" in rule_text["anp.exp"]
assert "g * (1 - ans**2)" in rule_text["anp.tanh"]
