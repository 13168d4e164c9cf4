"""The class view's memory: every check event in SQLite, and the class made of them.

One row per event, written in its own transaction (WAL journal): a restart of the service loses
nothing, and two events that arrive at once are both kept. The class is computed from the rows on
each request (a class of 100 checking all day is some thousands of rows: milliseconds).

The rules the page shows:

- **cell**: *not tried* (no event), *trying* (checked, never passed: the number of attempts and the
  time since the first), *passed* (the attempts it took and the time from the first attempt to the
  first pass).
- **stuck**: trying an exercise for at least ``stuck_minutes`` since the first attempt, with at least
  ``stuck_fails`` failed checks, and no pass (defaults 15 minutes and 3 checks; the service's
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
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_learner ON events (learner, exercise, at);
"""


@dataclass
class Cell:
    """One learner on one exercise."""

    attempts: int = 0
    failed: int = 0
    first: float | None = None          # when the first check came
    passed_at: float | None = None      # when the first passing check came
    last_mistake: str = ""              # the latest check's, if it failed
    last_passed: bool = False

    @property
    def state(self) -> str:
        return "not tried" if not self.attempts else "passed" if self.passed_at else "trying"


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


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")   # an event acknowledged is on disk
        self._db.executescript(SCHEMA)

    def add(self, learner: str, exercise: str, passed: bool, mistake: str, seconds: float,
            kernel: str, at: float | None = None) -> int:
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO events (learner, exercise, passed, mistake, seconds, kernel, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (learner, exercise, int(passed), mistake, seconds, kernel,
                 time.time() if at is None else at))
            return int(cur.lastrowid)

    def events(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute("SELECT id, learner, exercise, passed, mistake, seconds, "
                                    "kernel, at FROM events ORDER BY id").fetchall()
        keys = ("id", "learner", "exercise", "passed", "mistake", "seconds", "kernel", "at")
        return [dict(zip(keys, r, strict=True)) | {"passed": bool(r[3])} for r in rows]

    def close(self) -> None:
        self._db.close()


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
        c = cells.setdefault((e["learner"], e["exercise"]), Cell())
        c.attempts += 1
        c.first = e["at"] if c.first is None else c.first
        c.last_passed = e["passed"]
        if e["passed"]:
            c.passed_at = c.passed_at or e["at"]
            c.last_mistake = ""
        else:
            c.failed += 1
            c.last_mistake = e["mistake"] or "failed (no mistake named)"
    state = ClassState(sorted(names), list(exercises), cells, now=now, events=len(events))
    tally: dict[str, Counter] = {x: Counter() for x in exercises}
    for (learner, ex), c in sorted(cells.items()):
        if c.state != "trying":
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


def grader_csv(state: ClassState) -> str:
    """The matrix as ``python -m helpers grade`` writes grades.csv: a row per learner, a column per
    exercise (passed, failed, missing), then how many passed of how many."""
    from ..checking.grade import csv_cell
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["learner", *state.exercises, "passed", "of"])
    status = {"passed": "passed", "trying": "failed", "not tried": "missing"}
    for lr in state.learners:
        row = [status[state.cells.get((lr, x), Cell()).state] for x in state.exercises]
        w.writerow([csv_cell(lr), *row, sum(s == "passed" for s in row), len(state.exercises)])
    return out.getvalue()
