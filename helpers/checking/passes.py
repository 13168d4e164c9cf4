"""A check's passes, each in a worker apart from the notebook (:mod:`helpers.workers`, task ``check``):

1. the **device pass** on the course device, every case of the exercise, guard bands on;
2. the **Oclgrind pass** on the small cases (and on any failing case small enough), which reports
   out-of-bounds accesses, data races, uninitialized values and divergent barriers at their line;
3. for a performance exercise that passed, the **speed pass** (:func:`.worker_side.speed_main`).

A pass turns the worker's events and how its request ended into a :class:`PassResult`: facts, no
sentences (those are :mod:`.diagnosis`'s).
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import workers
from ..device import DeviceSpec
from ..exercises import Case, Exercise
from ..protocol import Event
from . import oclgrind
from .learner import Submission
from .options import (
    OCLGRIND_BUDGET,
    OUTPUT_LIMIT,
    REPORT_GRACE,
    UNINITIALIZED_UP_TO,
    CheckOptions,
)


@dataclass(slots=True)
class Ending:
    """How a pass's worker ended its request: built and done, or where it stopped and why (each
    pass has one, whatever it ran)."""

    built: bool = False
    done: bool = False
    build_error: str | None = None
    no_kernel: dict | None = None
    warnings: str = ""               # the compiler's warnings, placed in the kernel file
    hung_in: int | None = None       # case index, or -1 while building
    stuck_after: float | None = None  # hung: stopped this long after Oclgrind saw why
    crashed_in: int | None = None    # case index, -1 while building, len(cases) after the last
    exit_code: int | None = None
    internal_error: str | None = None
    flooded: bool = False            # stopped for printing more than OUTPUT_LIMIT bytes
    cancelled: bool = False          # stopped by the check, its result no longer wanted
    cut_short: bool = False          # Oclgrind stopped once it had reported (see REPORT_GRACE)
    stopped_at: int | None = None    # stopped after this case went wrong (the later ones not run)
    output: str = ""                 # what the process printed (kernel printf, crash messages)


@dataclass(slots=True)
class Timing:
    """When a pass ran: its worker asked (or started) at ``started`` (time.perf_counter()),
    for ``seconds``; ``warm``: started before the check asked; ``marks``: when what happened
    (:class:`helpers.workers.Outcome`), ``more_marks`` a second pass's, once merged."""

    started: float = 0.0
    seconds: float = 0.0
    warm: bool = False
    marks: dict[str, float] = field(default_factory=dict)
    more_marks: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class PassResult:
    """What one pass did on the device (the device's run; the base of the other passes'
    results): its cases' results, how its worker ended (:class:`Ending`) and when
    (:class:`Timing`)."""

    device: DeviceSpec
    cases: list[Case]
    results: dict[int, dict] = field(default_factory=dict)
    ending: Ending = field(default_factory=Ending)
    timing: Timing = field(default_factory=Timing)
    worker_dir: Path | None = None     # the worker's own folder (what its plugins wrote there)
    poison_ready: bool | None = None  # asked to start local memory as a pattern: it could

    def not_run(self) -> list[int]:
        """Cases the contract allows but this device does not for this kernel (too large)."""
        return [i for i, r in sorted(self.results.items()) if r.get("not_run")]

    def failing(self) -> list[int]:
        return [i for i, r in sorted(self.results.items()) if not r.get("ok", False)]

    def all_ok(self) -> bool:
        return (self.ending.done and self.ending.crashed_in is None
                and len(self.results) == len(self.cases) and not self.failing())

    def ended_cleanly(self) -> bool:
        """Its worker may serve another pass: nothing crashed, hung, flooded or was cut off."""
        e = self.ending
        return (e.exit_code is None and e.hung_in is None and not e.flooded and not e.cancelled
                and not e.cut_short and e.internal_error is None)


@dataclass(slots=True)
class OclgrindResult(PassResult):
    """An Oclgrind pass: beside its results, its reports, what it could not simulate, its
    instruction counts ("load local": n), a plugin left out after it crashed and why, the counts
    per launch, and the case (-1: the build) it first reported in."""

    findings: list[oclgrind.Finding] = field(default_factory=list)
    gaps: list[oclgrind.Gap] = field(default_factory=list)
    executed: dict[str, int] | None = None
    skipped_plugin: str = ""
    skipped_why: str = ""
    launch_counts: list = field(default_factory=list)
    reported_in: int | None = None


@dataclass(slots=True)
class SpeedResult(PassResult):
    """A speed pass: role ("yours", "solution", "given") -> its timing, and the device's
    peaks."""

    speed: dict[str, dict] = field(default_factory=dict)
    peak: dict = field(default_factory=dict)


