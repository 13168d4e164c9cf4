"""One way to run something apart (helpers.workers): requests, events, limits, warm workers."""

from __future__ import annotations

import pytest

from helpers import workers
from helpers.checking import run_check
from helpers.paths import ROOT

TASK = "tests.worker_task"


def _events(child, payload, **limits):
    seen = []
    out = child.request(payload, on_event=lambda ev: seen.append(ev), **limits)
    return out, seen


@pytest.fixture
def child():
    c = workers.Child(workers.Key(TASK))
    yield c
    c.stop()


@pytest.mark.once
def test_requests_are_served_by_one_process_and_its_prints_stay_out_of_the_events(child):
    out, seen = _events(child, {"do": "echo", "value": 7}, timeout=60)
    assert out.ended and out.clean and [e["event"] for e in seen] == ["start", "echo"]
    assert seen[1]["value"] == 7 and "said on stdout" in out.output
    out2, seen2 = _events(child, {"do": "echo", "value": 8}, timeout=60)
    assert out2.ended and seen2[0]["pid"] == seen[0]["pid"] and "said on stdout" in out2.output
    assert out2.output.count("said on stdout") == 1   # each request's own output only
    assert {"started", "asked", "ready", "start", "ended"} <= set(out2.marks)


@pytest.mark.once
def test_a_worker_imports_no_figures_or_widgets(child):
    out, seen = _events(child, {"do": "modules"}, timeout=60)
    assert out.ended and seen[-1]["loaded"] == []


@pytest.mark.once
def test_limits_end_the_child_and_say_why(child):
    out, _ = _events(child, {"do": "sleep", "seconds": 30}, timeout=1.5)
    assert out.hung and not out.ended and not child.alive
    c = workers.Child(workers.Key(TASK))
    try:
        out, _ = _events(c, {"do": "flood"}, timeout=60, output_limit=1 << 16)
        assert out.flooded and "bytes left out" in out.output and len(out.output) < 10_000
    finally:
        c.stop()


@pytest.mark.once
def test_a_crash_leaves_its_signal_and_the_drivers_line():
    c = workers.Child(workers.Key(TASK))
    try:
        out, seen = _events(c, {"do": "abort"}, timeout=60)
    finally:
        c.stop()
    assert not out.ended and out.exit_code is not None and seen[0]["event"] == "start"
    how, said = workers.crash_summary(out.exit_code, out.output)
    assert how == "SIGABRT" and "Assertion" in said


@pytest.mark.once
def test_the_tasks_own_failure_is_exit_code_3_with_its_traceback():
    out = workers.run_once(workers.Key(TASK), {"do": "raise"}, timeout=60)
    assert out.exit_code == 3 and "ValueError: the task's own bug" in out.output


def _larger_cases(keys) -> list:
    """The Oclgrind worker of the larger cases (no uninitialized-value plugin)."""
    return [k for k in keys if "OCLGRIND_LOG" in dict(k.env)
            and "OCLGRIND_UNINITIALIZED" not in dict(k.env)]


def _pids():
    return {k: c.proc.pid for k, c in workers.POOL._idle.items()}


def test_a_passing_check_keeps_its_workers_and_a_failing_one_replaces_them(monkeypatch):
    monkeypatch.setenv(workers.WORKERS_VARIABLE, "1")
    workers.POOL.close()
    first = run_check("float_copy", solutions=True)
    assert first.passed and not first.device_pass.timing.warm
    kept = _pids()
    # the device's worker, Oclgrind's, and Oclgrind's for the larger cases (no uninitialized-value
    # plugin: options.UNINITIALIZED_UP_TO)
    assert len(kept) == 3
    assert sum("OCLGRIND_UNINITIALIZED" in dict(k.env) for k in kept) == 1
    again = run_check("float_copy", solutions=True)
    assert again.passed and again.device_pass.timing.warm and again.oclgrind_pass.timing.warm
    assert _pids() == kept   # the same processes, kept again
    wrong = run_check("float_copy", ROOT / "tests" / "wrong" / "float_copy" / "no_guard.cl")
    assert not wrong.passed and wrong.device_pass.timing.warm
    after = _pids()
    # the workers that ran the wrong kernel are fresh ones now (it went wrong in the small
    # cases: the larger cases' worker never ran it, and is kept)
    ran = [k for k in kept if k not in _larger_cases(kept)]
    assert after.keys() == kept.keys() and all(after[k] != kept[k] for k in ran)
    assert run_check("float_copy", solutions=True).passed   # fresh workers, same verdicts


