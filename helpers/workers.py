"""One way to run something apart: a child Python process that serves requests of one task.

A driver can abort the process that builds or launches a kernel, and a learner's kernel can crash,
hang or print without end; so everything that builds or runs a kernel for the course (a check's
device, Oclgrind and speed passes, the build probe, the device check, the tuner, the start-up
profile) runs in a child started here, never in the notebook's process.

- **Start.** ``python -m helpers.workers TASK DEVICE`` imports the task's module and calls its
  ``warm(device, emit)``, which does once what every request needs (numpy and pyopencl imported,
  the device found *by the spec the parent chose*, never chosen again, its context created), and
  returns the function that serves a request. The child then says ``ready``.
- **Requests and events.** A request is one JSON line on the child's stdin; the child answers with
  events, one JSON line each on its stdout, flushed at once, so that the parent knows how far it got
  when it dies next; ``end`` closes each request. Whatever the task or its driver prints (a kernel's
  ``printf``, a crash message) goes to a file instead, which the parent watches for size.
- **Limits.** The parent gives each request a time limit that an event may renew (a build, then the
  run), an output limit, a stop flag and a watch of its own; past any of them the child's whole
  process group is killed and the outcome says why. A child that builds or runs a learner's kernel
  also has bounds of its own: memory, file size and CPU time (:func:`learner_limits`). Every child
  starts in an empty folder of its own, with only the environment it needs
  (:func:`child_environment`). A child that dies leaves its exit code or
  signal and the last telling line it printed (:func:`crash_summary`).
- **Warm workers.** :data:`POOL` keeps a child that finished its requests cleanly for the next one
  with the same task, device and environment (and owner: the grader gives each learner their
  own), and starts a fresh one in the background after one is discarded, so that the next request
  finds its imports and its context ready. A child that ran a kernel that failed, crashed, hung or
  was stopped is discarded, never reused; the caller says which (:meth:`Lease.release`).
  ``COURSE_WORKERS=0`` turns this off: every request gets a fresh child, discarded after it (the
  one-process-per-pass mode of before).

The events of a request are handled by the caller (``on_event``), so each task keeps its own
meaning of them; this module knows only ``ready``, ``end`` and the limits.
"""

from __future__ import annotations

import atexit
import importlib
import json
import logging
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Protocol

from . import driver_facts, settings, stopping
from .paths import ROOT, remove_tree
from .protocol import Event
from .wording import plural

LOG = logging.getLogger(__name__)    # the pool's workers: started, kept, killed and why, stopped
WORKERS_VARIABLE = "COURSE_WORKERS"
CHILD_VARIABLE = "COURSE_CHILD"
OUTPUT_KEPT = 4096           # bytes kept of each end of a longer output

# task -> the module whose warm(device, emit) returns the request handler
TASKS = {
    "check": "helpers.checking.worker_side",
    "probe": "helpers.driver_probe",
    "devcheck": "helpers.checking.devcheck",
    "tune": "helpers.studies.tuning",
    "profile": "helpers.bench",
}


def workers_enabled() -> bool:
    """Warm workers are kept unless ``COURSE_WORKERS=0``."""
    return settings.text(WORKERS_VARIABLE) not in ("0", "")


# What a child keeps of its parent's environment: what Python, the OpenCL drivers and the course
# read, and nothing else (no tokens, keys or paths of whoever started the notebook or the grader).
# The drivers' variables (the ICD loader's, NVIDIA's, PoCL's, Oclgrind's, Intel's, ROCm's) are
# driver facts: helpers/data/drivers.json.
_DRIVER_VARIABLES, _DRIVER_PREFIXES = driver_facts.driver_variables()
KEPT_VARIABLES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR",
                  "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "LD_PRELOAD", "XDG_CACHE_HOME",
                  "SYSTEMROOT", "WINDIR", "COMSPEC", "PATHEXT", "TEMP", "TMP", *_DRIVER_VARIABLES)
KEPT_PREFIXES = ("LC_", "COURSE_", "PYOPENCL_", *_DRIVER_PREFIXES)