@dataclass
class Check:
    """One check's fixed parts, handed to each of its passes."""

    ex: Exercise
    submission: Submission           # the kernel, read once when the check started
    seed: int
    options: CheckOptions
    lease: workers.Lease

    @property
    def path(self) -> Path:
        return self.submission.path

    @property
    def source(self) -> str:
        """The kernel's text, as read once: what every pass builds."""
        return self.submission.text


@dataclass(frozen=True)
class Passes:
    """What the verdict is given of a check's passes: the device's, Oclgrind's (None where it
    could not run) and the local-memory probe's (the failing cases run again with two patterns
    in local memory, when Oclgrind could not look for uninitialized values)."""

    device: PassResult
    oclgrind: PassResult | None = None
    probe: PassResult | None = None


def worker_key(device: DeviceSpec, env: dict[str, str], owner: str) -> workers.Key:
    # PYOPENCL_NO_CACHE: built from source every time, so that the compiler's warnings are there to
    # show (a binary from pyopencl's cache comes with an empty build log)
    env = {"PYOPENCL_NO_CACHE": "1", **env}
    return workers.Key("check", json.dumps(device.to_json(), sort_keys=True),
                     tuple(sorted(env.items())), owner)


def oclgrind_environment(skip_uninitialized: bool = False) -> dict[str, str]:
    env = {**oclgrind.ENVIRONMENT, "OCLGRIND_LOG": "{dir}/oclgrind.log"}
    if skip_uninitialized:
        env.pop("OCLGRIND_UNINITIALIZED")
    return env


LOG_LIMIT = 4 << 20     # bytes of Oclgrind's log read at most, each time


# Oclgrind's log lies in the worker's folder, which a graded worker owns: the grader (root, when it
# grades) reads it only as the regular file it is, never through a link the worker put there, and
# never more than LOG_LIMIT of it
UNOPTIMIZED = ("-cl-opt-disable",)

# an Oclgrind worker's stderr, in its own folder: where Oclgrind says what it cannot simulate (a
# kernel's printf goes to stdout, never here)
DIAGNOSTICS = "oclgrind-stderr.txt"


def _log_size(path: Path) -> int:
    try:
        st = os.lstat(path)
    except OSError:
        return 0
    return st.st_size if stat.S_ISREG(st.st_mode) else 0


def _read_log(path: Path, start: int) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        f.seek(start)
        return f.read(LOG_LIMIT).decode(errors="replace")


