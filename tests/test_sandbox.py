"""The grader on hostile work: each attack a dishonest learner made on it, and what it gets now.

A kernel with inline assembly (hidden from one compiler behind #if) is refused everywhere; a process
in the sandbox reaches no network (a listener on this machine's loopback is the target), sees no
solution, no other learner and no grade, writes only its scratch folder, and leaves nothing running;
a notebook that attacks the class while it is graded gets none of it, and neither does one that
swallows its failing check; the same class graded twice gets the same grades; a link in a class's
archive is refused for its learner alone.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

import pytest

from helpers.checking import run_check
from helpers.checking import sandbox as sandbox_module
from helpers.checking.grading import grade
from helpers.checking.sandbox import Jail, cgroup, driver_folders, drop, limits, why_not
from helpers.paths import ROOT

from .shipped import committed
from .test_hostile import grade_ann

SOLUTION = (ROOT / "solutions" / "float_copy.cl").read_text()
needs_sandbox = pytest.mark.skipif(why_not() is not None, reason=f"no sandbox here: {why_not()}")


def test_where_the_sandbox_is_required_it_can_run():
    """CI sets COURSE_REQUIRE_SANDBOX=1 (.ci/run): there the attacks below must run, never be
    skipped because the machine could not sandbox."""
    if os.environ.get("COURSE_REQUIRE_SANDBOX", "") not in ("", "0"):
        assert why_not() is None, why_not()

# the first round's attack: asm hidden from Oclgrind (OpenCL 1.2) behind a condition CPU drivers meet
HIDDEN_ASM = """
#if __OPENCL_VERSION__ >= 300 || defined(__x86_64__)
#define SYS(n) __asm__ volatile("syscall" :: "a"(n))
#else
#define SYS(n)
#endif
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    if (i == 0) SYS(57);
    if (i < n) dst[i] = src[i];
}
"""
PASTED_ASM = """
#define GLUE(a, b) a##b
__kernel void float_copy(__global const float *src, __global float *dst, const uint n)
{
    uint i = get_global_id(0);
    GLUE(__as, m__)("nop");
    if (i < n) dst[i] = src[i];
}
"""


@pytest.mark.parametrize("text", [HIDDEN_ASM, PASTED_ASM])
def test_inline_assembly_is_refused_by_the_check_and_the_grader(tmp_path, text):
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(text)
    report = run_check("float_copy", kernel)
    assert not report.passed and "which the course refuses" in report.message
    assert report.device_pass.ending.build_error            # never built, on any device
    out = subprocess.run([sys.executable, "-m", "helpers", "check", "float_copy", "--kernel",
                          str(kernel)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 1 and "which the course refuses" in out.stdout
    learner = tmp_path / "class" / "ann" / "kernels"
    learner.mkdir(parents=True)
    (learner / "float_copy.cl").write_text(text)
    [g] = grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], progress=False,
                sandbox=why_not() is None)
    assert g.status == "failed" and "which the course refuses" in g.message


def test_run_by_root_notebook_ids_start_somewhere_else_in_each_grade():
    """A process left by one grade (the pid namespace leaves none) could own another learner's
    copy in the next only if the ids came in the same order: they start at a random place."""
    from helpers.checking.grading.notebooks import notebook_users
    first, second = notebook_users(["ann", "ben"]), notebook_users(["ann", "ben"])
    if os.geteuid() != 0:
        assert first is None and second is None      # an ordinary user has no ids to give
        return
    assert len(set(first.values())) == 2 and first != second


class Listener:
    """A TCP listener on this machine's loopback that counts the connections it accepts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                continue

    def close(self):
        self.stop = True
        self.thread.join(5)
        self.sock.close()


def alive(marker: str) -> list[str]:
    out = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if "pgrep" not in line]


