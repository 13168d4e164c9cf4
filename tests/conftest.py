"""Paths and fixtures of the tests (the environment every run shares is set in ../conftest.py)."""

from __future__ import annotations

import pytest

from helpers.paths import ROOT

TESTS = ROOT / "tests"
TEST_REGISTRY = str(TESTS / "exercises_for_tests.py")


@pytest.fixture(scope="session")
def oclgrind_present():
    """The checks' Oclgrind pass is part of what is tested: its absence is a failure, not a skip."""
    from helpers.device import oclgrind_device
    assert oclgrind_device() is not None, "Oclgrind is not installed: pip install -e . installs it"
