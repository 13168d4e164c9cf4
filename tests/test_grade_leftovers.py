"""Issue 55 point 3: a grade is bounded in space and leaves nothing behind. Every place a grade
could leave something (processes, its temporary folders, mounts, control groups, shared memory)
is listed before and after a grade, finished or stopped with Ctrl-C, with and without the
sandbox; and a worker that fills its folder stops at its tmpfs's size."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import apart
from helpers.checking import sandbox
from helpers.checking.sandbox import GradingSandbox, why_not
from helpers.kernels import SOLUTIONS

from .conftest import TESTS

pytestmark = pytest.mark.once

WRONG = TESTS / "wrong"
CGROUPS = Path("/sys/fs/cgroup")
as_root_in_the_sandbox = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or why_not() is not None,
    reason="the scratch tmpfs is mounted by a grader run by root, in the sandbox")


def _class(root: Path, hanging: bool) -> Path:
    wrong = "endless.cl" if hanging else "local_id.cl"
    for learner, kernel in (("hal", WRONG / "float_copy" / wrong),
                            ("ivy", SOLUTIONS / "float_copy.cl")):
        (root / learner / "kernels").mkdir(parents=True)
        shutil.copyfile(kernel, root / learner / "kernels" / "float_copy.cl")
    return root


def _what_a_grade_could_leave(scratch: Path) -> dict[str, set[str]]:
    """Everything of a grade's that could outlive it, where it would be."""
    processes = set()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            seen = proc.joinpath("cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace") + " " + str(proc.joinpath("cwd").readlink())
        except OSError:
            continue
        if str(scratch) in seen:
            processes.add(f"{proc.name}: {seen[:200]}")
    mounts = {line for line in Path("/proc/self/mountinfo").read_text().splitlines()
              if str(scratch) in line}
    groups = {str(p) for p in CGROUPS.glob("course-*")} | {str(p) for p in
                                                          CGROUPS.glob("*/course-*")}
    shm = {p.name for p in Path("/dev/shm").iterdir()} if Path("/dev/shm").is_dir() else set()
    return {"processes": processes, "temporary files": {p.name for p in scratch.iterdir()},
            "mounts": mounts, "control groups": groups, "shared memory": shm}


@pytest.mark.parametrize("sandboxed", [False, True], ids=["no sandbox", "sandbox"])
@pytest.mark.parametrize("stopped", [False, True], ids=["finished", "ctrl-c"])
def test_a_grade_finished_or_stopped_leaves_nothing(tmp_path, sandboxed, stopped):
    """Ctrl-C (or SIGTERM) stops a grade within seconds; the files are written, the hanging
    learner's row says why; and after a grade, stopped or not, nothing of it remains."""
    if sandboxed and why_not() is not None:
        pytest.skip(f"no sandbox here: {why_not()}")
    sub = _class(tmp_path / "class", hanging=stopped)
    out, scratch = tmp_path / "out", tmp_path / "tmp"
    scratch.mkdir()
    before = _what_a_grade_could_leave(scratch)
    env = {**os.environ, "TMPDIR": str(scratch)}
    grading = subprocess.Popen(
        [sys.executable, "-m", "helpers", "grade", str(sub), "--out", str(out), "--only",
         "float_copy", "--jobs", "2", *([] if sandboxed else ["--no-sandbox"])],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True)
    try:
        if stopped:
            deadline = time.monotonic() + 120
            while not any(scratch.glob("course-*/course-check-*")) and \
                    not any(scratch.glob("course-check-*")) and time.monotonic() < deadline:
                time.sleep(0.2)    # the workers have started: the grade is under way
            time.sleep(3)
            grading.send_signal(signal.SIGINT)
        stdout, stderr = grading.communicate(timeout=60 if stopped else 600)
    finally:
        if grading.poll() is None:
            os.killpg(grading.pid, signal.SIGKILL)
    rows = {r[0]: r for r in csv.reader((out / "grades.csv").open())}
    if stopped:
        assert grading.returncode == 130, stdout + stderr
        assert "hal" in rows and "timed out" in rows["hal"], rows
        assert "interrupted" in (out / "details.json").read_text()
    else:
        assert grading.returncode in (0, 1), stdout + stderr
        assert "failed" in rows["hal"] and "passed" in rows["ivy"], rows
    time.sleep(0.5)
    after = _what_a_grade_could_leave(scratch)
    for place in after:
        assert after[place] <= before[place], (place, after[place] - before[place])


@as_root_in_the_sandbox
def test_a_worker_that_fills_its_folder_stops_at_its_tmpfs_and_leaves_nothing(monkeypatch):
    """Issue 55 point 3: the scratch folder was on the host's disk, bounded file by file (64 MiB)
    and not in total. Run by root, each graded worker's folder is a tmpfs of its own, sized (8
    MiB here, 256 by default): a worker that writes file after file stops there, and the
    folder goes whole when the worker ends."""
    # the test's task lives in tests/, which the sandbox otherwise leaves out
    monkeypatch.setattr(sandbox, "COURSE_PARTS", (*sandbox.COURSE_PARTS, "tests"))
    monkeypatch.setattr(apart, "SANDBOX", GradingSandbox([], scratch_mb=8))
    child = apart.Child(apart.Key("tests.apart_task", owner="filler"))
    folder = child.dir
    seen: list[dict] = []
    try:
        out = child.request({"do": "fill"}, timeout=120, on_event=seen.append)
        assert out.ended, out.output
        mounted = [line for line in Path("/proc/self/mountinfo").read_text().splitlines()
                   if f" {folder} " in line]
        assert mounted and " tmpfs " in mounted[0], mounted
    finally:
        child.stop()
    filled = seen[-1]
    assert filled["event"] == "filled" and filled["error"] == "No space left on device", filled
    assert (7 << 20) <= filled["bytes"] <= (8 << 20), filled
    assert not folder.exists()
    assert not any(f" {folder} " in line
                   for line in Path("/proc/self/mountinfo").read_text().splitlines())


@as_root_in_the_sandbox
@pytest.mark.parametrize("attack", ["nest", "renew"])
def test_the_rounds_attacks_on_a_graded_worker_run_by_root_end_and_leave_nothing(monkeypatch,
                                                                                 attack):
    """Issue 55 point 6: the attacks of the round, on a graded worker as the grader runs it (by
    root, in the sandbox, its folder a tmpfs): 3,000 nested folders go whole when it ends; a
    "built" event every 0.1 s does not keep its request past the cap."""
    monkeypatch.setattr(sandbox, "COURSE_PARTS", (*sandbox.COURSE_PARTS, "tests"))
    monkeypatch.setattr(apart, "SANDBOX", GradingSandbox([], scratch_mb=64))
    child = apart.Child(apart.Key("tests.apart_task", owner="attacker"))
    folder, seen = child.dir, []
    began = time.monotonic()
    try:
        out = child.request({"do": attack, "depth": 3000}, timeout=60 if attack == "nest" else 0.5,
                            on_event=lambda ev: seen.append(ev) or 1.0, cap=3.0)
    finally:
        child.stop()
    if attack == "nest":
        assert out.ended and seen[-1]["event"] == "nested", out.output
    else:
        assert out.hung and not out.ended and time.monotonic() - began < 30
    assert not folder.exists()
    assert not any(f" {folder} " in line
                   for line in Path("/proc/self/mountinfo").read_text().splitlines())