@needs_sandbox
def test_a_sandboxed_process_reaches_nothing_and_leaves_nothing(tmp_path):
    scratch, other = tmp_path / "ann", tmp_path / "ben"
    scratch.mkdir()
    other.mkdir()
    (other / "float_copy.cl").write_text("ben's kernel")
    listener = Listener()
    marker = f"course-sandbox-{os.getpid()}-{time.monotonic_ns()}"
    probe = f"""
import json, os, socket, subprocess
seen = {{}}
try:
    socket.create_connection(("127.0.0.1", {listener.port}), timeout=2); seen["net"] = "connected"
except OSError as e:
    seen["net"] = type(e).__name__
seen["solutions"] = os.path.exists({str(ROOT / "solutions")!r}) and os.listdir({str(ROOT / "solutions")!r})
seen["answers"] = [p for p in ({str(ROOT / ".git" / "HEAD")!r}, {str(ROOT / "tests" / "right")!r})
                   if os.path.exists(p) and (os.path.isfile(p) or os.listdir(p))]
seen["other"] = os.path.exists({str(other / "float_copy.cl")!r})
try:
    for k in range(3):       # files below the limit on one file's size, more than /run holds
        with open(f"/run/{marker}-{{k}}", "wb") as f:
            f.write(b"0" * (30 << 20))
    seen["run"] = "written"
except OSError as e:
    seen["run"] = e.strerror
try:
    open({str(ROOT / "helpers" / "__init__.py")!r}, "a").write("x"); seen["readme"] = "written"
except OSError as e:
    seen["readme"] = e.strerror
try:
    with open("/dev/shm/{marker}", "wb") as f:
        for _ in range(3):
            f.write(b"0" * (60 << 20))
    seen["shm"] = "written"
except OSError as e:
    seen["shm"] = e.strerror
open("mine.txt", "w").write("ok")
for _ in range(5):
    subprocess.Popen(["sh", "-c", "sleep 300", {marker!r}], start_new_session=True)
born = 0
try:
    for _ in range(2000):
        subprocess.Popen(["sh", "-c", "sleep 300", {marker!r}]); born += 1
except OSError:
    pass
seen["born"] = born
print(json.dumps(seen))
"""
    jail = Jail(scratch=scratch, hidden=[other])
    # root is exempt from the limit on a user's processes: a control group bounds them there
    groups = cgroup(f"course-test-{os.getpid()}", processes=64)
    if os.geteuid() == 0 and not groups:
        pytest.fail("run by root, the sandbox could make no control group to bound processes")
    try:
        run = subprocess.run(jail.command([sys.executable, "-c", probe]), capture_output=True,
                             text=True, timeout=120,
                             preexec_fn=lambda: limits(processes=64, groups=groups),
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        listener.close()
        drop(groups)
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["net"] != "connected" and listener.accepted == 0
    assert not seen["solutions"] and seen["answers"] == [] and seen["other"] is False
    assert seen["run"] == "No space left on device"      # every tmpfs it may write is bounded
    assert seen["readme"] == "Read-only file system"
    assert seen["shm"] != "written" and not Path(f"/dev/shm/{marker}").exists()
    assert seen["born"] < 64                             # the process limit held
    assert (scratch / "mine.txt").read_text() == "ok"
    time.sleep(0.5)
    assert alive(marker) == []                          # nothing outlived the sandbox


ATTACK = """
import glob, json, os, socket, subprocess
seen = {{}}
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2); seen["net"] = "connected"
except OSError as e:
    seen["net"] = type(e).__name__
# every kernel it can find but its own (its copy, and the copy that copy was made from) and the
# course's shipped skeletons (a course cloned under /tmp has its kernels/ there)
seen["kernels"] = sorted(k for k in glob.glob("/tmp/**/kernels/*.cl", recursive=True)
                         if not k.startswith(("/tmp/course/", {root!r})) and "/ann/" not in k)
seen["grades"] = os.path.exists({out!r})
# a file only root may read, where the sandbox shows it: the grader's rights stay out
seen["secret"] = {secret!r} and os.access({secret!r}, os.R_OK)
seen["ids"] = [os.getuid(), os.getgid(), os.getgroups()]
seen["answers"] = (glob.glob({solutions!r} + "/*.cl") + glob.glob({git!r})
                   + glob.glob({right!r} + "/*/*.cl"))
# copies of the course elsewhere on the disk: under /opt, and beside the grader's folders
seen["copies"] = [p for where in {copies!r}
                  for p in glob.glob(where + "/**/solutions/*.cl", recursive=True)]
later = "sleep 5; echo TAMPERED >> {out!r}/grades.csv; echo '#error' >> {ben!r}"
for _ in range(20):
    subprocess.Popen(["sh", "-c", later, {marker!r}], start_new_session=True)
print(json.dumps(seen))
# the notebook passes only if it saw nothing: no network, no other kernel, no grade, no answer
assert seen["net"] != "connected" and not seen["kernels"] and not seen["grades"] \
    and not seen["answers"] and not seen["copies"] and not seen["secret"] \
    and seen["ids"][0] != 0, seen
"""


@needs_sandbox
@pytest.mark.once
def test_a_notebook_that_attacks_the_class_gets_nothing_and_nothing_outlives_the_grade(tmp_path):
    """Ann's notebook 00, with one cell more, runs while the class is graded: it reaches for the
    network, for every kernel on the machine and for the grades, and leaves processes that would
    rewrite them after the grade. Ben's kernel and the grades stay as the grader made them."""
    listener = Listener()
    marker = f"course-attack-{os.getpid()}-{time.monotonic_ns()}"
    out = tmp_path / "out"
    # run by root, a file of root's alone (0600) that the sandbox does not hide (not /etc/shadow,
    # which a machine may leave readable to all)
    secret = Path(tempfile.mkdtemp(prefix="course-test-", dir="/etc")) / "secret" \
        if os.geteuid() == 0 else None
    if secret is not None:
        secret.parent.chmod(0o755)
        secret.write_text("root's")
        secret.chmod(0o600)
    # issue 55 point 4: copies of the course, solutions and all, where a sandbox that binds "/"
    # less a list would show them: under /opt, and in a grader's folder on the disk (by root,
    # /var/lib; else the home, which the sandbox hides anyway)
    copies = [Path(tempfile.mkdtemp(prefix="course-copy-", dir=where))
              for where in (("/opt", "/var/lib") if os.geteuid() == 0 else (Path.home(),))]
    for copy in copies:
        (copy / "course" / "solutions").mkdir(parents=True)
        (copy / "course" / "solutions" / "float_copy.cl").write_text(SOLUTION)
        for folder in (copy, copy / "course", copy / "course" / "solutions"):
            folder.chmod(0o755)
    book = json.loads(committed("notebooks/00-host-and-device.ipynb"))
    first = next(i for i, c in enumerate(book["cells"]) if c["cell_type"] == "code")
    ben_kernel = tmp_path / "class" / "ben" / "kernels" / "float_copy.cl"
    book["cells"].insert(first + 1, {"cell_type": "code", "metadata": {}, "outputs": [],
                                     "execution_count": None, "source": ATTACK.format(
                                         port=listener.port, out=str(out), ben=str(ben_kernel),
                                         marker=marker, solutions=str(ROOT / "solutions"),
                                         secret=str(secret or ""),
                                         copies=[str(c) for c in copies],
                                         root=str(ROOT / "kernels") + "/",
                                         git=str(ROOT / ".git" / "HEAD"),
                                         right=str(ROOT / "tests" / "right"))})
    for learner in ("ann", "ben"):
        folder = tmp_path / "class" / learner
        (folder / "kernels").mkdir(parents=True)
        (folder / "kernels" / "float_copy.cl").write_text(SOLUTION)
    (tmp_path / "class" / "ann" / "notebooks").mkdir()
    (tmp_path / "class" / "ann" / "notebooks" / "00-host-and-device.ipynb").write_text(
        json.dumps(book))
    try:
        grades = grade(tmp_path / "class", out, only=["float_copy"], notebooks=True,
                       progress=False)      # run by root: as a user of its own
    finally:
        listener.close()
        if secret is not None:
            shutil.rmtree(secret.parent)
        for copy in copies:
            shutil.rmtree(copy)
    by = {(g.learner, g.exercise): g for g in grades}
    assert by["ann", "notebook 00-host-and-device"].status == "passed", \
        by["ann", "notebook 00-host-and-device"].message
    assert listener.accepted == 0
    written = (out / "grades.csv").read_text()
    assert alive(marker) == []                          # the pid namespace took them all
    time.sleep(6)                                       # when the left processes would have struck
    assert (out / "grades.csv").read_text() == written and "TAMPERED" not in written
    assert ben_kernel.read_text() == SOLUTION
    assert out.stat().st_mode & 0o777 == 0o700


@needs_sandbox
@pytest.mark.once
def test_a_notebook_that_swallows_its_failing_check_does_not_pass(tmp_path):
    book = json.loads(committed("notebooks/00-host-and-device.ipynb"))
    for cell in book["cells"]:
        text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and text.startswith("%%kernel float_copy"):
            cell["source"] = ("try:\n    check('float_copy')\nexcept BaseException:\n"
                              "    pass\n")
    by = grade_ann(tmp_path, committed("kernels/float_copy.cl"), book)
    assert by["float_copy"].status == "failed"
    nb = by["notebook 00-host-and-device"]
    assert nb.status == "failed" and "not a cell of its own" in nb.message, nb.message


@needs_sandbox
@pytest.mark.once
def test_the_same_class_graded_twice_gets_the_same_grades(tmp_path):
    wrong = ROOT / "tests" / "wrong" / "float_copy"
    for learner, kernel in (("ann", wrong / "no_guard.cl"), ("ben", wrong / "off_by_one_past.cl"),
                            ("cy", ROOT / "solutions" / "float_copy.cl")):
        (tmp_path / "class" / learner / "kernels").mkdir(parents=True)
        (tmp_path / "class" / learner / "kernels" / "float_copy.cl").write_bytes(kernel.read_bytes())
    runs = [grade(tmp_path / "class", tmp_path / f"out{k}", only=["float_copy"], progress=False)
            for k in (1, 2)]
    assert [(g.learner, g.status, g.seed) for g in runs[0]] == \
        [(g.learner, g.status, g.seed) for g in runs[1]]
    assert runs[0][2].status == "passed" and "passed" not in (runs[0][0].status,
                                                              runs[0][1].status)


@needs_sandbox
@pytest.mark.once
def test_a_link_in_a_class_archive_is_refused_for_its_learner_alone(tmp_path):
    archive = tmp_path / "class.tar"
    with tarfile.open(archive, "w") as t:
        for learner in ("ann", "ben"):
            data = SOLUTION.encode()
            info = tarfile.TarInfo(f"{learner}/kernels/float_copy.cl")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("ann/notes.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/shadow"
        t.addfile(link)
        link = tarfile.TarInfo("ben/kernels/sum_ints.cl")
        link.type, link.linkname = tarfile.SYMTYPE, "../../ann/kernels/float_copy.cl"
        t.addfile(link)
    grades = grade(archive, tmp_path / "out", only=["float_copy", "sum_ints"], progress=False)
    by = {(g.learner, g.exercise): g for g in grades}
    assert by["ann", "float_copy"].status == by["ben", "float_copy"].status == "passed"
    assert "refused" in by["ben", "sum_ints"].message and "link" in by["ben", "sum_ints"].message


@needs_sandbox
@pytest.mark.once
def test_a_graded_performance_exercise_is_timed_beside_the_solution_inside_the_sandbox(tmp_path):
    """The sandbox hides solutions/ from the worker: the solution's text comes with the request."""
    folder = tmp_path / "class" / "ann" / "kernels"
    folder.mkdir(parents=True)
    (folder / "strided_fix.cl").write_bytes((ROOT / "solutions" / "strided_fix.cl").read_bytes())
    grades = grade(tmp_path / "class", tmp_path / "out", only=["strided_fix"], progress=False)
    assert grades[0].status == "passed", grades[0].message
    assert "the solution reaches" in grades[0].message, grades[0].message
    assert "not on this server" not in grades[0].message


@needs_sandbox
def test_run_by_root_a_graded_check_worker_is_a_user_of_its_own(tmp_path, capsys):
    """Run by root, each graded check worker runs as a user id no account has, in no group of the
    instructor's, owning its folder: a root-only file outside the hidden folders stays closed to
    it, and the next worker gets another id. Run by an ordinary user, it runs as that user. Where
    no other user may run this Python (a pyenv under /root, as on CI's machine), the workers keep
    root's id (without capabilities), and the grader says so once."""
    from helpers.checking.sandbox import GradingSandbox
    secret = Path("/etc/shadow")       # root's alone, outside every folder the sandbox hides
    if not secret.is_file():
        pytest.fail("this test needs a file only root may read outside the hidden folders")
    box = GradingSandbox(hidden=[])
    probe = ("import json, os\nseen = {'ids': [os.getuid(), os.getgid()], 'groups': os.getgroups()}"
             f"\ntry:\n    seen['secret'] = open({str(secret)!r}).read()\nexcept OSError as e:\n"
             "    seen['secret'] = e.strerror\nprint(json.dumps(seen))")
    seen = []
    try:
        for k in range(2):
            folder = tmp_path / f"worker{k}"
            folder.mkdir()
            command, preexec = box.prepare([sys.executable, "-c", probe], folder)
            run = subprocess.run(command, preexec_fn=preexec, capture_output=True, text=True,
                                 timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
            assert run.returncode == 0, run.stderr[-2000:]
            seen.append(json.loads(run.stdout.strip().splitlines()[-1]))
            if os.geteuid() == 0:
                assert folder.stat().st_uid == seen[-1]["ids"][0]
    finally:
        box.close()
    said = capsys.readouterr().out
    if os.geteuid() == 0 and not box.others_run_python:   # this Python is root's alone: said once
        assert said.count("each check worker runs in the sandbox as root") <= 1
        assert sandbox_module._SAID                       # (here, or earlier in this process)
        assert all(s["ids"] == [0, 0] for s in seen)
        return
    assert all(s["secret"] == "Permission denied" for s in seen)
    if os.geteuid() == 0:
        for s in seen:
            assert s["ids"][0] == s["ids"][1] and s["ids"][0] >= 1_950_000_000
            assert s["groups"] in ([], [s["ids"][1]])
        assert seen[0]["ids"] != seen[1]["ids"]
    else:   # an ordinary user: the grader's own rights (the note the grader prints says so)
        assert all(s["ids"][0] == os.getuid() for s in seen)


# -- what a sandbox started by root inherits: the grader's keyring, its terminal, its reads ---------

KEYRING_DRIVER = r"""
import ctypes, json, subprocess, sys
from pathlib import Path
from helpers.checking.sandbox import GradingSandbox
libc, L = ctypes.CDLL(None, use_errno=True), ctypes.c_long
libc.syscall(250, L(1), None)      # the grader in a session keyring of its own (pam_keyinit, systemd)
assert libc.syscall(248, b"user", b"grader-secret", b"TOP-SECRET-TOKEN", ctypes.c_size_t(16),
                    L(-3)) > 0       # add_key into it
PROBE = '''
import ctypes
libc, L = ctypes.CDLL(None, use_errno=True), ctypes.c_long
buf, seen = ctypes.create_string_buffer(4096), []
session = libc.syscall(250, L(0), L(-3), L(0))     # KEYCTL_GET_KEYRING_ID of the session keyring
n = libc.syscall(250, L(11), L(session), buf, L(4096))   # its keys
for key in ctypes.cast(buf, ctypes.POINTER(ctypes.c_int32))[:max(n, 0) // 4]:
    m = libc.syscall(250, L(11), L(key), buf, L(4096))
    seen.append(buf.raw[:max(m, 0)].decode(errors="replace"))
planted = libc.syscall(248, b"user", b"planted", b"x", ctypes.c_size_t(1), L(session))
print(seen, planted)
'''
box = GradingSandbox(hidden=[])
folder = Path(sys.argv[1])
command, preexec = box.prepare([sys.executable, "-c", PROBE], folder)
run = subprocess.run(command, preexec_fn=preexec, capture_output=True, text=True, timeout=60)
box.close()
buf = ctypes.create_string_buffer(4096)
n = libc.syscall(250, L(11), L(-3), buf, L(4096))    # the grader's keyring afterwards
print(json.dumps({"code": run.returncode, "inside": run.stdout + run.stderr, "keys_after": n // 4}))
"""


@needs_sandbox
@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0 or os.uname().machine != "x86_64",
                    reason="root's sandbox switches users (keyctl's numbers: x86-64)")
def test_a_worker_run_by_root_neither_reads_nor_fills_the_graders_session_keyring(tmp_path):
    run = subprocess.run([sys.executable, "-c", KEYRING_DRIVER, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0, seen["inside"]
    assert "TOP-SECRET-TOKEN" not in seen["inside"] and seen["keys_after"] == 1, seen


def test_a_notebook_never_gets_the_graders_terminal(monkeypatch, tmp_path):
    """A notebook's stdin is /dev/null, never the grader's (its terminal: what the instructor
    types, and escape sequences written past the captured output)."""
    from helpers.checking.grading import notebooks
    asked = {}

    class FakePopen:       # the notebook's process, as _run_notebook starts it
        returncode, pid = 0, 0

        def __init__(self, command, **kwargs):
            asked.update(kwargs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def communicate(self, timeout=None):
            return "", ""

        def poll(self):
            return 0
    monkeypatch.setattr(subprocess, "Popen", FakePopen)
    notebooks._run_notebook(tmp_path, tmp_path / "notebooks" / "00.ipynb", 5, None, None)
    assert asked["stdin"] is subprocess.DEVNULL and asked["start_new_session"] is True


def test_the_grader_reads_oclgrinds_log_only_as_a_regular_file_in_the_workers_folder(tmp_path):
    """A graded worker owns its folder: a link it leaves where Oclgrind's log lies is never
    followed by the grader (root, reading what only root may read)."""
    from helpers.checking import passes
    secret = tmp_path / "secret.txt"
    secret.write_text("Oclgrind: root's secret\n" * 10)
    log = tmp_path / "worker" / "oclgrind.log"
    log.parent.mkdir()
    log.symlink_to(secret)
    assert passes._log_size(log) == 0 and passes._read_log(log, 0) == ""
    log.unlink()
    os.mkfifo(log)                                   # nor waits on a pipe
    assert passes._log_size(log) == 0 and passes._read_log(log, 0) == ""
    log.unlink()
    log.write_text("Oclgrind - a report\n")
    assert passes._read_log(log, 0) == "Oclgrind - a report\n"


# the slow kernel each technique exercise starts from (its record's given kernel, renamed as the
# exercise's), or, where it has none, a corpus kernel with right values and the technique missing
TECHNIQUE_MISSING = {"dot_chains": "dot_chains/group_major_index.cl",
                     "column_sums": "column_sums/group_major.cl",
                     "transpose": "transpose/unpadded_tile.cl",
                     "skewed_tile": "skewed_tile/tile_decoy.cl",
                     "leaky_relu": "leaky_relu/ternary.cl",
                     "softmax_group": "softmax_group/chunk_per_item.cl",
                     "softmax_online": "softmax_online/three_passes.cl"}


def _starting_kernel(ex) -> str:
    import re
    if ex.performance is not None and ex.performance.given:
        file, function = ex.performance.given
        text = (ROOT / "kernels" / "studies" / file).read_text()
        return re.sub(rf"\b{function}\b", ex.name, text)
    return (ROOT / "tests" / "wrong" / TECHNIQUE_MISSING[ex.name]).read_text()


@needs_sandbox
def test_every_technique_exercise_is_judged_inside_the_sandbox(tmp_path):
    """The warp model runs inside a graded worker's sandbox (its plugin from the grader's hidden
    cache, its counts in the worker's own folder): the slow kernel of every technique exercise
    fails there as it fails outside, none passes on its right values alone."""
    from helpers.exercises import exercises
    from helpers.warp import build
    built = build.plugin()      # in this run's cache, as a grader's own cache holds it
    assert built.path is not None, built.why
    technique = [ex for ex in exercises() if ex.technique is not None]
    assert {ex.name for ex in technique if not ex.performance or not ex.performance.given} == \
        set(TECHNIQUE_MISSING)
    folder = tmp_path / "class" / "slow" / "kernels"
    folder.mkdir(parents=True)
    for ex in technique:
        (folder / f"{ex.name}.cl").write_text(_starting_kernel(ex))
    grades = grade(tmp_path / "class", tmp_path / "out", only=[ex.name for ex in technique],
                   progress=False)
    assert sandbox_module.why_not() is None
    by = {g.exercise: g for g in grades}
    for ex in technique:
        g = by[ex.name]
        assert g.status == "failed", (ex.name, g.status, g.message[:600])
        assert "not judged" not in g.message and "warp model" in g.message, g.message[:600]


@needs_sandbox
def test_the_allow_list_keeps_linked_driver_folders_and_hides_usr_local(tmp_path, monkeypatch):
    """A driver's folder named through a link (/opt/rocm -> /opt/rocm-6.2, oneAPI's latest) is
    reached inside as outside; and /usr/local stays empty (but for what the sandbox puts back)
    even where a Python's prefix is /usr, which binds /usr whole (Debian's Python)."""
    real = tmp_path / "rocm-6.2" / "lib"
    real.mkdir(parents=True)
    (real / "libamdocl64.so").write_text("a driver")
    (tmp_path / "rocm").symlink_to("rocm-6.2")
    monkeypatch.setenv("OCL_ICD_FILENAMES", str(tmp_path / "rocm" / "lib" / "libamdocl64.so"))
    wanted = Jail.wanted
    monkeypatch.setattr(Jail, "wanted", lambda self: [*wanted(self), Path("/usr")])
    jail = Jail(scratch=Path("/"))
    run = subprocess.run(jail.command(["sh", "-c", f"cat {tmp_path}/rocm/lib/libamdocl64.so; "
                                                   f"echo; ls -A /usr/local"]),
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    said, *local = run.stdout.splitlines()
    assert said == "a driver"
    put_back = {p.relative_to("/usr/local").parts[0] for p in map(Path, jail.wanted())
                if p.is_relative_to("/usr/local") and p != Path("/usr/local")}
    put_back |= {p.relative_to("/usr/local").parts[0] for p in driver_folders()
                 if p.is_relative_to("/usr/local") and p != Path("/usr/local")}
    assert set(local) <= put_back, (local, put_back)


def test_a_check_worker_times_as_always_under_the_grading_profile(monkeypatch):
    """The grading profile shortens a notebook's measurements, never a check's own timing (a
    worker's): a verdict does not change in the profile."""
    from helpers import timing
    monkeypatch.setenv("COURSE_GRADING", "1")
    monkeypatch.setenv("COURSE_CHILD", "1")
    launched = []

    class Event:
        profile = type("P", (), {"start": 0, "end": 1000})()

        def wait(self):
            return None

    def launch():
        launched.append(1)
        return Event()
    monkeypatch.setattr(timing, "event_seconds", lambda e: 1e-6)
    t = timing.time_kernel(launch, warmup=2, repeats=10)
    assert len(t.samples) == 10 and len(launched) == 12
