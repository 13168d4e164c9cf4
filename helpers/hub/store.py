"""The class view's memory: every check event in SQLite, and the class made of them.

One row per event, written in its own transaction (WAL journal): a restart of the service loses
nothing, and two events that arrive at once are both kept. The class is computed from the rows on
each request (a class of 100 checking all day is some thousands of rows: milliseconds).

Every event comes from a learner's own server, which runs the learner's code with the learner's
rights: what it says is **self-reported** (a learner could post ``passed: true`` with their own
token). An event that carried its kernel's source is re-checked by the service itself
(:mod:`.recheck`); the re-check's verdict then replaces the event's (``verified``), and what the
learner's server said stays in ``claimed``. ``recheck`` says where that stands: ``""`` (no source
came), ``off``, ``pending``, ``done``, ``skipped`` (too many waiting), ``lost`` (the service
restarted first) or ``error: ...``.

The rules the page shows:

- **cell**: *not tried* (no event); *passed (verified)* (a re-check passed); *passed
  (self-reported)* (a learner's server said so, no re-check passed); *failed (verified)* (no pass,
  a re-check failed one of the checks, perhaps one the server reported passed); *trying
  (self-reported)* (only the server's word, no pass). With the number of attempts and the time
  since the first, or from the first attempt to the first pass.
- **stuck**: not passed, for at least ``stuck_minutes`` since the first attempt, with at least
  ``stuck_fails`` failed checks (defaults 15 minutes and 3 checks; the service's
  ``COURSE_STUCK_MINUTES`` and ``COURSE_STUCK_FAILS``).
- **what to explain**: per exercise, the likely mistakes of the latest failed check of each learner
  still trying it, most common first.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    learner TEXT NOT NULL,
    exercise TEXT NOT NULL,
    passed INTEGER NOT NULL,
    mistake TEXT NOT NULL,
    seconds REAL NOT NULL,
    kernel TEXT NOT NULL,
    at REAL NOT NULL,
    claimed INTEGER,
    verified INTEGER NOT NULL DEFAULT 0,
    recheck TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS events_by_learner ON events (learner, exercise, at);
"""
# the columns a class view before re-checks lacked (its rows are self-reported, as they were)
ADDED = {"claimed": "INTEGER", "verified": "INTEGER NOT NULL DEFAULT 0",
         "recheck": "TEXT NOT NULL DEFAULT ''"}
KEYS = ("id", "learner", "exercise", "passed", "mistake", "seconds", "kernel", "at", "claimed",
        "verified", "recheck")

SELF_REPORTED = "a learner's own server sent it, and a learner could forge it"
UNVERIFIED_WHY = {"": "their server sent no kernel source to re-check",
                  "off": "re-checks are off on this hub",
                  "pending": "the service's re-check is still waiting",
                  "skipped": "too many re-checks were waiting",
                  "lost": "the service restarted before re-checking it",
                  "unsandboxed": "the service cannot sandbox a re-check on this machine, so it "
                                 "runs no learner's kernel"}


def why_unverified(recheck: str) -> str:
    """Why an event is still only self-reported, in words."""
    if recheck.startswith("error"):
        return "the service's re-check could not run (" + recheck.partition(": ")[2] + ")"
    return UNVERIFIED_WHY.get(recheck, "not re-checked")


@dataclass
class Cell:
    """One learner on one exercise."""

    attempts: int = 0
    failed: int = 0
    first: float | None = None          # when the first check came
    last: float | None = None           # when the latest came
    verified_pass_at: float | None = None   # the first check a re-check passed
    self_pass_at: float | None = None   # the first pass only the learner's server reported
    verified_fails: int = 0
    refuted: int = 0                    # reported passed by the server, failed by the re-check
    pending: int = 0                    # re-checks still waiting
    unverified: str = ""                # why the latest self-reported pass is not verified
    last_mistake: str = ""              # the latest check's, if it failed
    last_passed: bool = False

    @property
    def state(self) -> str:
        if not self.attempts:
            return "not tried"
        if self.verified_pass_at is not None:
            return "passed (verified)"
        if self.self_pass_at is not None:
            return "passed (self-reported)"
        return "failed (verified)" if self.verified_fails else "trying (self-reported)"

    @property
    def passed(self) -> bool:
        return self.state.startswith("passed")

    @property
    def verified(self) -> bool:
        return self.state.endswith("(verified)")

    @property
    def passed_at(self) -> float | None:
        return self.verified_pass_at if self.verified_pass_at is not None else self.self_pass_at


