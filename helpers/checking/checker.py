"""Checking a learner's kernel: ``check("NAME")`` in a notebook, :func:`run_check` for a report.

A check runs the kernel in workers apart from the calling process (:mod:`.passes`), the device pass
and the Oclgrind pass side by side, combines them into the verdict (:mod:`.verdict`) and, for a
performance exercise that passed, times it (:mod:`.diagnosis`'s speed report). Its workers are kept
warm for the next check when this one passed (or its kernel did not build); a worker that ran a
kernel that failed, crashed, hung or was stopped is discarded and a fresh one started in its place.
"""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from threading import Event

import pyopencl as cl

from .. import settings, workers
from ..device import DeviceSpec, choose_device, describe
from ..exercises import device_limits, get, load_registry_file, uses_local_memory
from ..exercises.passed import remember_pass
from ..kernels import KERNELS, display_path, kernel_path, solutions_on
from . import learner
from .diagnosis import (
    WIDTH,
    device_failure,
    hints_line,
    indent,
    oclgrind_report,
    outside_a_buffer,
    speed_report,
    wrapped,
)
from .observers import publish
from .oclgrind_pass import merged, oclgrind_pass, oclgrind_split
from .options import (
    HANG_OCLGRIND_TIMEOUT,
    SPEED_TIMEOUT,
    STUCK_AFTER_DIVERGENCE,
    STUCK_AFTER_DIVERGENCE_CPU,
    CheckOptions,
)
from .passes import (
    Check,
    Passes,
    PassPlan,
    PassResult,
    oclgrind_cases,
    run_pass,
    small_cases,
    widest_case,
)
from .verdict import CheckReport, reproduce_line, verdict, with_warnings


class KernelCheckFailed(AssertionError):
    """A kernel that failed its check; the message is the diagnosis."""

    def __init__(self, report: CheckReport):
        super().__init__(report.message)
        self.report = report

    def _render_traceback_(self) -> list[str]:  # IPython shows the diagnosis, not a traceback
        return [wrapped(f"KernelCheckFailed: {self.report.message}")]



class CheckUsageError(ValueError):
    """A check asked for something that does not exist (exercise, kernel file)."""



def run_check(name: str, kernel: str | Path | None = None, options: CheckOptions | None = None,
              *, on_verdict=None, **option_values) -> CheckReport:
    """Check exercise ``name`` and return a :class:`CheckReport` (never raises for a bad kernel).

    :arg kernel: a kernel file; default ``kernels/NAME.cl`` (``solutions/`` with the switch).
    :arg options: a :class:`CheckOptions`; or its fields as keywords (``solutions``, ``device``,
        ``seed``, ``require_speed``, ...).
    :arg on_verdict: called with the verdict's message as soon as it is known, when the speed
        timing of a passed performance exercise is still to come and cannot change it (the report's
        message then goes on with the speed lines).
    """
    options = (options or CheckOptions()).but(**{
        k: tuple(v) if k == "registry_files" and v is not None else v
        for k, v in option_values.items()})
    for extra in options.registry_files:
        load_registry_file(extra)
    try:
        ex = get(name)
    except KeyError as e:
        raise CheckUsageError(e.args[0]) from None
    if kernel is None and ex.study_file:
        kernel = KERNELS / "studies" / ex.study_file
    path = Path(kernel) if kernel is not None else kernel_path(name, solutions=options.solutions)
    if not path.is_file():
        raise CheckUsageError(f"There is no kernel file {display_path(path)}.")
    seed = secrets.randbits(31) if options.seed is None else options.seed
    dev = choose_device(options.device)
    # built from its own text alone, read once here: not from the file (which may change, or be
    # a link), nor with any include path
    chk = Check(ex, learner.Submission.read(path, display_path(path)), seed, options,
                workers.Lease())
    if chk.submission.refused is not None:
        return refused_report(chk, dev, chk.submission.refused)
    report = None
    try:
        report = _passes(chk, dev, on_verdict)
        return report
    finally:
        # warm workers only from a check whose kernel passed or never ran
        dp = report.device_pass if report is not None else None
        chk.lease.release(report is not None and dp is not None and (
            report.passed and not report.miscompiled or bool(dp.ending.build_error or dp.ending.no_kernel)))


