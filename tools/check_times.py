"""How long a check takes in a warm process (a notebook after its first check): the median of
``--repeats`` checks of each kernel, after one that is not counted, ``--pause`` seconds apart (a
learner edits between two checks; the workers started after the last check get ready meanwhile).

Modes: the default (warm workers, the Oclgrind pass beside the device pass); ``--sequential``
(``COURSE_CHECK_SEQUENTIAL=1``: the passes in turn); ``--no-workers`` (``COURSE_WORKERS=0``: a
fresh process per pass, the mode before warm workers). CPU time is that of this process and all its
children, live workers included (:func:`helpers.checking.profile.cpu_seconds`), as a mean per check.

    python tools/check_times.py --device intel --out results/history/check-times-....json

A passed performance exercise's verdict is printed before its speed is timed: ``verdict_median_s``
is when it was known, ``median_s`` when the check ended.

``--all``: every exercise of the course, its solution and the first of its wrong kernels in
``tests/wrong/`` (in name order), after the five kernels of issue 20's first measurement;
``--only NAME ...`` keeps those exercises' rows. ``COURSE_OCLGRIND_WORKERS`` (recorded) sets how
many Oclgrind workers a check deals its small cases to.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from helpers.checking import run_check  # noqa: E402
from helpers.checking.options import default_oclgrind_workers  # noqa: E402
from helpers.checking.profile import cpu_seconds  # noqa: E402
from helpers.device import choose_device  # noqa: E402
from helpers.paths import ROOT  # noqa: E402
from helpers.timing import environment  # noqa: E402

KERNELS = [("float_copy", None), ("erosion_2d", None), ("parallel_sum", None),
           ("float_copy", "tests/wrong/float_copy/no_guard.cl"),
           ("parallel_sum", "tests/wrong/parallel_sum/no_barrier.cl")]


def every_exercise() -> list[tuple[str, str | None]]:
    from helpers.exercises import exercises
    rows = list(KERNELS)
    for ex in exercises():
        wrong = sorted((ROOT / "tests" / "wrong" / ex.name).glob("*.cl"))[:1]
        rows += [k for k in [(ex.name, None)] + [(ex.name, str(w.relative_to(ROOT))) for w in wrong]
                 if k not in rows]
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--pause", type=float, default=1.0)
    parser.add_argument("--sequential", action="store_true")
    parser.add_argument("--no-workers", action="store_true")
    parser.add_argument("--all", action="store_true", help="every exercise (see above)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="these exercises' rows only")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.sequential:
        os.environ["COURSE_CHECK_SEQUENTIAL"] = "1"
    if args.no_workers:
        os.environ["COURSE_WORKERS"] = "0"
    rows = []
    for name, kernel in every_exercise() if args.all else KERNELS:
        if args.only and name not in args.only:
            continue
        path = ROOT / kernel if kernel else None
        run_check(name, path, solutions=True, device=args.device)
        walls, to_verdict, verdicts = [], [], set()
        cpu_total = 0.0
        for _ in range(args.repeats):
            time.sleep(args.pause)
            cpu, t = cpu_seconds(), time.perf_counter()
            known = []   # when a performance exercise's verdict was known, before its timing
            report = run_check(name, path, solutions=True, device=args.device,
                               on_verdict=lambda message, known=known: known.append(
                                   time.perf_counter()))
            walls.append(time.perf_counter() - t)
            to_verdict.append((known[0] if known else t + walls[-1]) - t)
            cpu_total += cpu_seconds() - cpu
            verdicts.add(report.passed)
        rows.append({"exercise": name, "kernel": kernel or f"solutions/{name}.cl",
                     "passed": sorted(verdicts), "median_s": statistics.median(walls),
                     "min_s": min(walls), "max_s": max(walls),
                     "verdict_median_s": statistics.median(to_verdict),
                     "cpu_mean_s": cpu_total / args.repeats, "repeats": args.repeats})
        r = rows[-1]
        timed = (f", verdict after {r['verdict_median_s']:.2f} s"
                 if r["verdict_median_s"] < r["median_s"] - 0.005 else "")
        print(f"{r['kernel']:45} {'passed' if True in verdicts else 'failed'}  median "
              f"{r['median_s']:.2f} s ({r['min_s']:.2f}-{r['max_s']:.2f}){timed}, "
              f"CPU {r['cpu_mean_s']:.2f} s", flush=True)
    record = {"what": "warm check times", "sequential": args.sequential,
              "workers": not args.no_workers, "pause_s": args.pause, "rows": rows,
              "oclgrind_workers": default_oclgrind_workers(),
              "written_by": "python tools/check_times.py " + " ".join(sys.argv[1:]),
              "environment": environment(choose_device(args.device))}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
