"""A broken rule cannot publish: break each rule a page calls, and some page must fail.

For every engine rule (primitive, mode, argnum) that a snippet included by a page actually
calls, four wrong versions (`sign`, `factor`, `missing-term`, `wrong-axis`; see
`tests/_mutants.py`) are installed one at a time in a forked child, and the snippets that call
the rule run, cheapest first, until one raises. A page fails exactly when one of its snippets
raises (the strict build runs the same files), so a mutant is *caught* when a snippet raises:
an `AssertionError` of the snippet, a `GradientCheckError`, the engine's shape check. An
`ImportError` or an error of the harness itself is never a catch.

`KNOWN_SURVIVORS` lists the mutants no page catches today. The test fails when a mutant
survives that is not listed, and when a listed one is caught (or no longer tried): the list
can only shrink. The summary (tried, caught, survivors, not applicable) is written to
`test-artifacts/mutations.txt`.
"""

from __future__ import annotations

import pytest
from _mutants import REPO_ROOT, Campaign, in_fresh_process, mutate_rules, preload, summary

from ad_core import core

ARTIFACT = REPO_ROOT / "test-artifacts" / "mutations.txt"

# (primitive, mode, argnum, kind): mutants that no page catches today. Each needs a check on a
# page, not an entry here; remove an entry when its page catches it (the test says when).
KNOWN_SURVIVORS: set[tuple[str, str, int, str]] = set()


@pytest.fixture(scope="module")
def result() -> Campaign:
    outcome = in_fresh_process("campaign", 2)
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text(summary(outcome, KNOWN_SURVIVORS) + "\n", encoding="utf-8")
    return outcome


def _survivor_report(result: Campaign, mutants) -> str:
    lines = []
    for mutant in sorted(mutants):
        users = result.users.get(mutant[:3], [])
        pages = sorted({page for snippet in users for page in result.pages[snippet]})
        lines.append(f"  {mutant}: called by {', '.join(users) or 'no snippet'}; "
                     f"pages {', '.join(pages) or '-'}")
    return "\n".join(lines)


def test_control_every_included_snippet_passes_unmutated(result: Campaign) -> None:
    """With the recording installed and no mutant, every snippet a page includes passes, so a
    failure below comes from the mutant."""
    assert result.pages, "no page includes a snippet"
    failures = {snippet: r["error"] for snippet, r in result.control.items() if r["error"]}
    assert not failures, f"snippets fail with no mutant installed: {failures}"
    # The wrapping lives in the children only: this process's engine is untouched.
    assert not hasattr(core.VJPNode.__init__, "__wrapped__")
    assert not hasattr(core.JVPNode.__init__, "__wrapped__")


def test_the_recording_sees_rules_however_they_are_registered(result: Campaign) -> None:
    """Rules registered by `defvjp`, and rules bound on first use (`def_linear` for `sum`'s JVP,
    `defjvp_argnum` for `multiply`'s), are all seen when a page calls them."""
    for rule in [("anp.sum", "VJP", 0), ("anp.multiply", "VJP", 1), ("anp.sum", "JVP", 0),
                 ("anp.multiply", "JVP", 0), ("anp.array_getitem", "JVP", 0)]:
        assert rule in result.users, f"no page is recorded calling {rule}"


def test_the_harness_can_catch() -> None:
    """A known-caught mutant, run on its own: `sum`'s VJP negated, on the snippet of the
    output-layer chapter that compares the engine's bias gradient with a hand-written sum of
    the rows (the loss is `sum((X + b) * dY)`, so its gradient flows through `sum`'s VJP)."""
    preload()
    snippet = "snippets/loss_output_tanh/bias_gradient_sums_rows.py"
    mutant = ("anp.sum", "VJP", 0, "sign")
    outcome = mutate_rules([mutant], {mutant[:3]: [snippet]}, {snippet: {"seconds": 1.0}})[mutant]
    assert outcome.status == "caught", outcome
    assert outcome.error.startswith("AssertionError"), outcome.error
    assert outcome.changed > 0, outcome


def test_no_harness_errors(result: Campaign) -> None:
    errors = {o.mutant: o.error for o in result.outcomes.values() if o.status == "harness error"}
    assert not errors, f"the harness failed for {errors}"


def test_every_mutant_of_a_rule_the_pages_call_is_caught(result: Campaign) -> None:
    survivors = {o.mutant for o in result.outcomes.values() if o.status == "survived"}
    new = survivors - KNOWN_SURVIVORS
    assert not new, (
        f"{len(new)} wrong rules publish: every page that calls them passes. Add a check to a "
        f"page (compare the derivative with central differences or a closed form), do not "
        f"list them in KNOWN_SURVIVORS.\n{_survivor_report(result, new)}\n"
        f"(summary in {ARTIFACT.relative_to(REPO_ROOT)})"
    )


def test_known_survivors_still_survive(result: Campaign) -> None:
    """The list can only shrink: a listed mutant that a page now catches must leave it."""
    survivors = {o.mutant for o in result.outcomes.values() if o.status == "survived"}
    gone = {m: result.outcomes[m].status if m in result.outcomes else "not tried"
            for m in KNOWN_SURVIVORS - survivors}
    assert not gone, f"remove these from KNOWN_SURVIVORS in {__file__}: {gone}"


def test_a_mutant_stops_at_the_first_snippet_that_catches_it(result: Campaign) -> None:
    """A guard against a harness that quietly stops stopping at the first failure (which would
    run every user of every rule): each caught mutant's last snippet is the one that caught it,
    and no snippet runs twice for one mutant."""
    caught = [o for o in result.outcomes.values() if o.status == "caught"]
    assert caught
    late = {o.mutant: o.snippets_run for o in caught if o.snippets_run[-1] != o.caught_by}
    assert not late, f"mutants that ran on after they were caught: {late}"
    repeated = {o.mutant: o.snippets_run for o in result.outcomes.values()
                if len(set(o.snippets_run)) != len(o.snippets_run)}
    assert not repeated, f"mutants that ran a snippet twice: {repeated}"
