"""How long the grader takes over a whole class on this machine: a class of N made-up learners is
built from the solutions and the wrong kernels under tests/wrong/ (each learner hands in every
exercise: the solution, or one of that exercise's wrong kernels, or nothing), then graded with
`helpers.checking.grading.grade` at --jobs (default: the cores). The record holds the seconds, the checks per
minute, each status's count, and the machine.

    python tools/class_grading.py --learners 10 --out results/history/class-grading-<machine>.json

--repeat N grades the same class N times and records each time and their median.
The learners are drawn with a fixed seed, so the same N gives the same class on every machine."""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.checking.grading import grade
from helpers.device import choose_device, describe
from helpers.exercises import exercises
from helpers.paths import ROOT, SOLUTIONS

WRONG = ROOT / "tests" / "wrong"


def make_class(root: Path, learners: int, seed: int = 0, only: list[str] | None = None
               ) -> dict[str, dict[str, str]]:
    """N learners under root (handing in ``only`` these exercises, or all); returns learner ->
    exercise -> what was handed in."""
    rng = random.Random(seed)
    handed: dict[str, dict[str, str]] = {}
    for i in range(learners):
        name = f"learner{i + 1:03d}"
        (root / name / "kernels").mkdir(parents=True)
        handed[name] = {}
        for ex in exercises():
            if only and ex.name not in only:
                continue
            wrong = sorted((WRONG / ex.name).glob("*.cl")) if (WRONG / ex.name).is_dir() else []
            pick = rng.random()
            if pick < 0.05:
                src = None                                     # not handed in
            elif pick < 0.55 or not wrong:
                src = SOLUTIONS / f"{ex.name}.cl"
            else:
                src = rng.choice(wrong)
            handed[name][ex.name] = "missing" if src is None else str(src.relative_to(ROOT))
            if src is not None:
                shutil.copyfile(src, root / name / "kernels" / f"{ex.name}.cl")
    return handed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--learners", type=int, default=10)
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--only", nargs="+", help="these exercises (default: all)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="grade the class this many times; the record holds each time and the median")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    from helpers.checking.scratch import can_mount, restart_with_own_mounts
    restart_with_own_mounts()   # as the grader does: an ordinary user's, in mounts of its own
    each = []
    with tempfile.TemporaryDirectory(prefix="course-class-") as tmp:
        root = Path(tmp) / "class"
        handed = make_class(root, args.learners, only=args.only)
        for k in range(max(1, args.repeat)):
            started = time.perf_counter()
            grades = grade(root, Path(tmp) / f"grades{k}", jobs=args.jobs, only=args.only,
                           progress=sys.stderr.isatty())
            each.append(round(time.perf_counter() - started, 1))
    seconds = statistics.median(each)
    jobs = max(1, args.jobs or os.cpu_count() or 1)
    record = {
        "written_by": f"python tools/class_grading.py --learners {args.learners}"
                      + (f" --jobs {args.jobs}" if args.jobs else "")
                      + (f" --only {' '.join(args.only)}" if args.only else "")
                      + (f" --repeat {args.repeat}" if args.repeat > 1 else ""),
        "learners": args.learners, "exercises": len(args.only or exercises()),
        "checks": len(grades), "sandboxed": True, "run_by_root": os.geteuid() == 0,
        "scratch_tmpfs": can_mount(),
        "jobs": jobs, "seconds": round(seconds, 1), "seconds_each": each,
        "checks_per_minute": round(60 * len(grades) / seconds, 1),
        "statuses": dict(collections.Counter(g.status for g in grades)),
        "device": describe(choose_device()), "cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "handed_in": handed,
    }
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    print(f"{len(grades)} checks of {args.learners} learners in {seconds:.0f} s with {jobs} at once "
          f"({record['checks_per_minute']} a minute): {record['statuses']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
