"""Issue 55 point 3: a grade is bounded in space and leaves nothing behind. Every place a grade
could leave something (processes, its temporary folders, mounts, control groups, shared memory)
is listed before and after a grade, finished or stopped with Ctrl-C, with and without the
sandbox; and a worker that fills its folder stops at its tmpfs's size."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers import workers
from helpers.checking import sandbox
from helpers.checking.sandbox import GradingSandbox, why_not
from helpers.kernels import SOLUTIONS
from helpers.paths import ROOT

from .conftest import TESTS

pytestmark = pytest.mark.once

WRONG = TESTS / "wrong"
CGROUPS = Path("/sys/fs/cgroup")
as_root_in_the_sandbox = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0 or why_not() is not None,
    reason="the scratch tmpfs is mounted by a grader run by root, in the sandbox")


ORDINARY = 65534     # run by root, the tests' ordinary user: nobody


def _ordinary_user() -> tuple[Callable[[], None] | None, Callable[[Path], None]]:
    """How to run a grade as an ordinary user: (the child's switch to that user, None when the
    tests run as one already; what makes a folder that user's). Skipped where root's course is
    not readable by others."""
    if os.geteuid() != 0:
        return None, lambda folder: None

    def become() -> None:
        os.setgroups([])
        os.setgid(ORDINARY)
        os.setuid(ORDINARY)
    run = subprocess.run([sys.executable, "-c", "import helpers.checking, pyopencl"], cwd=ROOT,
                         preexec_fn=become, capture_output=True, text=True, env={
                             "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/"})
    if run.returncode != 0:
        pytest.skip(f"an ordinary user cannot run this course's Python here ("
                    f"{(run.stderr.strip().splitlines() or ['?'])[-1]}): a course under root's "
                    f"home, say")

    def own(folder: Path) -> None:
        for path in [folder, *folder.rglob("*")]:
            os.lchown(path, ORDINARY, ORDINARY)
    return become, own


def _without_roots(env) -> dict[str, str]:
    """The tests' environment less the folders of the run (its cache, IPython's), which are the
    tests' user's alone."""
    return {k: v for k, v in env.items() if k not in ("COURSE_CACHE", "IPYTHONDIR")}


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


@pytest.mark.parametrize("sandboxed", [False, True, "ordinary"],
                         ids=["no sandbox", "sandbox", "sandbox, an ordinary user"])
@pytest.mark.parametrize("stopped", [False, True], ids=["finished", "ctrl-c"])
def test_a_grade_finished_or_stopped_leaves_nothing(tmp_path, sandboxed, stopped):
    """Ctrl-C (or SIGTERM) stops a grade within seconds; the files are written, the hanging
    learner's row says why; and after a grade, stopped or not, nothing of it remains. An ordinary
    user's grader (nobody's, where the tests run as root) starts again in mounts of its own, and
    says that each worker's folder is a tmpfs of its own."""
    if sandboxed and why_not() is not None:
        pytest.skip(f"no sandbox here: {why_not()}")
    become, own = _ordinary_user() if sandboxed == "ordinary" else (None, lambda folder: None)
    if sandboxed == "ordinary":      # a folder the ordinary user may reach (not tmp_path's)
        tmp_path = Path(tempfile.mkdtemp(prefix="course-test-", dir="/tmp"))
        tmp_path.chmod(0o755)
    try:
        _grade_and_list(tmp_path, sandboxed, stopped, become, own)
    finally:
        if sandboxed == "ordinary":
            shutil.rmtree(tmp_path, ignore_errors=True)


