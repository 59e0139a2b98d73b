"""The names the Part III network learns from, and the (context, next character) windows cut from them.

The first names come from the US-census lists shipped inside the PyPI package ``names``; as in
Andrej Karpathy's makemore lectures, ``.`` marks the start and the end of a name and each
example is a 3-character context with the character that follows it.
"""

from __future__ import annotations

import functools
import importlib.resources
from dataclasses import dataclass

import numpy as np

ALPHABET = ".abcdefghijklmnopqrstuvwxyz"
VOCAB_SIZE = len(ALPHABET)
BLOCK_SIZE = 3


@dataclass(frozen=True)
class NameCorpus:
    """First names from the US-census lists shipped inside the PyPI package ``names``."""

    names: tuple[str, ...]
    male_count: int
    female_count: int
    in_both: int
    package_version: str


def _read_census_list(file_name: str) -> list[str]:
    text = importlib.resources.files("names").joinpath(file_name).read_text(encoding="ascii")
    return [line.split()[0].lower() for line in text.splitlines() if line.strip()]


@functools.cache
def load_names() -> NameCorpus:
    """Read ``dist.male.first`` and ``dist.female.first`` from the installed ``names`` package."""
    from importlib.metadata import version

    male = _read_census_list("dist.male.first")
    female = _read_census_list("dist.female.first")
    unique = sorted(set(male) | set(female))
    assert all(set(word) <= set(ALPHABET[1:]) for word in unique)
    return NameCorpus(
        names=tuple(unique),
        male_count=len(male),
        female_count=len(female),
        in_both=len(set(male) & set(female)),
        package_version=version("names"),
    )


def encode(word: str) -> list[int]:
    """Character indices of ``word``; ``.`` (index 0) marks the start and the end of a name."""
    return [ALPHABET.index(ch) for ch in word]


def build_windows(words: tuple[str, ...] | list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Every (3-character context, next character) pair of every word, as int64 arrays."""
    contexts: list[list[int]] = []
    targets: list[int] = []
    for word in words:
        context = [0] * BLOCK_SIZE
        for index in [*encode(word), 0]:
            contexts.append(context)
            targets.append(index)
            context = [*context[1:], index]
    return np.array(contexts, dtype=np.int64), np.array(targets, dtype=np.int64)


@dataclass(frozen=True)
class Splits:
    """Train / validation / test windows built from a seeded shuffle of the names."""

    Xtr: np.ndarray
    Ytr: np.ndarray
    Xva: np.ndarray
    Yva: np.ndarray
    Xte: np.ndarray
    Yte: np.ndarray
    name_counts: tuple[int, int, int]


@functools.cache
def make_splits(seed: int = 42) -> Splits:
    """Split the names 80 / 10 / 10 after a seeded shuffle, then cut each part into windows."""
    words = list(load_names().names)
    order = np.random.default_rng(seed).permutation(len(words))
    shuffled = [words[i] for i in order]
    n1, n2 = int(0.8 * len(words)), int(0.9 * len(words))
    parts = (shuffled[:n1], shuffled[n1:n2], shuffled[n2:])
    (Xtr, Ytr), (Xva, Yva), (Xte, Yte) = (build_windows(p) for p in parts)
    return Splits(Xtr, Ytr, Xva, Yva, Xte, Yte, tuple(len(p) for p in parts))  # type: ignore[arg-type]