def test_a_hung_kernel_ends_its_worker_and_the_next_check_works(monkeypatch):
    import helpers.checking.checker as check_run
    monkeypatch.setattr(check_run, "HANG_OCLGRIND_TIMEOUT", 2.0)   # Oclgrind's look: not tested here
    monkeypatch.setenv(workers.WORKERS_VARIABLE, "1")
    workers.POOL.close()
    run_check("float_copy", solutions=True)
    kept = _pids()
    report = run_check("float_copy", ROOT / "tests" / "wrong" / "float_copy" / "endless.cl",
                       run_timeout=3)
    assert not report.passed and report.device_pass.ending.hung_in is not None
    after = _pids()
    ran = [k for k in kept if k not in _larger_cases(kept)]   # the kernel never reached that one
    assert all(after.get(k) != kept[k] for k in ran)
    assert run_check("float_copy", solutions=True).passed


def test_no_workers_mode_and_owners(monkeypatch):
    monkeypatch.setenv(workers.WORKERS_VARIABLE, "0")
    workers.POOL.close()
    assert run_check("float_copy", solutions=True).passed and _pids() == {}
    monkeypatch.setenv(workers.WORKERS_VARIABLE, "1")
    run_check("float_copy", solutions=True, owner="ada")
    assert {k.owner for k in _pids()} == {"ada"}
    other = run_check("float_copy", solutions=True, owner="bob")
    assert not other.device_pass.timing.warm   # never another learner's worker
    assert {k.owner for k in _pids()} == {"ada", "bob"}
    workers.POOL.close(owner="ada")
    assert {k.owner for k in _pids()} == {"bob"}
    workers.POOL.close()


def test_an_oclgrind_worker_that_reported_is_not_asked_again():
    """Oclgrind counts its reports over its whole life and goes silent after OCLGRIND_MAX_ERRORS:
    a second pass in the same worker would find nothing (seen: a divergent barrier)."""
    from helpers.checking.learner import Submission
    from helpers.checking.options import CheckOptions
    from helpers.checking.passes import Check, PassPlan, oclgrind_environment, run_pass
    from helpers.device import DeviceSpec, oclgrind_device
    from helpers.exercises import get
    ex = get("parallel_sum")
    small = [c for c in ex.cases if c.small]
    path = ROOT / "tests" / "wrong" / "parallel_sum" / "barrier_in_branch.cl"
    chk = Check(ex, Submission(path, path.read_text()), 1, CheckOptions(), workers.Lease())
    spec = DeviceSpec.of(oclgrind_device())
    try:
        passes = [run_pass(chk, spec, small, PassPlan(60, env=oclgrind_environment()))
                  for _ in range(2)]
    finally:
        chk.lease.release(False)
    assert all(p.findings and p.findings[0].kind == "divergent_barrier" for p in passes)


def test_a_pipe_closed_under_the_reader_ends_it_quietly():
    """stop() closes the child's stdout while the reading thread may be in it: the thread must end
    with the end-of-child mark, not an exception (pytest warned of one in CI before)."""
    import queue
    from types import SimpleNamespace

    class Closed:
        def __iter__(self):
            raise OSError(9, "Bad file descriptor")

    for stream in (Closed(), iter(())):
        fake = SimpleNamespace(proc=SimpleNamespace(stdout=stream), events=queue.Queue())
        workers.Child._read(fake)
        assert fake.events.get_nowait() is None