def _grade_and_list(tmp_path: Path, sandboxed, stopped: bool, become, own) -> None:
    sub = _class(tmp_path / "class", hanging=stopped)
    out, scratch = tmp_path / "out", tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    if sandboxed == "ordinary":      # a home of its own, not the run's cache (root's)
        (tmp_path / "home").mkdir()
        env = {**_without_roots(env), "HOME": str(tmp_path / "home")}
    own(tmp_path)
    before = _what_a_grade_could_leave(scratch)
    grading = subprocess.Popen(
        [sys.executable, "-m", "helpers", "grade", str(sub), "--out", str(out), "--only",
         "float_copy", "--jobs", "2", *([] if sandboxed else ["--no-sandbox"])],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, cwd=ROOT, preexec_fn=become)
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
        assert "failed" in rows["hal"] and "passed" in rows["ivy"], (out / "details.json").read_text()
    if sandboxed == "ordinary" or (sandboxed and os.geteuid() != 0):
        assert "each worker's folder a tmpfs of its own" in stdout, stdout
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
    monkeypatch.setattr(workers, "SANDBOX", GradingSandbox([], scratch_mb=8))
    child = workers.Child(workers.Key("tests.worker_task", owner="filler"))
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


def test_a_sandboxed_worker_outlives_the_thread_that_started_it(monkeypatch):
    """bwrap's --die-with-parent ends a sandbox with the *thread* that started it, not the
    process: a graded worker started in a pass's thread, or ahead for the learner's next check,
    was killed (SIGKILL) once that thread returned, and its next request read as the learner's
    kernel crashing (8 of 12 right kernels' checks, each then purging PoCL's cache). Started in a
    thread that has ended, it answers as any other."""
    if why_not() is not None:
        pytest.skip(f"no sandbox here: {why_not()}")
    monkeypatch.setattr(sandbox, "COURSE_PARTS", (*sandbox.COURSE_PARTS, "tests"))
    box = GradingSandbox([], scratch_mb=8)
    monkeypatch.setattr(workers, "SANDBOX", box)
    made: list[workers.Child] = []

    def a_pass() -> None:    # starts the worker, goes on with its work a while, and returns
        made.append(workers.Child(workers.Key("tests.worker_task", owner="early")))
        made[0].poll_ready()
        time.sleep(1.0)

    starter = threading.Thread(target=a_pass)
    starter.start()
    starter.join()
    [child] = made
    try:
        time.sleep(0.5)    # SIGKILL came at once
        seen: list[dict] = []
        out = child.request({"do": "echo", "value": 5}, timeout=120, on_event=seen.append)
        assert out.ended and out.exit_code is None, (out.exit_code, out.output)
        assert [e for e in seen if e["event"] == "echo"] == [{"event": "echo", "value": 5}], seen
    finally:
        child.stop()
        box.close()


# run by the ordinary user: the grader's start (mounts of its own), then a graded worker that
# tells its capabilities and fills its folder, as in the test above
_FILLER = """
import json, os, sys
from pathlib import Path
from helpers.checking.scratch import can_mount, restart_with_own_mounts
why = restart_with_own_mounts()
from helpers import workers
from helpers.checking import sandbox
sandbox.COURSE_PARTS = (*sandbox.COURSE_PARTS, "tests")
workers.SANDBOX = sandbox.GradingSandbox([], scratch_mb=8)
child = workers.Child(workers.Key("tests.worker_task", owner="filler"))
seen = []
try:
    child.request({"do": "caps"}, timeout=120, on_event=seen.append)
    out = child.request({"do": "fill"}, timeout=120, on_event=seen.append)
    mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    mounted = [line for line in mounts if f" {child.dir} " in line]
finally:
    child.stop()
left = [x for x in Path("/proc/self/mountinfo").read_text().splitlines() if f" {child.dir} " in x]
mine = {k: int(v, 16) for k, v in (line.split(":") for line in
                                   Path("/proc/self/status").read_text().splitlines()
                                   if line.startswith("Cap"))}
print(json.dumps({"why": why, "can": can_mount(), "ended": out.ended, "output": out.output,
                  "mine": mine, "said": os.environ.get("COURSE_OWN_MOUNTS"),
                  "caps": [e for e in seen if e["event"] == "caps"], "filled": seen[-1],
                  "mounted": mounted, "left": left, "folder": child.dir.exists()}))
"""


