"""Stopping the learners' work of a grade at once (issue 55): every child process of
:mod:`helpers.workers` and every process :class:`tracked` for a learner is registered here, by
owner, so that :func:`stop_all` can kill them all, serving a request or not, and keep any new one
of theirs from starting. Imports nothing of the course."""

from __future__ import annotations

import os
import signal
import threading

_LIVE: dict = {}                # every child not yet stopped -> its owner
_PROCESSES: dict = {}           # other processes of learners' work (a graded notebook) -> owner
_STOPPED: set = set()           # owners whose work is being stopped: no new child of theirs
_LOCK = threading.Lock()


class Stopping(RuntimeError):
    """No new child for this owner: its work is being stopped (:func:`stop_all`)."""


def stopped(owner: str) -> bool:
    return owner in _STOPPED


def register(child, owner: str) -> bool:
    """Count ``child`` (with a ``stop()``) among the live ones; False where its owner's work is
    being stopped (checked under the lock :func:`stop_all` snapshots under: each child is in the
    snapshot, or sees the stop)."""
    with _LOCK:
        if owner and owner in _STOPPED:
            return False
        _LIVE[child] = owner
        return True


def forget(child) -> None:
    with _LOCK:
        _LIVE.pop(child, None)


class tracked:
    """``with tracked(proc, owner):`` while ``proc`` (a :class:`subprocess.Popen` leading a
    session of its own) runs ``owner``'s work: :func:`stop_all` kills its process group too."""

    def __init__(self, proc, owner: str):
        self.proc, self.owner = proc, owner

    def __enter__(self):
        with _LOCK:
            _PROCESSES[self.proc] = self.owner
            now = self.owner in _STOPPED
        if now:
            kill_group(self.proc)
        return self.proc

    def __exit__(self, *exc) -> None:
        with _LOCK:
            _PROCESSES.pop(self.proc, None)


def kill_group(proc) -> None:
    """Kill ``proc``'s process group (its session's, where it leads one), or ``proc`` alone."""
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def stop_all(owners) -> None:
    """Stop the work of ``owners`` (learners being graded): every child of theirs, idle or
    serving a request, and every process :class:`tracked` for them, killed at once (their
    requests end as their children's deaths), and no new child of theirs starts until
    :func:`resume`: a check that would try again gets :class:`Stopping` instead."""
    owners = set(owners)
    with _LOCK:
        _STOPPED.update(owners)
        children = [c for c, owner in _LIVE.items() if owner in owners]
        others = [p for p, owner in _PROCESSES.items() if owner in owners]
    for proc in others:
        kill_group(proc)
    for child in children:
        child.stop()


def resume() -> None:
    """Every owner's children may start again (after :func:`stop_all`)."""
    with _LOCK:
        _STOPPED.clear()
