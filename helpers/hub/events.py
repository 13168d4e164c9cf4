"""What a check tells the class view, inside a JupyterHub only.

A learner's server started by the course's hub has ``COURSE_CLASS_URL`` (where the class-view
service takes events, set by deploy/jupyterhub/jupyterhub_config.py) and ``JUPYTERHUB_API_TOKEN``
(the server's own token, which the hub gave it). With both, each check (``check("NAME")`` in a
notebook, ``python -m helpers check`` in its terminal) sends one event, through the
observer :func:`register` subscribes to the checker's verdicts: the exercise, passed or
failed, the likely mistake's short name, the seconds the check took, a hash of the kernel's text and
the text itself (``source``, when the file is a readable UTF-8 kernel of at most 1 MiB, as the check
reads it). *Who* is not in it: the service asks the hub whose token it came with. Elsewhere nothing
is sent.

The service shows what this server says as *self-reported*: this server runs the learner's code with
the learner's rights, so a learner could send anything with its token. The kernel's text is what
lets the service check it again itself and show a *verified* verdict (:mod:`.recheck`).

The check never waits for it: the event goes into a short queue that one background thread empties
(a 2 s limit per event); when the queue is full or the service does not answer, the event is
dropped and the verdict is what it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import threading
import urllib.request
from pathlib import Path

from .. import settings

URL_VARIABLE = "COURSE_CLASS_URL"
HUB_TOKEN = "JUPYTERHUB_API_TOKEN"
SEND_TIMEOUT = 2.0
QUEUE_SIZE = 20

_queue: queue.Queue[tuple[str, str, bytes]] = queue.Queue(QUEUE_SIZE)
_sender: threading.Thread | None = None
_lock = threading.Lock()
dropped = 0          # events not delivered (queue full, service down): for tests and curiosity
delivered = 0


def destination() -> tuple[str, str] | None:
    """The service's events URL and the server's token, or None outside the course's hub."""
    url, token = settings.text(URL_VARIABLE).strip(), os.environ.get(HUB_TOKEN, "")
    if not url or not token:
        return None
    return url.rstrip("/") + "/events", token


def kernel_hash(path: Path | None) -> str:
    """The first 16 hex digits of the SHA-256 of the kernel file's text ("" if unreadable)."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read(1 << 20)).hexdigest()[:16]
    except (OSError, TypeError):
        return ""


def kernel_source(path: Path | None) -> str | None:
    """The kernel file's text as a check reads it (UTF-8, at most 1 MiB, no NUL), None if it cannot
    be read so."""
    from ..checking.learner import RefusedFile, kernel_text
    try:
        return kernel_text(Path(path), str(path))
    except (RefusedFile, OSError, TypeError):
        return None


def event(report, seconds: float) -> dict:
    """The event of one check (its :class:`~helpers.checking.verdict.CheckReport`)."""
    from ..checking.mistakes import likely_mistake
    e = {"exercise": report.name, "passed": bool(report.passed),
         "mistake": "" if report.passed else likely_mistake(report),
         "seconds": round(float(seconds), 3), "kernel": kernel_hash(report.kernel_path)}
    source = kernel_source(report.kernel_path)
    if source is not None:
        e["source"] = source
    return e


def register() -> None:
    """Make :func:`report_check` an observer of the checker's verdicts. ``helpers/__init__`` calls
    it in a learner's server of the course's hub (where :func:`destination` is set); elsewhere no
    event is ever made."""
    import atexit

    from ..checking.observers import subscribe
    subscribe(report_check)
    # the sender is a daemon thread: a process that ends (``python -m helpers check`` in a
    # terminal) first gives its queued events the time one send may take
    atexit.register(flush, SEND_TIMEOUT)


def report_check(report, seconds: float) -> bool:
    """Queue the event of a check for the class view; False when not in the course's hub or the
    queue is full (the event is dropped). Never raises, never blocks."""
    global dropped
    try:
        where = destination()
        if where is None:
            return False
        body = json.dumps(event(report, seconds)).encode()
        _queue.put_nowait((*where, body))
    except Exception:   # queue.Full, or anything: the class view never costs a verdict
        dropped += 1
        return False
    _start_sender()
    return True


def _start_sender() -> None:
    global _sender
    with _lock:
        if _sender is None or not _sender.is_alive():
            _sender = threading.Thread(target=_send_forever, name="class-view-events", daemon=True)
            _sender.start()


def _send_forever() -> None:
    global dropped, delivered
    while True:
        url, token, body = _queue.get()
        try:
            req = urllib.request.Request(url, data=body, method="POST", headers={
                "Authorization": f"token {token}", "Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=SEND_TIMEOUT) as r:
                r.read()
            delivered += 1
        except Exception:
            dropped += 1
        finally:
            _queue.task_done()


def flush(timeout: float = 5.0) -> bool:
    """Wait until the queued events are sent or dropped (tests; a script's end). True if done."""
    import time
    end = time.monotonic() + timeout
    while _queue.unfinished_tasks and time.monotonic() < end:
        time.sleep(0.01)
    return not _queue.unfinished_tasks