def test_an_ordinary_users_grader_bounds_each_workers_folder_with_a_tmpfs_too():
    """Issue 55 point 3, for a grader that is not root: it starts again in a user and mount
    namespace of its own, mounts each worker's folder as a tmpfs of its own there (8 MiB here),
    and its workers hold no capability at all (the right to mount stays the grader's)."""
    if why_not() is not None:
        pytest.skip(f"no sandbox here: {why_not()}")
    become, own = _ordinary_user()
    home = Path(tempfile.mkdtemp(prefix="course-test-", dir="/tmp"))
    try:
        own(home)
        run = subprocess.run([sys.executable, "-c", _FILLER], cwd=ROOT, preexec_fn=become,
                             capture_output=True, text=True, timeout=300, env={
                                 **_without_roots(os.environ), "HOME": str(home),
                                 "TMPDIR": str(home)})
        assert run.returncode == 0, run.stdout + run.stderr
        said = json.loads(run.stdout.strip().splitlines()[-1])
        assert said["why"] is None and said["can"], said
        # the grader keeps the right to mount (CAP_SYS_ADMIN, bit 21) to itself: none of it in
        # the sets that pass to a program it starts, nor the variable that told it
        mine = said["mine"]
        assert mine["CapEff"] & (1 << 21) and not mine["CapAmb"] and not mine["CapInh"], mine
        assert said["said"] is None
        assert said["caps"] and all(v == 0 for k, v in said["caps"][0].items()
                                    if k in ("CapInh", "CapPrm", "CapEff", "CapAmb")), said["caps"]
        assert said["ended"], said["output"]
        assert said["mounted"] and " tmpfs " in said["mounted"][0], said["mounted"]
        filled = said["filled"]
        assert filled["event"] == "filled" and filled["error"] == "No space left on device"
        assert (7 << 20) <= filled["bytes"] <= (8 << 20), filled
        assert not said["left"] and not said["folder"], said
        assert not [p.name for p in home.iterdir() if p.name != ".cache"]
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_where_no_user_namespace_is_given_the_grader_says_why_and_goes_on():
    """Where the kernel gives an ordinary user's grader no user namespace (here a sandbox that
    forbids them, as a container or AppArmor's rule may), it is not started again in one: it
    says why, keeps no capability, and grades with each folder on the disk."""
    if why_not() is not None:
        pytest.skip(f"no sandbox here: {why_not()}")
    become, _ = _ordinary_user()
    from helpers.checking.sandbox import bwrap
    code = ("import json, os; from helpers.checking.scratch import can_mount, "
            "restart_with_own_mounts as r; why = r(); print(json.dumps([why, can_mount(), "
            "[x for x in open('/proc/self/status') if x.startswith(('CapEff', 'CapInh', "
            "'CapAmb'))]]))")
    run = subprocess.run([bwrap(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                          "--unshare-user", "--disable-userns", "--chdir",
                          str(ROOT), "--", sys.executable, "-c", code], preexec_fn=become,
                         capture_output=True, text=True, timeout=120,
                         env={**_without_roots(os.environ), "HOME": "/tmp"})
    assert run.returncode == 0, run.stdout + run.stderr
    why, can, caps = json.loads(run.stdout.strip().splitlines()[-1])
    assert why and "user namespace" in why and not can, why
    assert all(line.split()[1].strip("0") == "" for line in caps), caps


@as_root_in_the_sandbox
@pytest.mark.parametrize("attack", ["nest", "renew"])
def test_the_rounds_attacks_on_a_graded_worker_run_by_root_end_and_leave_nothing(monkeypatch,
                                                                                 attack):
    """Issue 55 point 6: the attacks of the round, on a graded worker as the grader runs it (by
    root, in the sandbox, its folder a tmpfs): 3,000 nested folders go whole when it ends; a
    "built" event every 0.1 s does not keep its request past the cap."""
    monkeypatch.setattr(sandbox, "COURSE_PARTS", (*sandbox.COURSE_PARTS, "tests"))
    monkeypatch.setattr(workers, "SANDBOX", GradingSandbox([], scratch_mb=64))
    child = workers.Child(workers.Key("tests.worker_task", owner="attacker"))
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
