"""make test's runner (tests/every_cpu.py) runs the test files two at a time, a whole file in one
worker, and keeps a caller's own choice of workers."""

from __future__ import annotations

import pytest

from .every_cpu import side_by_side

pytestmark = pytest.mark.once


def test_two_files_at_a_time_on_two_cores(monkeypatch):
    monkeypatch.delenv("COURSE_TEST_WORKERS", raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert side_by_side([]) == ["-n", "2", "--dist", "loadfile"]
    assert side_by_side(["-k", "float_copy"]) == ["-n", "2", "--dist", "loadfile"]


def test_one_core_or_one_worker_runs_one_file_at_a_time(monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 1)
    monkeypatch.delenv("COURSE_TEST_WORKERS", raising=False)
    assert side_by_side([]) == []
    monkeypatch.setattr("os.cpu_count", lambda: 16)
    monkeypatch.setenv("COURSE_TEST_WORKERS", "1")
    assert side_by_side([]) == []


@pytest.mark.parametrize("args", [["-n", "4"], ["-n=3"], ["--numprocesses", "2"], ["-p", "no:xdist"],
                                  ["-pno:xdist"]])
def test_the_callers_own_choice_is_kept(args, monkeypatch):
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    assert side_by_side(args) == []