def _stuck_watch(beside, on_gpu: bool = True):
    """A device pass stuck at a divergent barrier (NVIDIA's, PoCL's) waits out its whole time
    limit (30 s): a work-group waits forever for work-items that never come. Once the Oclgrind pass
    beside it has ended having seen such a barrier, a device pass that has made no progress (no
    case started or ended) for STUCK_AFTER_DIVERGENCE seconds since then is taken as stuck there: a
    GPU runs each of the course's cases in milliseconds (the seconds count from when Oclgrind was
    seen too, because the worker's own work on a large case's results may take a while). Off a GPU
    STUCK_AFTER_DIVERGENCE_CPU: a CPU's runtime may first compile the kernel for the case's
    work-group size. The kernel is wrong either way (a barrier not every work-item reaches
    is undefined behaviour); Oclgrind's line leads. The watch is given when the device last made
    progress, and returns how long it had made none (the verdict says so)."""
    import time
    seen: list[float] = []
    after = STUCK_AFTER_DIVERGENCE if on_gpu else STUCK_AFTER_DIVERGENCE_CPU

    def stuck(moved_at: float) -> float | None:
        if beside is None or not beside.done():
            return None
        op = beside.result()
        if op is None or not any(f.kind == "divergent_barrier" for f in op.findings):
            return None
        now = time.perf_counter()
        seen[:] = seen or [now]
        return round(now - moved_at, 2) if now - max(seen[0], moved_at) > after else None
    return stuck


def refused_report(chk: Check, dev, why: str) -> CheckReport:
    """The verdict on a kernel file that is not built at all (an include, not text, too large):
    a build error to the grader, since no device ever saw it."""
    dp = PassResult(DeviceSpec.of(dev), [])
    dp.ending.build_error = why
    msg = f"{chk.ex.name} failed ({display_path(chk.path)}, not built):\n{indent([why])}"
    return CheckReport(chk.ex.name, False, msg, chk.path, chk.seed, dp)


class _Beside:
    """The Oclgrind pass on the small cases, run beside the device pass (they are independent);
    it is stopped when the device's outcome calls for no Oclgrind run, or a short one. With
    several Oclgrind workers (COURSE_OCLGRIND_WORKERS, see options.default_oclgrind_workers) the
    small cases are dealt out among them, and the widest case, which a kernel that passes them
    would run next, runs beside them from the start."""

    def __init__(self, chk: Check):
        options = chk.options
        self.small = small_cases(chk.ex)
        workers = 1 if options.passes_in_turn else options.grind_workers
        self.first = self.small + (widest_case(chk.ex) if self.small and workers > 1 else [])
        self.stop = Event()
        self.future = None
        if self.small and not options.passes_in_turn:
            pool = ThreadPoolExecutor(1, thread_name_prefix="oclgrind-pass")
            self.future = pool.submit(oclgrind_split, chk, self.first,
                                      options.oclgrind_run_timeout, self.stop, workers,
                                      anticipated=len(self.small))
            pool.shutdown(wait=False)   # the future completes; the thread ends with it

    def result(self, wanted: bool, within: float | None = None) -> PassResult | None:
        """The pass if it is wanted; else it is stopped (and None). ``within``: it is given that
        many seconds more, then stopped, and what it saw is kept."""
        if self.future is None:
            return None
        if not wanted:
            self.stop.set()
        elif within is not None:
            try:
                self.future.result(timeout=within)
            except FutureTimeout:
                self.stop.set()
        op = self.future.result()   # waited for even when stopped: no worker is left running
        return op if wanted else None


def _after_a_hang(chk: Check, beside: _Beside) -> PassResult | None:
    """What Oclgrind saw of a kernel the device hung in: the small cases' pass begun with the
    device's, given a short while more (else the first two small cases, shortly), then, if they
    were clean, the widest case: the device may have hung because the kernel wrote outside its
    memory first (a tile too small for the larger work-groups the contract allows: the widest
    case shows it)."""
    op = beside.result(True, within=HANG_OCLGRIND_TIMEOUT) if beside.future is not None else \
        oclgrind_pass(chk, beside.small[:2], HANG_OCLGRIND_TIMEOUT)
    ran = {c.key() for c in op.cases} if op is not None else set()
    wide = [c for c in widest_case(chk.ex) if c.key() not in ran]
    # (only after small cases that all ran right: a pass stopped while a case ran never will)
    if op is not None and wide and not op.findings and op.ending.hung_in is None and \
            not op.ending.cancelled and op.all_ok():
        more = oclgrind_pass(chk, wide, HANG_OCLGRIND_TIMEOUT, first_failure=True)
        op = merged(op, more) if more is not None else op
    return op