class _Listener:
    """What a pass hears from its worker as it comes (see :func:`run_pass`): the events fill the
    :class:`PassResult`; Oclgrind's log is watched for its first report."""

    def __init__(self, result: PassResult, run_timeout: float, log: Path, progress, stop,
                 first_failure: bool, judge=None):
        self.result, self.run_timeout, self.log = result, run_timeout, log
        self.judge = judge             # a case's raw results -> its facts (see judged)
        self.progress, self.stop, self.first_failure = progress, stop, first_failure
        self.log_from = _log_size(log)
        self.err = log.with_name(DIAGNOSTICS)      # an Oclgrind worker's stderr (see run_pass)
        self.err_from = _log_size(self.err)
        self.parsed = self.log_from    # the log's size when it was last read
        self.current = -1              # -1: building; i: in case i
        self.reported_at: float | None = None
        self.ended_reporting = self.spoiled = False
        self.moved_at = 0.0            # when the worker last told of progress
        self.given: float | None = None
        self.largest = None            # the largest work-group the device allows this kernel

    def tell(self, what: str, case: int, ok: bool | None) -> None:
        if self.progress is not None:
            self.progress(what, case, ok)

    def on_event(self, ev: dict) -> float | None:
        """One event from the worker; a new time limit for the worker, or None."""
        self.moved_at = time.perf_counter()
        kind = Event(ev.pop("event"))
        r = self.result
        if kind is Event.BUILT:
            if r.ending.built:   # built once: a second "built" is no news and renews nothing
                return None
            r.ending.built, r.ending.warnings = True, ev.get("warnings", "")
            r.poison_ready = ev.get("poison_ready")
            self.largest = ev.get("largest")
            self.current = 0
            return self.run_timeout
        if kind is Event.BUILD_ERROR:
            r.ending.build_error = ev["message"]
        elif kind is Event.NO_KERNEL:
            r.ending.no_kernel = ev
        elif kind is Event.START:
            self.current = ev["case"]
            self.tell("start", self.current, None)
        elif kind is Event.RESULT:
            self.case_ended(ev)
        elif kind in (Event.LAUNCH_ERROR, Event.RUN_ERROR):
            r.results[ev["case"]] = {"ok": False, kind.value: ev["message"]}
            self.tell("result", ev["case"], False)
        elif kind is Event.SPEED and isinstance(r, SpeedResult):   # a speed pass's alone
            r.speed[ev["role"]] = ev
        elif kind is Event.PEAK and isinstance(r, SpeedResult):
            r.peak = ev
        elif kind is Event.DONE:
            r.ending.done = True
        elif kind is Event.SPOILED:
            self.spoiled = True
        return None

    def judged(self, i: int, ev: dict) -> dict:
        """A case's facts: judged here from the bytes the worker wrote (:mod:`.judge`); only
        "this device could not run it" is taken from the worker's event."""
        from .judge import RawUnreadable
        if not (isinstance(i, int) and 0 <= i < len(self.result.cases)) or self.judge is None:
            self.result.ending.internal_error = f"results for a case {i} the pass never asked for"
            return {"ok": False}
        if "raw" not in ev:     # not run: only a case whose work-groups the device does not allow
            items = self.result.cases[i].work_group_items
            if isinstance(self.largest, int) and items > self.largest >= 1 and isinstance(
                    ev.get("not_run"), str):
                return {"ok": True, "not_run": ev["not_run"]}
            self.result.ending.internal_error = f"case {i} came back with no results"
            return {"ok": False}
        try:
            facts = self.judge(self.result.cases[i], ev)
        except RawUnreadable as e:
            self.result.ending.internal_error = f"case {i}'s results could not be read: {e}"
            return {"ok": False}
        past = ev.get("past")
        if isinstance(past, str) and not facts.get("ok"):  # run past the size the device allows
            return {"ok": True, "not_run": past + ", and its run past that size went wrong"}
        return facts

    def case_ended(self, ev: dict) -> None:
        r = self.result
        i = ev.pop("case")
        ev = r.results[i] = self.judged(i, ev)
        self.current = i
        if r.device.is_oclgrind and self.reported():
            self.ended_reporting = True     # the case that reported has ended: stop here
        self.current = len(r.results)
        self.tell("result", i, bool(ev.get("ok")))
        if self.first_failure and not ev.get("ok") and r.ending.stopped_at is None:
            r.ending.stopped_at = i
            self.stop.set()

    def new_log(self) -> str:
        if _log_size(self.log) <= self.log_from:
            return ""
        return _read_log(self.log, self.log_from)

    def new_err(self) -> str:
        if _log_size(self.err) <= self.err_from:
            return ""
        return _read_log(self.err, self.err_from)

    def reported(self) -> bool:
        if self.reported_at is None:
            size = _log_size(self.log)
            grown, self.parsed = size > self.parsed, max(size, self.parsed)
            if grown and oclgrind.parse(self.new_log()):
                self.reported_at, self.result.reported_in = time.perf_counter(), self.current
                self.tell("reported", self.current, None)
        return self.reported_at is not None

    def watch(self) -> bool:
        """Oclgrind's watch: it goes on simulating every work-item after its reports (a wild loop
        of writes makes it take minutes, a race in a case of 4096 work-items a fifth of a
        second): once it has reported, the pass stops at the end of that case (see
        :meth:`case_ended`), or REPORT_GRACE seconds after the report if the case never ends."""
        if self.reported_at is None:
            self.reported()   # every 50 ms: a look at the log's size, read only when it grew
        return self.reported_at is not None and (
            self.ended_reporting or time.perf_counter() - self.reported_at > REPORT_GRACE)

    def stuck_watch(self, stuck) -> bool:
        """A device pass's watch: not before the kernel is built (a worker still starting, as
        NVIDIA's context takes 1.8 s, or building has not had its chance to run a case)."""
        self.given = stuck(self.moved_at) if self.result.ending.built else None
        return self.given is not None


@dataclass(frozen=True)
class PassPlan:
    """How a pass runs its cases: what travels together into every :func:`run_pass`.
    ``run_timeout``: seconds for each case; ``guard``: its buffers with guard zones (see
    :mod:`.worker_side`); ``env``: the worker's extra environment (another environment, another
    worker); ``speed``: time the kernel instead (see :func:`.worker_side.speed_main`); ``poison``: run
    each case with local memory starting as each of two patterns, to see whether the results
    change with it (see :mod:`.poison`); ``first_failure``: stop at the first case that goes wrong
    (``stopped_at``, the later cases not run); ``build_options``: added to the kernel's build."""

    run_timeout: float
    guard: bool = False
    env: dict[str, str] = field(default_factory=dict)
    speed: bool = False
    roles: tuple[str, ...] = ("yours",)   # a speed pass: whose kernels it times (see worker_side)
    rounds: int = 0                      # ... in how many rounds (0: worker_side.SPEED_ROUNDS)
    peak: bool = True                    # ... measuring the device's peaks too
    poison: bool = False
    first_failure: bool = False
    build_options: tuple[str, ...] = ()