def test_a_device_pass_is_never_taken_as_stuck_before_its_kernel_is_built():
    """The stuck watch (run._stuck_watch) may call a device pass stuck once Oclgrind has seen a
    divergent barrier; a worker still starting (NVIDIA's context: 1.8 s) or building has not yet
    run anything, so the watch waits for the build (here a watch that would call it stuck at once,
    in a fresh worker, on a kernel that never ends)."""
    from helpers.checking.learner import Submission
    from helpers.checking.options import CheckOptions
    from helpers.checking.passes import Check, PassPlan, run_pass
    from helpers.device import DeviceSpec, choose_device
    from helpers.exercises import get
    ex = get("float_copy")
    path = ROOT / "tests" / "wrong" / "float_copy" / "endless.cl"
    chk = Check(ex, Submission(path, path.read_text()), 1, CheckOptions(owner="stuck-watch"),
                workers.Lease())
    try:
        p = run_pass(chk, DeviceSpec.of(choose_device()), list(ex.cases[:2]),
                     PassPlan(60, guard=True), stuck=lambda moved_at: 0.05)
    finally:
        chk.lease.release(False)
    e = p.ending
    assert e.built and e.hung_in is not None and e.hung_in >= 0 and e.stuck_after == 0.05


@pytest.mark.once
def test_a_child_that_nests_thousands_of_folders_is_removed_whole():
    """Issue 55 point 1: a learner's code made 3,000 nested folders in its worker's folder and
    removing them raised RecursionError in the grader; now the folder goes, however deep."""
    c = workers.Child(workers.Key(TASK))
    folder = c.dir
    out, seen = _events(c, {"do": "nest", "depth": 3000}, timeout=120)
    assert out.ended and seen[-1]["event"] == "nested"
    assert (folder / "d" / "d" / "d").is_dir()
    c.stop()
    assert not folder.exists()


@pytest.mark.once
def test_remove_tree_takes_any_depth_and_follows_no_link(tmp_path):
    import os

    from helpers.paths import remove_tree
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "precious").write_text("x")
    top = tmp_path / "top"
    top.mkdir()
    here = os.getcwd()
    try:
        os.chdir(top)
        for _ in range(3000):
            os.mkdir("d")
            os.chdir("d")
        os.symlink(keep, "link")
    finally:
        os.chdir(here)
    remove_tree(top)
    assert not top.exists() and (keep / "precious").read_text() == "x"
    remove_tree(tmp_path / "never-there")   # nothing to remove: no error


@pytest.mark.once
def test_no_flood_of_events_keeps_a_child_past_its_cap(child):
    """Issue 55 point 2: a kernel wrote a fake "built" event every 10 s and each renewed the time
    limit: the grade never ended. Renewals now stop at the request's cap."""
    import threading
    result = {}
    assert _events(child, {"do": "echo", "value": 1}, timeout=60)[0].ended   # started and warm

    def ask():
        result["out"] = child.request({"do": "renew"}, timeout=0.5, on_event=lambda ev: 1.0,
                                      cap=2.0)
    asking = threading.Thread(target=ask, daemon=True)
    asking.start()
    asking.join(60)      # without the cap the request never returns
    assert not asking.is_alive(), "the child's events kept it alive past its cap"
    out = result["out"]
    assert out.hung and not out.ended and out.marks.get("built") is not None


@pytest.mark.once
def test_the_pool_logs_why_it_killed_a_worker(child, caplog):
    """Issue 57 point 7: the worker pool logs through logging (helpers.workers's logger)."""
    import logging
    with caplog.at_level(logging.DEBUG, logger="helpers.workers"):
        out = child.request({"do": "sleep", "seconds": 30}, timeout=0.5)
    assert out.hung
    said = [r.getMessage() for r in caplog.records if r.name == "helpers.workers"]
    assert any("killed: past its time limit" in m for m in said), said
