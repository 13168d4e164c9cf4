"""How long a check takes in a warm process (a notebook after its first check): the median of
``--repeats`` checks of each kernel, after one that is not counted, with the Oclgrind pass beside
the device pass and, with ``--sequential``, after it (``COURSE_CHECK_SEQUENTIAL=1``).

    python tools/check_times.py --device intel --out results/check-times-....json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time

from helpers import run_check
from helpers.device import choose_device
from helpers.paths import ROOT
from helpers.timing import environment

KERNELS = [("float_copy", None), ("erosion_2d", None), ("parallel_sum", None),
           ("float_copy", "tests/wrong/float_copy/no_guard.cl"),
           ("parallel_sum", "tests/wrong/parallel_sum/no_barrier.cl")]


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sequential", action="store_true")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.sequential:
        os.environ["COURSE_CHECK_SEQUENTIAL"] = "1"
    rows = []
    for name, kernel in KERNELS:
        path = ROOT / kernel if kernel else None
        run_check(name, path, solutions=True, device=args.device)
        walls, cpus, verdicts = [], [], set()
        for _ in range(args.repeats):
            cpu, t = children_cpu(), time.perf_counter()
            report = run_check(name, path, solutions=True, device=args.device)
            walls.append(time.perf_counter() - t)
            cpus.append(children_cpu() - cpu)
            verdicts.add(report.passed)
        rows.append({"exercise": name, "kernel": kernel or f"solutions/{name}.cl",
                     "passed": sorted(verdicts), "median_s": statistics.median(walls),
                     "min_s": min(walls), "max_s": max(walls),
                     "children_cpu_median_s": statistics.median(cpus), "repeats": args.repeats})
        print(f"{rows[-1]['kernel']:45} {'passed' if True in verdicts else 'failed'}  median "
              f"{rows[-1]['median_s']:.2f} s ({rows[-1]['min_s']:.2f}-{rows[-1]['max_s']:.2f}), "
              f"children's CPU {rows[-1]['children_cpu_median_s']:.2f} s")
    record = {"what": "warm check times", "sequential": args.sequential, "rows": rows,
              "written_by": "python tools/check_times.py " + " ".join(sys.argv[1:]),
              "environment": environment(choose_device(args.device))}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(record, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
