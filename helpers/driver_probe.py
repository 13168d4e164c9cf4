"""Trying the course's own kernels in a separate process before this process builds them.

A driver can abort the whole process that builds or launches a kernel: the pip PoCL 3.0-rc2 (LLVM 14)
does so on AMD Zen 4 CPUs at the first launch of a ``mad`` on ``float16``, in its code generator. So
before a notebook, a test or ``python -m helpers bench`` builds one of the course's programs, a
**probe worker** (a child process, one per device, kept for the session) builds the same source with
the same options and asks for its binaries, which makes PoCL generate machine code for every kernel
(other drivers do so when they build). If the worker dies or hangs, the program is *left out*:
building it here raises
:class:`KernelLeftOut`, whose message is the sentence the learner reads, and callers skip that piece
and go on. Outcomes are cached per device and driver (in the course cache, ``probes.json``), so a
program is tried once per machine, and a crash is remembered instead of repeated.

The probe launches nothing: a kernel run on made-up arguments can crash or loop by itself (a fixed
local array indexed past its end, a step of zero), which would blame the driver wrongly. Crashes at
launch are what ``python -m helpers devices --check`` finds, running every kernel on real data in a
child process (``make lab`` runs it); it records them here too (:func:`remember`).

A crash inside PoCL's compiler leaves a broken entry in PoCL's kernel cache, and the next process
that builds the same program gets ``INVALID_KERNEL_NAME``. After a worker dies, the PoCL cache
entries written since the request began are removed, so no crash leaves such an entry behind.

The worker is a child of :mod:`helpers.workers` (task ``probe``): each request a source and its options;
its events say the step that started (``build``, ``binaries``), so the parent knows where it died.
Processes the course starts as children (checks, probes, the device check) carry ``COURSE_CHILD=1``
and build directly: they are the separate process.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import time
from pathlib import Path

import pyopencl as cl

from . import cache, settings
from .device import DeviceSpec, device_key, driver_name, find_device
from .driver_facts import PROBES
from .paths import display_path
from .workers import CHILD_VARIABLE

PROBE_TIMEOUT = 180.0            # seconds one program may take to build and launch in the worker

# In a child, called with (program key, description) before each build: the device check reports
# through it which program it was building when its process died.
CHILD_BUILD_HOOK = None


class KernelLeftOut(RuntimeError):
    """A course program that this device's driver crashes or hangs on, tried in a separate process.
    The message is one sentence naming the device, the driver, the kernel and what happened."""

    def __init__(self, message: str, outcome: dict):
        super().__init__(message)
        self.outcome = outcome

    def _render_traceback_(self) -> list[str]:  # IPython shows the sentence, not a traceback
        return [f"KernelLeftOut: {self}"]


def in_child() -> bool:
    """Whether this process is one the course started to run kernels apart (it builds directly)."""
    return settings.text(CHILD_VARIABLE) == "1"


def program_key(path: Path | str, source: str, options: list[str] | tuple[str, ...] | None) -> str:
    """What identifies a program: its file as shown, its text and its build options."""
    opts = " ".join(options or ())
    digest = hashlib.sha256(f"{source}\0{opts}".encode()).hexdigest()[:16]
    return f"{display_path(path)} [{opts}] {digest}" if opts else f"{display_path(path)} {digest}"


def describe_program(path: Path | str, options: list[str] | tuple[str, ...] | None) -> str:
    opts = " ".join(options or ())
    return f"{display_path(path)} ({opts})" if opts else display_path(path)


def sentence(dev: cl.Device, outcome: dict) -> str:
    """Why a program was left out, naming the device, the driver and the kernel."""
    where = f"{dev.name.strip()} ({driver_name(dev)})"
    program = outcome.get("program", "a course kernel")
    if outcome.get("stage") == "run":
        step = f"running the kernels of {program}"
    elif outcome.get("stage") == "binaries":
        step = f"generating code for {program}"
    else:
        step = f"building {program}"
    if outcome.get("hung"):
        what = f"{where} did not finish {step} within {outcome['seconds']:.0f} s"
    else:
        what = f"{where} crashed {step}"
        said = outcome.get("said")
        what += f" ({outcome['signal']}" + (f"; the driver said: {said})" if said else ")")
    return (what + ", in a separate process that the course started to try it; this one goes on "
            "without it (python -m helpers devices --check lists what this device runs).")


# --------------------------------------------------------------------------------------------------
# The parent's side.

def _read_cache(dev: cl.Device) -> dict:
    try:
        return cache.read(PROBES).get(device_key(dev), {})
    except OSError:   # no home to find the cache in (a sandboxed worker's user)
        return {}


def _record(dev: cl.Device, outcomes: dict[str, dict]) -> None:
    try:
        stored = cache.read(PROBES)
        stored.setdefault(device_key(dev), {}).update(outcomes)
        cache.write(PROBES, stored)
    except OSError:  # a read-only home: the outcome is kept for this process only
        pass


_MEMORY: dict[tuple[str, str], dict] = {}   # (device key, program key) -> outcome, this process


def known(dev: cl.Device, key: str) -> dict | None:
    """The recorded outcome of program ``key`` on ``dev``, or None when it was never tried."""
    dkey = device_key(dev)
    if (dkey, key) not in _MEMORY:
        outcome = _read_cache(dev).get(key)
        if outcome is None:
            return None
        _MEMORY[(dkey, key)] = outcome
    return _MEMORY[(dkey, key)]


def crashed_here(dev: cl.Device) -> dict[str, dict]:
    """The programs known to crash or hang ``dev``'s driver (program key -> outcome): a parent
    sends them with a request, so that a child that cannot read the course cache (a grader's
    sandbox) leaves them out too."""
    return {k: o for k, o in _read_cache(dev).items() if not o.get("ok", True)} | {
        k: o for (d, k), o in _MEMORY.items() if d == device_key(dev) and not o.get("ok", True)}


def known_here(dev: cl.Device, outcomes: dict[str, dict]) -> None:
    """Outcomes a parent sent (:func:`crashed_here`): kept for this process, not recorded."""
    dkey = device_key(dev)
    for key, outcome in outcomes.items():
        _MEMORY[(dkey, key)] = outcome


def remember(dev: cl.Device, outcomes: dict[str, dict]) -> None:
    """Record outcomes learned elsewhere (the device check runs real kernels in its own child)."""
    dkey = device_key(dev)
    for key, outcome in outcomes.items():
        _MEMORY[(dkey, key)] = outcome
    _record(dev, outcomes)


def ensure(dev: cl.Device, source: str, path: Path | str, options: list[str] | None = None) -> None:
    """Make sure this process may build ``source`` for ``dev``: probe it in the worker once, then
    remember. Raises :class:`KernelLeftOut` when the driver crashed or hung on it."""
    key = program_key(path, source, options)
    if in_child():  # this process is the separate one: it builds, unless a crash is known
        outcome = known(dev, key)
        if outcome is not None and not outcome.get("ok", True):
            raise KernelLeftOut(sentence(dev, outcome), outcome)
        if CHILD_BUILD_HOOK is not None:
            CHILD_BUILD_HOOK(key, describe_program(path, options))
        return
    outcome = known(dev, key)
    if outcome is None:
        outcome = _worker(dev).probe(source, path, options)
        remember(dev, {key: outcome})
    if not outcome.get("ok", False):
        raise KernelLeftOut(sentence(dev, outcome), outcome)


def pocl_cache_dir() -> Path:
    """Where PoCL keeps compiled kernels (``POCL_CACHE_DIR``, else ``~/.cache/pocl/kcache``)."""
    if os.environ.get("POCL_CACHE_DIR"):
        return Path(os.environ["POCL_CACHE_DIR"])
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "pocl" / "kcache"


def purge_pocl_cache(since: float, folder: Path | None = None) -> list[Path]:
    """Remove PoCL cache entries (``XX/HASH`` folders, and PoCL's loose temp files) written at or
    after ``since`` (seconds since the epoch): what a process that crashed in PoCL's compiler left.
    Entries of other processes written meanwhile go too; PoCL builds them again when needed."""
    root = folder or pocl_cache_dir()
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for entry in root.iterdir():
        targets = list(entry.iterdir()) if entry.is_dir() and len(entry.name) == 2 else [entry]
        for target in targets:
            try:
                stamps = [target.stat().st_mtime] + [p.stat().st_mtime for p in target.rglob("*")]
            except OSError:
                continue
            if max(stamps) >= since - 1.0:
                if target.is_dir():
                    shutil.rmtree(target, ignore_errors=True)
                else:
                    target.unlink(missing_ok=True)
                removed.append(target)
    return removed


class _Worker:
    """A probe worker for one device (:mod:`helpers.workers`, task ``probe``), started on the first
    request and again after a crash."""

    def __init__(self, dev: cl.Device):
        from . import workers
        # built from source every time: a binary from pyopencl's cache has no argument info
        # (Intel's runtime), and the compiler is what may crash
        self.key = workers.Key("probe", json.dumps(DeviceSpec.of(dev).to_json()),
                             (("PYOPENCL_NO_CACHE", "1"),))
        self.child = None

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()
        self.child = None

    def probe(self, source: str, path: Path | str, options: list[str] | None,
              timeout: float = PROBE_TIMEOUT) -> dict:
        from . import workers
        program = describe_program(path, options)
        if self.child is None or not self.child.alive:
            self.stop()
            self.child = workers.Child(self.key)
        started = time.time()
        said: dict = {"stage": "build", "kernel": None}

        def on_event(ev: dict) -> None:
            if ev.get("done"):
                said["done"] = {k: v for k, v in ev.items() if k != "done"}
            else:
                said["stage"], said["kernel"] = ev.get("stage", said["stage"]), ev.get("kernel")

        out = self.child.request({"source": source, "options": list(options or ())},
                                 timeout=timeout, on_event=on_event)
        stage, kernel = said["stage"], said["kernel"]
        if out.ended:
            return {"ok": True, "program": program, **said.get("done", {})}
        self.stop()
        if out.hung:
            return {"ok": False, "hung": True, "seconds": timeout, "stage": stage,
                    "kernel": kernel, "program": program}
        how, text = workers.crash_summary(out.exit_code, out.output)
        if out.exit_code == 3 and "Traceback" in out.output:  # the probe's own bug, no driver's
            return {"ok": True, "program": program, "probe_error": text}
        purge_pocl_cache(started)
        return {"ok": False, "crashed": True, "signal": how, "said": text,
                "stage": stage, "kernel": kernel, "program": program}


_WORKERS: dict[str, _Worker] = {}


def _worker(dev: cl.Device) -> _Worker:
    key = device_key(dev)
    if key not in _WORKERS:
        _WORKERS[key] = _Worker(dev)
    return _WORKERS[key]


@atexit.register
def _stop_workers() -> None:
    for w in _WORKERS.values():
        w.stop()


# --------------------------------------------------------------------------------------------------
# The worker's side.

def _probe_one(ctx: cl.Context, request: dict, emit) -> None:
    options = request["options"]
    emit(stage="build")
    prg = cl.Program(ctx, request["source"])
    try:
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            prg.build(options=options)
    except cl.Error as e:  # a refusal is not a crash: this process's own build reports it
        emit(done=True, build_error=str(e).splitlines()[0][:300])
        return
    emit(stage="binaries")
    try:
        prg.get_info(cl.program_info.BINARIES)
    except cl.Error:  # a driver that keeps no binaries: its code was made by the build
        pass
    emit(done=True, kernels=[k.function_name for k in prg.all_kernels()])


def warm(device: DeviceSpec, emit):
    """The worker's start (see :mod:`helpers.workers`): the device's context, once."""
    ctx = cl.Context([find_device(device)])

    def serve(request: dict, emit) -> None:
        try:
            _probe_one(ctx, request, emit)
        except Exception as e:  # the probe's own failure: no crash of the driver's
            emit(done=True, probe_error=f"{type(e).__name__}: {e}"[:300])
    return serve
