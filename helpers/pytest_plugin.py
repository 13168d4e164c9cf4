"""The course's pytest plugin (an entry point, ``pytest11``: installed with the course, so it is
there wherever pytest runs a course notebook, nbval in a grader's own folder included): strict
checks, said explicitly. Under pytest a failed check raises, so that nbval fails its cell; the
notebook's kernel, a child of pytest, inherits the setting. Before, strict mode guessed pytest
from ``PYTEST_CURRENT_TEST``."""

from __future__ import annotations

import os

from .settings import BY_NAME


def pytest_configure(config) -> None:
    os.environ.setdefault(BY_NAME["COURSE_STRICT_CHECKS"].name, "1")
