"""Counters of the checks bookkit ran in this process, read by the build stamp.

Kept in a tiny module of its own so that the mkdocs hook and the helpers share one object
whatever way they were imported.
"""

from __future__ import annotations

from collections import Counter

checks_passed: Counter[str] = Counter()


def count(kind: str, amount: int = 1) -> None:
    """Record that `amount` checks of `kind` ran and passed."""
    checks_passed[kind] += amount


def reset() -> None:
    """Forget every count (the hook calls this at the start of each build)."""
    checks_passed.clear()
