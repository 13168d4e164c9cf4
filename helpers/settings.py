"""Every ``COURSE_*`` variable of the course in one place: its meaning, its default, and who sets
it. Modules read them through :func:`text`, :func:`flag` and :func:`number`, never from
``os.environ`` themselves (``tests/test_settings.py`` fails on a read elsewhere, and on a name
this table does not hold); ``docs/settings.md`` is made from the table (:func:`markdown`).

Standard library only: anything may import it, ``python -m helpers setup`` included.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

ON = frozenset({"1", "true", "yes", "on"})


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    who: str          # learner, instructor, grader, hub, tests, or internal (the course sets it)
    meaning: str


TABLE = (
    # what a learner may set
    Setting("COURSE_DEVICE", "", "learner", "the OpenCL device to use, by a part of its name or "
            "platform's (`oclgrind`, `pocl`, `intel`, `nvidia`); unset: the course's choice"),
    Setting("COURSE_SOLUTIONS", "0", "learner", "`1`: checks and demos use `solutions/` instead of "
            "`kernels/` (the tests and CI run so)"),
    Setting("COURSE_SMALL", "0", "learner", "`1`: the measurements at small sizes (a slow "
            "laptop, CI)"),
    Setting("COURSE_CACHE", "", "learner", "the course's cache folder (the warp model's plugin, "
            "measured peaks); unset: the user's cache"),
    Setting("COURSE_REQUIRE_SPEED", "0", "learner", "`1`: a performance exercise's speed target "
            "counts in its check"),
    Setting("COURSE_STRICT_CHECKS", "", "learner", "`1`: a failed check raises (fails its cell); "
            "`0`: never; unset: under pytest (the course's plugin sets `1`) and with the "
            "solutions on"),
    Setting("COURSE_WARP_SIZE", "32", "learner", "the warp model's warp size (AMD's 64, say)"),
    Setting("COURSE_WARP_BANKS", "32", "learner", "the warp model's local-memory banks"),
    Setting("COURSE_WARP_BANK_BYTES", "4", "learner", "the warp model's bank width in bytes"),
    Setting("COURSE_WARP_SECTOR_BYTES", "32", "learner", "the warp model's sector of global "
            "memory in bytes"),
    # what an instructor, a grader or a hub sets
    Setting("COURSE_GRADING", "0", "grader", "`1`: the grading profile: every measurement at "
            "small sizes, timed 3 times, said in the output (the grader sets it)"),
    Setting("COURSE_CHECK_MEMORY_MB", "2048", "grader", "data memory of one check worker, MiB"),
    Setting("COURSE_CHECK_SEQUENTIAL", "0", "grader", "`1`: a check's passes one after "
            "another, not side by side"),
    Setting("COURSE_OCLGRIND_WORKERS", "", "grader", "Oclgrind workers one check splits its cases "
            "over; unset: 1-3 by the cores (the grader and a hub set 1)"),
    Setting("COURSE_WORKERS", "1", "grader", "`0`: no warm workers (a fresh process per pass)"),
    Setting("COURSE_WORKER_IDLE", "600", "hub", "seconds an idle warm worker is kept"),
    Setting("COURSE_KEEP_VARIABLES", "", "tests", "more variables a worker keeps of its "
            "parent's environment, comma-separated, a trailing * for a prefix"),
    Setting("COURSE_INTEL_ICD", "1", "tests", "`0`: leave Intel's CPU runtime unregistered"),
    Setting("COURSE_CLBLAST_VERSION", "", "instructor", "the CLBlast version recorded beside a "
            "measurement of it; unset: its library's file name"),
    Setting("COURSE_CLASS_URL", "", "hub", "the class view's events URL, set in each learner's "
            "server by the hub (deploy/); unset: no events are sent"),
    Setting("COURSE_CLASS_DB", "class-view.sqlite", "hub", "the class view's database"),
    Setting("COURSE_INSTRUCTORS_GROUP", "instructors", "hub", "the hub group that may see the "
            "class view"),
    Setting("COURSE_STUCK_MINUTES", "15", "hub", "minutes on one exercise before a learner "
            "counts as stuck"),
    Setting("COURSE_STUCK_FAILS", "3", "hub", "failed checks before a learner counts as stuck"),
    Setting("COURSE_CLASS_RATE", "30", "hub", "events a learner may send a minute"),
    Setting("COURSE_CLASS_REFRESH", "10", "hub", "seconds between the class view's refreshes"),
    Setting("COURSE_CLASS_RECHECK", "1", "hub", "`0`: the service re-checks no kernel"),
    # what the course sets for its own processes
    Setting("COURSE_CHILD", "", "internal", "set in every worker the course starts"),
    Setting("COURSE_WORKER", "", "internal", "a worker's role (the reference solution's)"),
    Setting("COURSE_WARP_OUT", "", "internal", "the file the warp model's plugin writes"),
    Setting("COURSE_OWN_MOUNTS", "", "internal", "an ordinary user's grader (or class view "
            "service) started again in mounts of its own (its workers' scratch tmpfs): `yes`, or "
            "why not"),
    Setting("COURSE_OCLGRIND_SHARD", "", "internal", "an Oclgrind worker's share of a check"),
)
BY_NAME = {s.name: s for s in TABLE}


def text(name: str, env: Mapping[str, str] | None = None) -> str:
    """Setting ``name``'s value (its default when unset), from ``env`` or the environment."""
    return (os.environ if env is None else env).get(name, BY_NAME[name].default)


def flag(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether setting ``name`` is on (1, true, yes or on)."""
    return text(name, env).strip().lower() in ON


def given(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether setting ``name`` is set to something (not unset, not empty)."""
    return bool((os.environ if env is None else env).get(name, "").strip())


def number(name: str, env: Mapping[str, str] | None = None) -> float:
    """Setting ``name`` as a number (its default where it is not one)."""
    try:
        return float(text(name, env))
    except ValueError:
        return float(BY_NAME[name].default)


def markdown() -> str:
    """docs/settings.md's table."""
    rows = ["| variable | default | who sets it | what it does |", "|---|---|---|---|"]
    rows += [f"| `{s.name}` | {f'`{s.default}`' if s.default else 'unset'} | {s.who} | "
             f"{s.meaning} |" for s in TABLE]
    return "\n".join(rows)