def _never_ran_through(chk: Check, dp: PassResult, beside: _Beside, where: str) -> CheckReport:
    """A kernel that does not build (nothing Oclgrind could add), or that does not end (a short
    Oclgrind run may still show why: a work-item stuck at a barrier, a write outside a buffer),
    or that floods its output."""
    ex, shown = chk.ex, display_path(chk.path)
    op = None
    if dp.ending.stuck_after is not None:
        op = beside.result(True)   # it saw the divergent barrier the device is stuck at
    elif dp.ending.hung_in is not None:
        op = _after_a_hang(chk, beside)
    else:
        beside.result(False)
    # a hang after an access outside a buffer (which can corrupt the process) is told so
    lines = device_failure(ex, dp, chk.options.run_timeout, outside=outside_a_buffer(op))
    if op is not None:
        # a divergent barrier is the usual reason a kernel never ends: that comes first
        found = oclgrind_report(ex, op, shown)
        lines = found + lines if any(f.kind != "other" for f in op.findings) else lines + found
    msg = "\n".join([f"{ex.name} failed ({shown}, on {where}):", indent(lines)])
    if dp.ending.hung_in is not None or dp.ending.flooded:   # it ran: its inputs can be had again
        msg += "\n" + reproduce_line(ex.name, chk.seed)
    return with_warnings(CheckReport(ex.name, False, msg, chk.path, chk.seed, dp, op))


def _oclgrind_facts(chk: Check, dp: PassResult, beside: _Beside) -> PassResult | None:
    """Oclgrind's pass over the small cases; if it found nothing wrong there, over the failing
    cases the device found too (the referee of a miscompile, or a bug only a larger case shows),
    the smallest first, stopping at the first that Oclgrind gets wrong as well. What it found
    wrong in the small cases is already the verdict: the larger ones (minutes on Oclgrind) would
    add nothing. (The cases it did run: a widest case stopped early, as a small case went wrong
    on a first run that Oclgrind then ran again without a plugin, still runs here once they are
    clean.)"""
    small, timeout = beside.small, chk.options.oclgrind_run_timeout
    op = beside.result(True) if beside.future is not None else (
        oclgrind_pass(chk, small, timeout) if small else None)
    ran = {c.key() for c in (op.cases if op is not None else beside.first)}
    extra = sorted((c for c in oclgrind_cases(chk.ex, dp)[len(small):] if c.key() not in ran),
                   key=lambda c: c.work_items)
    if extra and (op is None or op.all_ok() and not op.findings):
        more = oclgrind_pass(chk, extra, timeout, first_failure=True)
        op = merged(op, more) if op is not None and more is not None else (more or op)
    return op


def _local_memory_probe(chk: Check, spec: DeviceSpec, dp: PassResult,
                        small: list) -> PassResult | None:
    """The check's own look at local memory (see .poison), on the smallest cases the device got
    wrong, else on the smallest small cases: run while Oclgrind's pass goes on, for every kernel
    that uses local memory. Oclgrind's uninitialized-value plugin does not follow a value through
    a built-in function (``fmin(m, tile[k])`` of a slot nobody wrote is no finding of its), and
    where such a slot happens to hold a harmless value both the device and Oclgrind compute the
    right answer: two patterns in local memory, chosen to change any sum, minimum or maximum they
    enter, show it whatever the inputs."""
    if not uses_local_memory(chk.ex, chk.source):
        return None
    wrong = sorted(dp.failing(), key=lambda i: dp.cases[i].work_items)[:2]
    looked = [dp.cases[i] for i in wrong] or small[:4]
    return run_pass(chk, spec, looked, PassPlan(chk.options.run_timeout, guard=True, poison=True))


def _passes(chk: Check, dev, on_verdict=None) -> CheckReport:
    ex, path, seed, options = chk.ex, chk.path, chk.seed, chk.options
    name, spec, where = ex.name, DeviceSpec.of(dev), describe(dev)
    beside = _Beside(chk)
    dp = run_pass(chk, spec, ex.cases_for(device_limits(dev)),
                  PassPlan(options.run_timeout, guard=True),
                  stuck=_stuck_watch(beside.future, bool(dev.type & cl.device_type.GPU)))
    if dp.ending.internal_error:
        beside.result(False)
        return CheckReport(name, False, f"The checker itself failed (not your kernel's fault; "
                           f"please report it):\n{dp.ending.internal_error}", path, seed, dp)
    if dp.ending.build_error or dp.ending.no_kernel or dp.ending.hung_in is not None or dp.ending.flooded:
        return _never_ran_through(chk, dp, beside, where)
    probe = _local_memory_probe(chk, spec, dp, beside.small)   # while Oclgrind goes on
    op = _oclgrind_facts(chk, dp, beside)
    if op is not None and op.findings:
        probe = None        # what Oclgrind found, at its line, is the verdict
    report = verdict(chk, Passes(dp, op, probe), where)
    if report.passed and not report.miscompiled and ex.technique is not None:
        report = _technique(chk, report, where)
    warned = False
    if report.passed:
        remember_pass(name, chk.submission.digest)   # the text judged, not the file again
        if ex.performance is not None and not report.miscompiled:
            if on_verdict is not None and not options.speed_required:
                # the verdict (warnings included) now; the speed lines follow it when timed
                report, warned = with_warnings(report), True
                on_verdict(report.message)
            _timed(chk, spec, dev, report, where)
    return report if warned else with_warnings(report)