def _request(chk: Check, cases: list[Case], plan: PassPlan, device: DeviceSpec | None = None
             ) -> dict:
    request = {"exercise": chk.ex.name, "kernel_path": str(chk.path), "source": chk.source,
               "cases": [c.to_json() for c in cases], "seed": chk.seed, "guard": plan.guard,
               "registry_files": list(chk.options.registry_files), "speed": plan.speed,
               "poison": plan.poison, "build_options": list(plan.build_options)}
    if plan.speed:
        request["roles"] = list(plan.roles)
        request["rounds"], request["peak"] = plan.rounds, plan.peak
        if device is not None:   # the course's programs this driver crashes on: left out there
            from .. import driver_probe
            from ..device import find_device
            request["left_out"] = driver_probe.crashed_here(find_device(device))
    return request


def run_pass(chk: Check, device: DeviceSpec, cases: list[Case], plan: PassPlan, *,
             stop=None, stuck=None, progress=None) -> PassResult:
    """Run ``cases`` with the learner's kernel on ``device`` in a worker, as ``plan`` says.
    Setting ``stop`` (a threading.Event) ends it early (``cancelled``); so does, with
    ``plan.first_failure``, the first case that goes wrong. ``stuck``: a device pass's watch,
    returning the seconds it was given once something else has shown that it will never end
    (``hung_in``, ``stuck_after``). ``progress(what, case, ok)``, if given, hears of each case as
    it starts (``"start"``) and ends (``"result"``, with whether it was right) and of Oclgrind's
    first report (``"reported"``, in the case it came in)."""
    import threading
    result = (OclgrindResult if device.is_oclgrind else SpeedResult if plan.speed
              else PassResult)(device, cases)
    if plan.first_failure:
        stop = stop or threading.Event()
    key = worker_key(device, plan.env, chk.options.owner)
    child = chk.lease.child(key)
    result.timing.warm = child.poll_ready()
    result.worker_dir = child.dir
    from .judge import judge_case
    heard = _Listener(result, plan.run_timeout, child.dir / "oclgrind.log", progress, stop,
                      plan.first_failure, lambda case, ev: judge_case(
                          chk.ex, case, chk.seed, child.dir, ev, plan.guard))
    watch = heard.watch if device.is_oclgrind else (
        (lambda: heard.stuck_watch(stuck)) if stuck else None)
    began = time.time()
    request = _request(chk, cases, plan, device)
    if device.is_oclgrind:   # after each launch the worker marks where Oclgrind's counts end,
        request["launch_mark"] = f"course-launch-end-{secrets.token_hex(16)}"
        request["diagnostics_to"] = DIAGNOSTICS     # and Oclgrind's stderr is not the kernel's
    # the build's time, then the run's: the most a pass may take, whatever the worker sends
    cap = chk.options.build_timeout + heard.run_timeout
    outcome = child.request(request, timeout=chk.options.build_timeout, on_event=heard.on_event,
                            output_limit=OUTPUT_LIMIT, stop=stop, watch=watch, cap=cap,
                            keep=OUTPUT_LIMIT if device.is_oclgrind else workers.OUTPUT_KEPT)
    _ended(result, outcome, heard, request.get("launch_mark"))
    if result.ending.crashed_in is not None and child.sandbox is None:
        # a compiler that died mid-way leaves a broken entry in PoCL's kernel cache, which the
        # next process would take for a good build (INVALID_KERNEL_NAME): none stays. (A
        # sandboxed worker's cache is in its own home, an empty tmpfs that goes with it.)
        from ..driver_probe import purge_pocl_cache
        purge_pocl_cache(began)
    # killed or dead: never asked again. Nor an Oclgrind that reported: it counts its reports over
    # its whole life and goes silent after OCLGRIND_MAX_ERRORS, so a later pass would hear nothing
    reported = isinstance(result, OclgrindResult) and bool(result.findings)
    if not outcome.ended or reported or heard.new_log().strip() or heard.spoiled:
        chk.lease.discard(key)
    return result


