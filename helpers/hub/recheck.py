"""The class view's verified path: the service checks a learner's kernel itself.

A learner's server runs the learner's code with the learner's rights, so nothing it sends can be
trusted, a signature made there included (its key would be the learner's too). What the service
can trust is its own check: an event that carries the kernel's text (``source``, what the check
read, at most :data:`SOURCE_BYTES`) is checked again here, with
:func:`helpers.checking.run_check` on a temporary file of that text, in the service's own
environment, and that verdict replaces the learner's server's (see :meth:`.store.Store.verify`).

One background thread runs the re-checks, one at a time, in the order the events came: the HTTP
handler only queues them. At most :data:`WAITING` wait (:data:`PER_LEARNER` of one learner); an
event beyond that stays self-reported (``skipped``). A kernel that passed is remembered (its
exercise and the SHA-256 of its text): the same text sent again is not run again. The service's
``COURSE_CLASS_RECHECK=0`` turns re-checks off: every event then stays self-reported.

A re-check runs the learner's OpenCL C kernel (never their Python), refused like every check if
it holds inline assembly, in check workers of that learner's own, stopped when it ends, that run in
the grader's sandbox (:mod:`helpers.checking.sandbox`: no network, the hub's database and the homes
hidden, no rights). Where the machine cannot sandbox, no re-check runs: the event stays
self-reported (``unsandboxed``), and the service says so once.
"""

from __future__ import annotations

import queue
import sys
import tempfile
import threading
import time
from collections import Counter, OrderedDict
from pathlib import Path

from .. import settings
from ..exercises.passed import text_digest
from ..paths import remove_tree

SOURCE_BYTES = 1 << 20      # a kernel's text, UTF-8 (the checks' own limit on a kernel file)
WAITING = 100               # re-checks waiting at most (each holds its text in memory)
PER_LEARNER = 3             # of which one learner's
REMEMBERED = 1000           # passed kernels remembered


class Unsandboxed(RuntimeError):
    """The machine cannot sandbox a re-check: the service runs no learner's kernel, and the event
    stays self-reported (its ``recheck``: ``unsandboxed``)."""


_said_why: list[str] = []


def jail() -> str | None:
    """Put the re-checks' workers in the sandbox (once; the workers with an owner run in it).
    None when they run in it; else why not (said once on stderr): then no re-check runs."""
    from .. import workers
    if workers.SANDBOX is not None:
        return None

    from ..checking.sandbox import GradingSandbox, why_not
    why = why_not()
    if why is not None:
        if not _said_why:
            _said_why.append(why)
            print(f"class view: no re-checks, since they cannot be sandboxed here ({why}); every "
                  f"check stays self-reported", file=sys.stderr, flush=True)
        return why
    database = Path(settings.text("COURSE_CLASS_DB")).resolve()
    workers.SANDBOX = GradingSandbox([database.with_name(database.name + end)
                                    for end in ("", "-wal", "-shm", "-journal")])
    return None


def recheck(exercise: str, source: str, learner: str = "") -> tuple[bool, str]:
    """The service's own verdict on ``source`` as ``learner``'s kernel of ``exercise``: (passed,
    the likely mistake if it failed). In workers of that learner's and exercise's own, stopped
    when it ends: no worker ever serves two learners (a poisoned one would spoil the next
    learner's verdict, and hold their kernel's text). :class:`Unsandboxed` where the machine
    cannot sandbox it."""
    from .. import workers
    from ..checking import run_check
    from ..checking.mistakes import likely_mistake
    why = jail()
    if why is not None:
        raise Unsandboxed(why)
    owner = f"class-view:{learner}:{exercise}"
    folder = Path(tempfile.mkdtemp(prefix="class-view-recheck-"))
    try:
        path = folder / f"{exercise}.cl"
        path.write_text(source, encoding="utf-8")
        report = run_check(exercise, kernel=path, owner=owner)
    finally:
        workers.POOL.close(owner=owner)
        remove_tree(folder)
    return bool(report.passed), "" if report.passed else likely_mistake(report)


class Rechecker:
    """The queue of re-checks and the thread that runs them (started with the first)."""

    def __init__(self, store, enabled: bool = True, check=recheck, waiting: int = WAITING,
                 per_learner: int = PER_LEARNER):
        self.store, self.enabled, self.check = store, enabled, check
        self.waiting, self.per_learner = waiting, per_learner
        self._jobs: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._held: Counter = Counter()     # re-checks waiting or running, per learner
        self._passed: OrderedDict[tuple[str, str], bool] = OrderedDict()
        self._thread: threading.Thread | None = None
        self.done = 0

    def reserve(self, learner: str) -> str:
        """``pending`` if a re-check of this learner's event may be queued (then :meth:`start`
        it, or :meth:`release`), else why not (``off``, ``skipped``): the event's ``recheck``."""
        if not self.enabled:
            return "off"
        with self._lock:
            if sum(self._held.values()) >= self.waiting or \
                    self._held[learner] >= self.per_learner:
                return "skipped"
            self._held[learner] += 1
        return "pending"

    def release(self, learner: str) -> None:
        with self._lock:
            self._held[learner] -= 1
            if self._held[learner] <= 0:
                del self._held[learner]

    def start(self, event_id: int, learner: str, exercise: str, source: str) -> None:
        """Queue the re-check of a stored event (never waits for it)."""
        self._jobs.put((event_id, learner, exercise, source))
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, name="class-view-recheck",
                                                daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            event_id, learner, exercise, source = self._jobs.get()
            try:
                self._one(event_id, learner, exercise, source)
            except Exception as e:   # the store closed, ...: the thread goes on with the next
                print(f"class view: re-check of event {event_id} lost: {e!r}", file=sys.stderr)
            finally:
                self.release(learner)
                self.done += 1
                self._jobs.task_done()

    def _one(self, event_id: int, learner: str, exercise: str, source: str) -> None:
        key = (exercise, text_digest(source))   # the digest the record of passed checks keeps
        if key in self._passed:
            self._passed.move_to_end(key)
            return self.store.verify(event_id, True, "")
        try:
            passed, mistake = self.check(exercise, source, learner)
        except Unsandboxed:     # never run unsandboxed, never verified: stays self-reported
            return self.store.set_recheck(event_id, "unsandboxed")
        except Exception as e:  # the service could not check (no device, ...): still unverified
            return self.store.set_recheck(event_id, f"error: {type(e).__name__}: {e}"[:300])
        if passed:
            self._passed[key] = True
            while len(self._passed) > REMEMBERED:
                self._passed.popitem(last=False)
        self.store.verify(event_id, passed, mistake)

    def idle(self, timeout: float = 0.0) -> bool:
        """Wait at most ``timeout`` s for the queued re-checks to end; True if none is left."""
        end = time.monotonic() + timeout
        while self._jobs.unfinished_tasks and time.monotonic() < end:
            time.sleep(0.02)
        return not self._jobs.unfinished_tasks
