"""Issue 57 point 7: the course's COURSE_* variables in one place (helpers/settings.py), with their
meaning in docs/settings.md; no other module reads one from the environment."""

from __future__ import annotations

import re

import pytest

from helpers import settings
from helpers.paths import ROOT

pytestmark = pytest.mark.once

HELPERS = ROOT / "helpers"
# reading a variable: os.environ.get(X) / os.environ[X] / getenv(X), X a COURSE_ name or a constant
READ = re.compile(r"(?:environ\.get|environ\[|getenv)\(?\s*(\"COURSE_[A-Z_]+\"|[A-Z_]*VARIABLE\b|"
                  r"SETTINGS\[)")


def test_no_module_but_settings_reads_a_course_variable():
    found = []
    for path in sorted(HELPERS.rglob("*.py")):
        if path.name == "settings.py":
            continue
        for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if READ.search(line) and not line.lstrip().startswith("#"):
                found.append(f"{path.relative_to(ROOT)}:{k}: {line.strip()}")
    assert found == [], "read these through helpers.settings:\n" + "\n".join(found)


def test_every_course_variable_the_code_names_is_in_the_table():
    named = set()
    for path in [*HELPERS.rglob("*.py"), *HELPERS.rglob("*.cpp")]:
        named |= set(re.findall(r"[\"'](COURSE_[A-Z_]+)[\"']", path.read_text(encoding="utf-8")))
    assert named - set(settings.BY_NAME) == set()
    assert len(settings.TABLE) == len(settings.BY_NAME)          # no name twice


def test_the_settings_page_is_the_table():
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    start = text.index("<!-- settings-table")
    body = text[text.index("\n", start) + 1:text.index("<!-- end of settings-table")].strip()
    assert body == settings.markdown(), ("docs/settings.md is stale: paste python -c "
                                         "'from helpers.settings import markdown; print(markdown())'")


def test_settings_read_their_defaults_and_values():
    assert settings.text("COURSE_WARP_SIZE", {}) == "32"
    assert settings.number("COURSE_WARP_SIZE", {"COURSE_WARP_SIZE": "64"}) == 64
    assert settings.number("COURSE_WARP_SIZE", {"COURSE_WARP_SIZE": "x"}) == 32
    assert settings.flag("COURSE_SMALL", {"COURSE_SMALL": "yes"})
    assert not settings.flag("COURSE_SMALL", {})
    assert not settings.given("COURSE_STRICT_CHECKS", {"COURSE_STRICT_CHECKS": " "})


def test_strict_checks_are_set_explicitly_under_pytest():
    """The course's pytest plugin (an entry point) sets COURSE_STRICT_CHECKS=1, so a notebook
    under nbval fails a failed check's cell wherever pytest runs; strict mode no longer guesses
    pytest from PYTEST_CURRENT_TEST."""
    from importlib.metadata import entry_points

    from helpers.checking.checker import strict_checks
    assert any(e.value == "helpers.pytest_plugin" for e in entry_points(group="pytest11"))
    assert settings.flag("COURSE_STRICT_CHECKS") and strict_checks()
    assert "PYTEST_CURRENT_TEST" not in (HELPERS / "checking" / "checker.py").read_text()