@dataclass
class ClassState:
    """The class at one moment: learners x exercises, the stuck, what to explain."""

    learners: list[str]
    exercises: list[str]
    cells: dict[tuple[str, str], Cell]
    stuck: list[dict] = field(default_factory=list)
    mistakes: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    now: float = 0.0
    events: int = 0
    verified: int = 0       # events a re-check gave its verdict
    pending: int = 0        # events whose re-check is waiting


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")   # an event acknowledged is on disk
        self._db.executescript(SCHEMA.split("CREATE INDEX")[0])
        have = {r[1] for r in self._db.execute("PRAGMA table_info(events)")}
        for column, kind in ADDED.items():
            if column not in have:
                self._db.execute(f"ALTER TABLE events ADD COLUMN {column} {kind}")
        self._db.executescript(SCHEMA)
        # a re-check waiting in a service that has ended will not come
        self._db.execute("UPDATE events SET recheck = 'lost' WHERE recheck = 'pending'")

    def add(self, learner: str, exercise: str, passed: bool, mistake: str, seconds: float,
            kernel: str, at: float | None = None, recheck: str = "") -> int:
        """A learner's server's event: self-reported (``passed`` is its word, kept in
        ``claimed`` too); ``recheck`` says whether the service will re-check it."""
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO events (learner, exercise, passed, mistake, seconds, kernel, at, "
                "claimed, verified, recheck) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (learner, exercise, int(passed), mistake, seconds, kernel,
                 time.time() if at is None else at, int(passed), recheck))
            return int(cur.lastrowid)

    def verify(self, event_id: int, passed: bool, mistake: str) -> None:
        """The service's re-check's verdict replaces the event's (its claim is kept)."""
        with self._lock:
            self._db.execute("UPDATE events SET passed = ?, mistake = ?, verified = 1, "
                             "recheck = 'done' WHERE id = ?",
                             (int(passed), "" if passed else mistake, event_id))

    def set_recheck(self, event_id: int, recheck: str) -> None:
        with self._lock:
            self._db.execute("UPDATE events SET recheck = ? WHERE id = ?", (recheck, event_id))

    def events(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(KEYS)} FROM events ORDER BY id").fetchall()
        return [dict(zip(KEYS, r, strict=True)) | {
            "passed": bool(r[3]), "claimed": bool(r[3] if r[8] is None else r[8]),
            "verified": bool(r[9])} for r in rows]

    def close(self) -> None:
        self._db.close()


def _count(c: Cell, e: dict) -> None:
    """One event into its cell."""
    verified = bool(e.get("verified", False))
    c.attempts += 1
    c.first = e["at"] if c.first is None else c.first
    c.last = e["at"] if c.last is None else max(c.last, e["at"])
    c.last_passed = e["passed"]
    if verified and e["passed"] and c.verified_pass_at is None:
        c.verified_pass_at = e["at"]
    elif not verified and e["passed"]:
        c.self_pass_at = e["at"] if c.self_pass_at is None else c.self_pass_at
        c.unverified = why_unverified(e.get("recheck", ""))
    if verified and not e["passed"]:
        c.verified_fails += 1
        c.refuted += bool(e.get("claimed", False))
    c.pending += e.get("recheck", "") == "pending"
    if e["passed"]:
        c.last_mistake = ""
    else:
        c.failed += 1
        c.last_mistake = e["mistake"] or "failed (no mistake named)"


def class_state(events: list[dict], exercises: list[str], learners: list[str] | None = None,
                now: float | None = None, stuck_minutes: float = 15.0,
                stuck_fails: int = 3) -> ClassState:
    """The class from its events (in the order they came). ``learners``: the class's list (those
    with no event yet are rows of *not tried*); others who sent events are added."""
    now = time.time() if now is None else now
    names = list(learners or [])
    cells: dict[tuple[str, str], Cell] = {}
    for e in events:
        if e["learner"] not in names:
            names.append(e["learner"])
        _count(cells.setdefault((e["learner"], e["exercise"]), Cell()), e)
    state = ClassState(sorted(names), list(exercises), cells, now=now, events=len(events),
                       verified=sum(bool(e.get("verified")) for e in events),
                       pending=sum(e.get("recheck") == "pending" for e in events))
    tally: dict[str, Counter] = {x: Counter() for x in exercises}
    for (learner, ex), c in sorted(cells.items()):
        if c.passed:
            continue
        if ex in tally and c.last_mistake and not c.last_passed:
            tally[ex][c.last_mistake] += 1
        minutes = (now - c.first) / 60
        if c.failed >= stuck_fails and minutes >= stuck_minutes:
            state.stuck.append({"learner": learner, "exercise": ex, "failed": c.failed,
                                "minutes": minutes, "mistake": c.last_mistake})
    state.stuck.sort(key=lambda s: -s["minutes"])
    state.mistakes = {x: t.most_common() for x, t in tally.items() if t}
    return state


CSV_CELL = {"passed (verified)": "passed", "failed (verified)": "failed",
            "passed (self-reported)": "passed (self-reported)",
            "trying (self-reported)": "failed (self-reported)", "not tried": "missing"}


def grader_csv(state: ClassState) -> str:
    """The matrix as ``python -m helpers grade`` writes grades.csv: a row per learner, a column per
    exercise, then how many passed of how many, and ``verified``. A cell is ``passed`` or
    ``failed`` only when the service's re-check said so; what only the learner's server said is
    ``passed (self-reported)`` or ``failed (self-reported)`` (``missing``: no check), and is not
    counted in ``passed``; ``verified`` is ``false`` on a row with any self-reported cell."""
    from ..checking.grading import csv_cell
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["learner", *state.exercises, "passed", "of", "verified"])
    for lr in state.learners:
        row = [CSV_CELL[state.cells.get((lr, x), Cell()).state] for x in state.exercises]
        w.writerow([csv_cell(lr), *row, sum(s == "passed" for s in row), len(state.exercises),
                    "false" if any(s.endswith("(self-reported)") for s in row) else "true"])
    return out.getvalue()