def child_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a child that runs kernels for the course: the parent's variables that
    Python and OpenCL need (see KEPT_VARIABLES), this package first on the module path."""
    # COURSE_KEEP_VARIABLES: more names to keep, comma-separated, a trailing * for a prefix (a
    # driver's variable this list does not know; the tests' fake driver)
    more = [x.strip() for x in settings.text("COURSE_KEEP_VARIABLES").split(",") if x.strip()]
    names = set(KEPT_VARIABLES) | {x for x in more if not x.endswith("*")}
    prefixes = KEPT_PREFIXES + tuple(x[:-1] for x in more if x.endswith("*"))
    kept = {k: v for k, v in os.environ.items() if k in names or k.startswith(prefixes)}
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**kept, **(extra or {}), "PYTHONPATH": path, CHILD_VARIABLE: "1",
            "PYTHONUNBUFFERED": "1"}


# A child of these tasks builds or runs a learner's kernel: it gets bounds of its own (set in the
# child before anything is built), so that a kernel whose macros expand without end, or that
# writes or computes without end, stops there and is told so.
LEARNER_TASKS = ("check", "probe")
# ... and numpy's BLAS on one thread: its references are small, and OpenBLAS's threads spin for a
# while after each call, which took the cores that Oclgrind's threads and the device pass needed
# (on the H100's 16-core host a wrong sgemm_tiled's check used 8-10 s of CPU in 0.7 s)
ONE_THREAD_MATH = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
MEMORY_VARIABLE = "COURSE_CHECK_MEMORY_MB"
MEMORY_MB = 2048             # data memory of one child (a check peaks at about 400 MB)
FILE_BYTES = 64 << 20        # the largest file it may write (its output is cut at 1 MiB anyway)
CPU_SECONDS = 600            # CPU time for one request (its wall time is bounded by the caller)


def memory_limit_mb() -> int:
    try:
        return max(256, int(settings.text(MEMORY_VARIABLE)))
    except ValueError:
        return MEMORY_MB


def learner_limits() -> None:
    """In the child: memory (RLIMIT_DATA: the heap and every private writable mapping, so the
    compiler's too; not RLIMIT_AS, which a GPU driver's address-space reservations exceed at
    once), file size and the core dump off. The CPU time is renewed for each request
    (:func:`renew_cpu`)."""
    try:
        import resource
    except ImportError:   # Windows: no rlimits; the caller's time and output limits remain
        return
    for which, value in ((resource.RLIMIT_DATA, memory_limit_mb() << 20),
                         (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_CORE, 0)):
        _soft_limit(resource, which, value)
    # a write past the file limit fails with EFBIG instead of killing the process
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def renew_cpu() -> None:
    """In the child, before a request: CPU_SECONDS more of CPU time than it has used (past it the
    kernel's process gets SIGXCPU, which the caller reports)."""
    try:
        import resource
    except ImportError:
        return
    used = resource.getrusage(resource.RUSAGE_SELF)
    _soft_limit(resource, resource.RLIMIT_CPU, int(used.ru_utime + used.ru_stime) + 1 + CPU_SECONDS)


def _soft_limit(resource, which: int, value: int) -> None:
    """Set the soft limit ``which`` to ``value``, or to the hard limit where that is lower."""
    _, hard = resource.getrlimit(which)
    resource.setrlimit(which, (value if hard == resource.RLIM_INFINITY else min(value, hard), hard))


def crash_summary(exit_code: int | None, output: str) -> tuple[str, str]:
    """(the signal or exit code, the driver's last telling line) of a process that died."""
    if exit_code is not None and exit_code < 0:
        try:
            how = signal.Signals(-exit_code).name
        except ValueError:
            how = f"signal {-exit_code}"
    else:
        how = f"exit code {exit_code}"
    lines = [x.strip() for x in output.splitlines()
             if x.strip() and "Warning" not in x and not x.startswith("warnings.warn")]
    telling = [x for x in lines if any(k in x for k in driver_facts.crash_words())]
    said = (telling or lines or [""])[0]
    return how, (said[:300] + "...") if len(said) > 300 else said


class Sandbox(Protocol):
    """How a child that serves a graded learner runs (the grader sets :data:`SANDBOX`; see
    :mod:`helpers.checking.sandbox`): its command wrapped, and the function that sets its bounds
    in the child before it starts."""

    def prepare(self, command: list[str], folder: Path
                ) -> tuple[list[str], Callable[[], None]]: ...

    def release(self, folder: Path) -> None: ...


SANDBOX: Sandbox | None = None     # set while a class is graded: children with an owner run in it


@dataclass
class Outcome:
    """How one request ended. ``ended``: the child said ``end`` (whatever its events said);
    otherwise exactly one of ``exit_code`` (it died), ``hung``, ``flooded``, ``cancelled`` (the
    caller's stop flag) or ``watched`` (the caller's watch asked to stop) says why not."""

    ended: bool = False
    exit_code: int | None = None
    hung: bool = False
    flooded: bool = False
    cancelled: bool = False
    watched: bool = False
    output: str = ""
    started: float = 0.0         # time.perf_counter() when the request was sent (or the child
    seconds: float = 0.0         # started, for a child started for it)
    # time.perf_counter() of: the child's start and ready (before or during the request), the
    # request sent, the first event of each kind, the end
    marks: dict[str, float] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return self.ended


@dataclass(frozen=True)
class Key:
    """What makes two children interchangeable."""

    task: str
    device: str = ""              # DeviceSpec as JSON, "" for none
    env: tuple = ()               # sorted (name, value) pairs added to the environment
    owner: str = ""


class Child:
    """One child process serving requests of ``key.task``; see the module's text."""

    def __init__(self, key: Key):
        if key.owner and stopping.stopped(key.owner):
            raise stopping.Stopping("the work is being stopped: no new worker starts")
        self.key = key
        self.dir = Path(tempfile.mkdtemp(prefix=f"course-{key.task}-"))
        self.output = open(self.dir / "output.txt", "w+b")
        env = {k: v.replace("{dir}", str(self.dir)) for k, v in key.env}
        if key.task in LEARNER_TASKS:
            env = {**ONE_THREAD_MATH, **env}
        self.started = time.perf_counter()
        # (-W: runpy warns when the package imported helpers.workers before running it: a line of
        # ours that must never pass for a kernel's output)
        command = [sys.executable, "-W", "ignore::RuntimeWarning:runpy", "-m", "helpers.workers",
                   key.task, key.device or "null"]
        preexec = None
        self.sandbox = SANDBOX if key.owner else None    # a learner's work, being graded
        if self.sandbox is not None:
            command, preexec = self.sandbox.prepare(command, self.dir)
        popen = partial(subprocess.Popen, command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=self.output, env=child_environment(env), cwd=self.dir, bufsize=0,
                        start_new_session=(os.name == "posix"), preexec_fn=preexec)
        try:   # a sandboxed one by a thread that outlives this one (see the sandbox's start)
            self.proc = popen() if self.sandbox is None else self.sandbox.start(popen)
        except BaseException:
            self._remove_folder()
            raise
        self.events: queue.Queue = queue.Queue()   # (arrival time, event); None when it died
        self.ready = False
        self.ready_at: float | None = None
        self.requests = 0
        LOG.debug("%s worker %s started (%s) in %s", key.task, self.proc.pid,
                  key.owner or "no owner", self.dir)
        if not stopping.register(self, key.owner):   # stop_all ran while it started
            self.stop()
            raise stopping.Stopping("the work is being stopped: no new worker starts")
        threading.Thread(target=self._read, name=f"worker-{key.task}", daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            for line in self.proc.stdout:
                try:
                    self.events.put((time.perf_counter(), json.loads(line)))
                except ValueError:   # not an event: cannot happen unless the task writes to fd 1
                    continue
        except (OSError, ValueError):   # stop() closed the pipe while this thread was reading it
            pass
        self.events.put(None)

    def poll_ready(self) -> bool:
        """Whether the child has said ``ready`` (read without waiting)."""
        if not self.ready:
            try:
                item = self.events.get_nowait()
            except queue.Empty:
                return False
            if item is not None and item[1].get("event") == Event.READY:
                self.ready, self.ready_at = True, item[0]
            else:   # its end, or (cannot be) an event before ready: leave it for request()
                self.events.queue.appendleft(item)
        return self.ready

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        """Kill the child and everything it started; remove its files."""
        LOG.debug("%s worker %s stopped after %d requests", self.key.task, self.proc.pid,
                  self.requests)
        stopping.forget(self)
        self.stop_process()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass
        self._remove_folder()

    def _remove_folder(self) -> None:
        self.output.close()
        if self.sandbox is not None:    # its scratch space (a tmpfs, run by root) goes first
            self.sandbox.release(self.dir)
        remove_tree(self.dir)   # any depth: the child's code may nest thousands of folders

    def _output_since(self, offset: int, keep: int = OUTPUT_KEPT) -> str:
        """What the child printed after byte ``offset``: all of it when short, else its first and
        last ``keep`` bytes."""
        f = self.output
        size = os.fstat(f.fileno()).st_size - offset
        f.seek(offset)
        if size <= 2 * keep:
            return f.read(size).decode(errors="replace")
        head = f.read(keep).decode(errors="replace")
        f.seek(offset + size - keep)
        tail = f.read(keep).decode(errors="replace")
        return f"{head}\n[... {plural(size - 2 * keep, 'byte')} left out ...]\n{tail}"

    def request(self, payload: dict, *, timeout: float,
                on_event: Callable[[dict], float | None] | None = None,
                output_limit: int | None = None, stop: threading.Event | None = None,
                watch: Callable[[], bool] | None = None, keep: int = OUTPUT_KEPT,
                cap: float | None = None) -> Outcome:
        """Send ``payload`` and pass each event to ``on_event`` until ``end``. The time limit is
        ``timeout`` seconds from now (the child's start-up included when it is not ready yet);
        ``on_event`` may return a new limit, in seconds from then; ``cap``: seconds from now that
        no new limit extends (what the child sends cannot keep it alive past them, however often
        it sends). ``watch`` is called every 50 ms
        and stops the child when it returns true. ``keep``: the bytes kept of each end of a long
        output (all of it, up to ``output_limit``, for a pass that reads Oclgrind's counts there)."""
        self.poll_ready()
        asked = time.perf_counter()
        outcome = Outcome(started=self.started if not self.ready else asked)
        marks = outcome.marks
        marks["started"], marks["asked"] = self.started, asked
        offset = os.fstat(self.output.fileno()).st_size
        deadline = time.perf_counter() + timeout
        last = float("inf") if cap is None else time.perf_counter() + max(cap, timeout)
        self.requests += 1
        try:
            assert self.proc.stdin is not None
            data = memoryview((json.dumps(payload) + "\n").encode())
            while data:   # an unbuffered write may take only part of it
                data = data[self.proc.stdin.write(data):]
        except (BrokenPipeError, OSError):
            pass   # it died: its end is read below
        while True:
            try:
                item = self.events.get(timeout=0.05)
            except queue.Empty:
                item = False
            if item is None:   # the child's stdout closed: it died
                outcome.exit_code = self.proc.wait()
                break
            if item:
                at, ev = item
                kind = ev.get("event") or next(iter(ev), "")
                marks.setdefault(kind, at)
                if kind == "ready":
                    self.ready, self.ready_at = True, at
                elif kind == "end":
                    outcome.ended = True
                    break
                elif on_event is not None:
                    renewed = on_event(ev)
                    if renewed is not None:
                        deadline = min(time.perf_counter() + renewed, last)
                continue   # drain every waiting event before looking at the limits
            if stop is not None and stop.is_set():
                outcome.cancelled = True
            elif time.perf_counter() > deadline:
                outcome.hung = True
            elif output_limit is not None and \
                    os.fstat(self.output.fileno()).st_size - offset > output_limit:
                outcome.flooded = True
            elif watch is not None and watch():
                outcome.watched = True
            else:
                continue
            why = ("cancelled" if outcome.cancelled else "past its time limit" if outcome.hung
                   else "past its output limit" if outcome.flooded else "stopped by its watch")
            LOG.info("%s worker %s (%s) killed: %s", self.key.task, self.proc.pid,
                     self.key.owner or "no owner", why)
            self.stop_process()
            break
        outcome.seconds = time.perf_counter() - outcome.started
        marks["ended"] = outcome.started + outcome.seconds
        if self.ready_at is not None:
            marks["ready"] = self.ready_at
        outcome.output = self._output_since(offset, keep)
        return outcome

    def stop_process(self) -> None:
        if self.proc.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except ProcessLookupError:
                pass
        self.proc.wait()


class Pool:
    """Warm children by :class:`Key`: at most one idle per key, thread-safe. A child idle for
    longer than ``COURSE_WORKER_IDLE`` seconds (default 600) is stopped, so that a notebook left
    open on a shared server does not hold its workers' memory."""

    def __init__(self) -> None:
        self._idle: dict[Key, Child] = {}
        self._since: dict[Key, float] = {}
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None
        self.prepare_after = True   # start a fresh child after one is discarded
        self.last_work: set[str] = set()   # owners now at their last work: none started ahead

    def _keep(self, key: Key, child: Child) -> None:
        """With the lock held: ``child`` is idle from now."""
        self._idle[key], self._since[key] = child, time.monotonic()
        if self._reaper is None:
            self._reaper = threading.Thread(target=self._reap, name="worker-reaper", daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        limit = settings.number("COURSE_WORKER_IDLE")
        while True:
            time.sleep(min(30.0, limit))
            now = time.monotonic()
            with self._lock:
                old = [k for k, t in self._since.items() if now - t > limit and k in self._idle]
                children = [self._idle.pop(k) for k in old]
                for k in old:
                    self._since.pop(k, None)
            for child in children:
                child.stop()

    def take(self, key: Key) -> Child:
        """An idle child of ``key`` (started earlier, maybe ready), else a new one."""
        with self._lock:
            child = self._idle.pop(key, None)
            self._since.pop(key, None)
        if child is not None and child.alive:
            return child
        if child is not None:
            child.stop()
        return Child(key)

    def give_back(self, child: Child, reusable: bool) -> None:
        """Keep ``child`` for the next request of its key, or stop it (and, with warm workers on,
        start its successor at once, so that it is ready by the next request)."""
        keep = reusable and workers_enabled() and child.alive
        if keep:
            with self._lock:
                if child.key not in self._idle:
                    self._keep(child.key, child)
                    LOG.debug("%s worker %s kept warm", child.key.task, child.proc.pid)
                    return
        child.stop()
        if self.prepare_after:
            self.prepare(child.key)

    def prepare(self, key: Key) -> None:
        """Start a child of ``key`` now if none is idle (warm workers on)."""
        if not workers_enabled():
            return
        with self._lock:
            if key in self._idle or key.owner in self.last_work:
                return
            self._keep(key, Child(key))

    def close(self, owner: str | None = None) -> None:
        """Stop the idle children (of ``owner``, or all)."""
        with self._lock:
            self.last_work = {o for o in self.last_work if owner is not None and o != owner}
            keys = [k for k in self._idle if owner is None or k.owner == owner]
            children = [self._idle.pop(k) for k in keys]
            for k in keys:
                self._since.pop(k, None)
        for child in children:
            child.stop()

    def idle(self) -> list[Key]:
        with self._lock:
            return list(self._idle)


POOL = Pool()
atexit.register(POOL.close)


class Lease:
    """The children one piece of work (a check) uses: a child is taken once per key and kept
    for the work's later requests; :meth:`release` gives them all back, reusable or not."""

    def __init__(self, pool: Pool = POOL):
        self.pool = pool
        self.children: dict[Key, Child] = {}
        self._lock = threading.Lock()
        self.released = False

    def child(self, key: Key) -> Child:
        """The child of ``key``, taken from the pool the first time. After :meth:`release` (the
        work has ended: a pass still running in a thread of its own is late), none is taken:
        a child taken then would be given back by no one, and outlive the work."""
        with self._lock:
            if self.released:
                raise stopping.Stopping("the work these workers served has ended")
            child = self.children.get(key)
            if child is not None and not child.alive:   # it died: its folder goes with it
                child.stop()
                child = None
            if child is None:
                child = self.children[key] = self.pool.take(key)
            return child

    def discard(self, key: Key) -> None:
        """Stop the child of ``key`` now (it failed, or its request was cut off)."""
        with self._lock:
            child = self.children.pop(key, None)
        if child is not None:
            self.pool.give_back(child, False)

    def release(self, reusable: bool) -> None:
        with self._lock:
            children, self.children = list(self.children.values()), {}
            self.released = True
        for child in children:
            self.pool.give_back(child, reusable)

    def __enter__(self) -> Lease:
        return self

    def __exit__(self, *exc) -> None:
        self.release(False)


def run_once(key: Key, payload: dict, **limits) -> Outcome:
    """One request in a child that is discarded after it (a tuning run, a profile)."""
    child = Child(key)
    try:
        return child.request(payload, **limits)
    finally:
        child.stop()


# --------------------------------------------------------------------------------------------------
# The child's side.

def child_main(task: str, device_json: str) -> int:
    # Events go to the pipe that is fd 1 now; fd 1 then points where fd 2 does (the output file),
    # so that a kernel's printf, the driver's messages and Python's prints stay out of the events.
    events = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = os.fdopen(1, "w", buffering=1)

    def emit(**event) -> None:
        events.write(json.dumps(event) + "\n")
        events.flush()

    learner = task in LEARNER_TASKS
    if learner:
        learner_limits()
    from .device import DeviceSpec
    spec = json.loads(device_json)
    device = DeviceSpec(**spec) if spec else None
    try:
        # a task of the course, or (tests) a module named in full: the parent names it, never a
        # learner
        serve = importlib.import_module(TASKS.get(task, task)).warm(device, emit)
    except Exception:
        traceback.print_exc()
        return 3
    emit(event=Event.READY)
    for line in sys.stdin:
        if not line.strip():
            continue
        if learner:
            renew_cpu()
        try:
            serve(json.loads(line), emit)
        except Exception:   # the task's own failure (a bug of the course's): say it, then die
            traceback.print_exc()
            sys.stderr.flush()
            return 3
        emit(event=Event.END)
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1], sys.argv[2]))
