"""Shared fixtures for the engine tests."""

from __future__ import annotations

import zlib

import numpy as np
import pytest


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A generator seeded from the test's own id: reproducible, and different for every case."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