def _ended(result: PassResult, outcome, heard: _Listener, mark: str | None = None) -> None:
    """The pass's facts once its worker has answered (or was stopped). Nothing the kernel
    printed is read as Oclgrind's: its counts are the last block before each launch's mark
    (which the kernel cannot know, and after which it cannot print), its gaps those of its log
    and of its stderr (a file of the worker's own: a kernel's printf goes to stdout)."""
    device, current = result.device, heard.current
    result.timing.started, result.timing.seconds = outcome.started, outcome.seconds
    result.ending.output = outcome.output
    result.timing.marks = outcome.marks
    result.ending.cancelled, result.ending.flooded, result.ending.cut_short = (
        outcome.cancelled and result.ending.stopped_at is None, outcome.flooded, outcome.watched)
    if outcome.hung or outcome.watched and not device.is_oclgrind:
        result.ending.hung_in, result.ending.stuck_after = current, heard.given
    if isinstance(result, OclgrindResult):   # Oclgrind's log: read for an Oclgrind pass alone
        log = heard.new_log()
        result.findings = oclgrind.parse(log)
        if result.findings and result.reported_in is None:   # first seen in this last read
            result.reported_in = min(current, len(result.cases) - 1) if result.cases else current
        err = heard.new_err()
        result.gaps = oclgrind.gaps(log + "\n" + err)
        if mark is not None:
            result.launch_counts, printed = oclgrind.launch_counts(outcome.output, mark)
            executed = oclgrind.summed(found for _, found in result.launch_counts)
        else:
            executed, printed = oclgrind.counts(outcome.output)
        result.ending.output = printed + (f"\n{err}" if err.strip() else "")
        result.executed = executed or None
    if outcome.exit_code is not None:
        result.ending.exit_code = outcome.exit_code
        # (an Oclgrind worker's traceback is in its stderr file, now in result.ending.output)
        said = result.ending.output if device.is_oclgrind else outcome.output
        if outcome.exit_code == 3 and "Traceback" in said:
            result.ending.internal_error = said
        else:
            result.ending.crashed_in = current


def small_cases(ex: Exercise, up_to: int = UNINITIALIZED_UP_TO) -> list[Case]:
    """The contract's small cases, which every check runs on Oclgrind, in the contract's order
    (its first case is the one that shows most at least cost), those of at most ``up_to``
    work-items first: the ones Oclgrind's uninitialized-value plugin follows
    (options.UNINITIALIZED_UP_TO)."""
    small = [c for c in ex.cases if c.small]
    return [c for c in small if c.work_items <= up_to] + [c for c in small if c.work_items > up_to]


def oclgrind_cases(ex: Exercise, device_pass: PassResult) -> list[Case]:
    """The small cases, plus every failing device case small enough for Oclgrind (and whose
    work-groups and local memory Oclgrind's device allows: the widest cases of a CPU's are not)."""
    chosen = small_cases(ex)
    # the failing cases, and those the device could not launch with this kernel (work-groups
    # larger than it allows this kernel, as NVIDIA's driver does for static local arrays)
    extra = list(device_pass.failing()) + device_pass.not_run()
    crashed_in = device_pass.ending.crashed_in
    if crashed_in is not None and 0 <= crashed_in < len(device_pass.cases):
        extra.append(crashed_in)
    candidates = [device_pass.cases[i] for i in extra] + widest_case(ex)
    for c in candidates:
        if c.key() not in {x.key() for x in chosen} and not beyond_oclgrind(ex, c):
            chosen.append(c)
    return chosen


def beyond_oclgrind(ex: Exercise, case: Case) -> bool:
    """Whether Oclgrind cannot run ``case``: too much work to simulate in time
    (OCLGRIND_BUDGET work-items), or a work-group or local memory larger than its device allows
    (the widest cases of a CPU's)."""
    from ..device import oclgrind_device
    from ..exercises import device_limits
    grind = oclgrind_device()
    return case.work_items > OCLGRIND_BUDGET or (
        grind is not None and not ex.fits(case, device_limits(grind)))


def widest_case(ex: Exercise) -> list[Case]:
    """The smallest of the contract's extremes at Oclgrind's own limits (none without Oclgrind):
    a device that lets a local array's overflow go unseen (PoCL's local memory is 2 MiB) gets a
    referee that sees it. Every check that passes its small cases runs it."""
    from ..device import oclgrind_device
    from ..exercises import device_limits
    grind = oclgrind_device()
    if grind is None or ex.extremes.cases is None:
        return []
    limits = device_limits(grind)
    return [c for c in sorted(ex.extremes.cases(limits), key=lambda c: c.work_items)[:1]
            if not c.small and c.work_items <= OCLGRIND_BUDGET and ex.fits(c, limits)]