def _not_judged(report: CheckReport, chk: Check, where: str, why: str) -> CheckReport:
    """A technique exercise whose results are right but whose technique the warp model could
    not judge: not a pass, and its first line says so (each time: a grade has a row per learner)."""
    name = chk.ex.name
    report.passed, report.unjudged = False, why
    rest = report.message.split("\n", 1)[1] if "\n" in report.message else ""
    report.message = "\n".join([
        f"{name} not judged ({display_path(chk.path)}, on {where}): the results are right, but "
        f"the warp model could not run here ({why}), so the technique this exercise is about was "
        f"not judged, and a check that cannot judge it is not a pass.", *([rest] if rest else [])])
    return report


def _technique(chk: Check, report: CheckReport, where: str) -> CheckReport:
    """A right kernel of a technique exercise, judged on the warp model's counters (what a GPU's
    warps would do, on every device): it fails when the technique is missing. Where the model
    cannot run, the verdict says so and stands on the results (and the timing) alone."""
    from .counters import counters
    ex = chk.ex
    for case in (None, *ex.technique.cases):     # the representative case first, then the others
        facts = counters(ex.name, seed=chk.seed, owner=chk.options.owner, case=case,
                         submission=chk.submission)
        if not facts.get("available"):     # a right result alone is not a pass here
            return _not_judged(report, chk, where, facts.get("why") or "no reason given")
        missing = ex.technique.judge(facts)
        if missing is not None:
            break
    if missing is None:
        return report
    if case is not None:
        missing += f" (counted on the case {case.label()})"
    hint = hints_line(ex, missing)
    report.passed = False
    report.message = "\n".join([f"{ex.name} failed ({display_path(chk.path)}, on {where}):",
                                 indent([missing + " (The warp model: what a GPU's warps would "
                                         "do, not a measurement of this device.)"])]
                                + ([indent([hint])] if hint else []))
    report.counters = facts
    return report


def _timed(chk: Check, spec: DeviceSpec, dev, report: CheckReport, where: str) -> None:
    """A passed performance exercise's speed, beside the solution's and the device's peak; with
    the target required, a kernel short of it fails."""
    ex = chk.ex
    sp = _interleaved_speed(chk, spec)
    report.speed_pass = sp
    lines, reached = speed_report(ex, sp, dev)
    if chk.options.speed_required and reached is not True:
        report.passed = False
        report.message = (f"{ex.name} failed ({display_path(chk.path)}, on {where}): it is "
                          f"correct, but this check asks for its speed target too.\n"
                          + indent(lines)
                          + "".join("\n" + indent([h]) for h in [hints_line(ex, "")] if h))
    else:
        report.message += "\n" + indent(lines)


def _interleaved_speed(chk: Check, spec: DeviceSpec) -> PassResult:
    """The learner's kernel timed in its own worker and the solution and the starting kernel in a
    worker of the course's own that never runs learner code (the solution never enters a
    learner's process: a kernel there could send its text back in a diagnosis), one round each
    in turn, SPEED_ROUNDS times: a burst of other work on a laptop then slows a round of each,
    not all of one kernel's rounds. Each kernel keeps its fastest round (see worker_side.speed_main).
    The device's peaks are measured once, in the learner's first round."""
    from dataclasses import replace

    from ..kernels import solution_file
    from .worker_side import SPEED_ROUNDS
    ex = chk.ex
    theirs = solution_file(ex.name)
    ref = None if theirs is None else Check(ex, learner.Submission(
        theirs, theirs.read_text(encoding="utf-8")), chk.seed, replace(chk.options, owner=""),
        workers.Lease())
    sp, found, ref_clean = None, {}, True
    for r in range(SPEED_ROUNDS):
        mine = run_pass(chk, spec, [], PassPlan(SPEED_TIMEOUT, speed=True, rounds=1,
                                                peak=r == 0))
        sp = mine if sp is None else _best_rounds(sp, mine)
        if ref is not None and "error" not in found.get("solution", {}):
            rp = run_pass(ref, spec, [], PassPlan(SPEED_TIMEOUT, speed=True, rounds=1,
                                                  roles=("solution", "given"),
                                                  env={"COURSE_WORKER": "reference"}))
            if "solution" not in rp.speed:   # its run stopped (a crash, a hang): told so
                rp.speed["solution"] = {"error": "the solution's timing run stopped" + (
                    " (it did not finish in time)" if rp.ending.hung_in is not None else "")}
            found = _merged_speed(found, {k: v for k, v in rp.speed.items() if k != "yours"})
            ref_clean = rp.ended_cleanly()
            if not ref_clean:
                break
        if not mine.ended_cleanly() or "seconds" not in mine.speed.get("yours", {}):
            break
    if ref is not None:
        ref.lease.release(ref_clean)
    sp.speed.update(found if ref is not None else {
        "solution": {"error": "the solutions are not on this server (a graded day)"}})
    return sp


