"""Test settings: notebooks run with the solutions switched on and small sizes.

Set here, at import, so that the Jupyter kernels nbval starts inherit them; tests that check the
learner's skeletons pass ``solutions=False`` explicitly.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("COURSE_SOLUTIONS", "1")
os.environ.setdefault("COURSE_SMALL", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# Peaks and passed checks are cached per user; tests start from an empty cache of their own.
os.environ.setdefault("COURSE_CACHE", tempfile.mkdtemp(prefix="course-cache-"))

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
TEST_REGISTRY = str(TESTS / "exercises_for_tests.py")


@pytest.fixture(scope="session")
def oclgrind_present():
    """The checks' Oclgrind pass is part of what is tested: its absence is a failure, not a skip."""
    from helpers.device import oclgrind_device
    assert oclgrind_device() is not None, "Oclgrind is not installed: pip install -e . installs it"
