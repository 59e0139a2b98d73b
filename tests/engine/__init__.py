"""Engine test suite for `ad_core`.

`_oracle.py` holds the finite-difference helpers (plain NumPy, never the engine's derivatives);
each `test_<topic>.py` checks one family of rules or one part of the API against them, against
HIPS/autograd 1.9.1 (`test_against_autograd.py`) or against hand-derived closed forms.
Run with `.venv/bin/python -m pytest tests/engine`.
"""