def _merged_speed(into: dict[str, dict], more: dict[str, dict]) -> dict[str, dict]:
    """Two rounds' timings by role, as one: the fastest round's figures, every round's median."""
    out = dict(into)
    for role, t in more.items():
        old = out.get(role)
        if old is None or "seconds" not in old:
            out[role] = dict(t)
        elif "seconds" in t:
            rounds = old.get("round_seconds", [old["seconds"]]) + t.get("round_seconds",
                                                                          [t["seconds"]])
            out[role] = {**(t if t["seconds"] < old["seconds"] else old),
                         "round_seconds": rounds, "rounds": len(rounds)}
    return out


def _best_rounds(sp: PassResult, more: PassResult) -> PassResult:
    """The learner's speed pass over its rounds so far (the first round's peaks kept)."""
    sp.speed = _merged_speed(sp.speed, more.speed)
    for name in ("exit_code", "hung_in", "crashed_in", "internal_error", "build_error"):
        mine = getattr(sp.ending, name)
        setattr(sp.ending, name, mine if mine is not None else getattr(more.ending, name))
    sp.ending.output = "\n".join(x for x in (sp.ending.output, more.ending.output) if x)
    return sp


STRICT_VARIABLE = "COURSE_STRICT_CHECKS"


def strict_checks() -> bool:
    """Whether a failed check fails its cell (raises): when ``COURSE_STRICT_CHECKS`` says so (set
    under pytest by the course's plugin, helpers/pytest_plugin.py, so under nbval and the grader;
    ``0``: never), and with the solutions switched on (a failing solution is the course's bug).
    In a learner's notebook a failed check prints its verdict and Run All goes on."""
    if settings.given(STRICT_VARIABLE):
        return settings.flag(STRICT_VARIABLE)
    return solutions_on()


def check(name: str, kernel: str | Path | None = None, options: CheckOptions | None = None,
          **option_values) -> None:
    """Check exercise ``name`` in a notebook: print one pass line; for a failed check print the
    diagnosis and go on (a learner's Run All reads the whole notebook), or raise
    :class:`KernelCheckFailed` carrying it where checks are strict (:func:`strict_checks`: nbval,
    the grader), so that the cell fails there. Takes what :func:`run_check` takes; returns None
    (nothing is echoed under the cell: :func:`run_check` gives the report)."""
    report, rest = run_check_printing(name, kernel, options, **option_values)
    if not report.passed:
        if strict_checks():
            raise KernelCheckFailed(report)
        print(wrapped(report.message))
        return
    print(wrapped(rest))


def run_check_printing(name: str, kernel: str | Path | None = None,
                       options: CheckOptions | None = None, *, width: int = WIDTH,
                       **option_values) -> tuple[CheckReport, str]:
    """:func:`run_check`, printing a passed performance exercise's verdict as soon as it is known,
    before its speed is timed (three kernels over several rounds: seconds more), wrapped at
    ``width`` columns. Returns the report and what of its message is still to print (unwrapped:
    the caller wraps it as it prints it, :func:`.diagnosis.wrapped`)."""
    shown: list[str] = []

    def early(message: str) -> None:
        print(wrapped(message, width) + "\n  Now timing its speed...", flush=True)
        shown.append(message)

    import time
    t0 = time.perf_counter()
    report = run_check(name, kernel, options, on_verdict=early, **option_values)
    publish(report, time.perf_counter() - t0)   # to the observers (the hub's, in the hub)
    if shown and report.message.startswith(shown[0]):
        return report, report.message[len(shown[0]):].lstrip("\n")
    return report, report.message
