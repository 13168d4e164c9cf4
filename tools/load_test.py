"""A class on one machine: N learners at once, each in its own process with its own home folder
(as on a JupyterHub, where each user has one), each checking an exercise and then running a short
throughput sweep. Reports the check's median and 95th-percentile latency and every failure.

    python tools/load_test.py --learners 10 30 --out results/history/load-<machine>.json [--device intel]

Each learner's check is the notebook's ``check("sum_ints")`` on the solution (device pass,
Oclgrind pass and all); the sweep is ``bench.throughput_sweep`` on four sizes. ``--pocl-threads``
sets POCL_MAX_PTHREAD_COUNT for every learner (a shared server's setting; see docs/deployment.md).

``--warm``: as in a class, where each learner's notebook has checked before: every learner checks
once (all at once: the first checks, reported too), waits until all have, then all check again at
the same moment (the check's latency reported); no sweep.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

LEARNER = r"""
import json, sys, time
t0 = time.perf_counter()
from helpers.checking import run_check
report = run_check("sum_ints", sys.argv[1])
t1 = time.perf_counter()
from helpers import bench
from helpers.device import course_context
ctx, queue = course_context(quiet=True)
sweep = bench.throughput_sweep(ctx, queue, "sum_ints", sizes=[1 << 10, 1 << 14, 1 << 18, 1 << 20],
                               progress=False)
t2 = time.perf_counter()
import resource
rss = {"self": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
       "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}  # KiB on Linux
print(json.dumps({"passed": report.passed, "check_seconds": t1 - t0, "sweep_seconds": t2 - t1,
                  "max_rss_mib": {k: v / 1024 for k, v in rss.items()},
                  "device": queue.device.name.strip(), "message": report.message.splitlines()[0],
                  "sweep_points": len(sweep["points"])}))
"""


WARM_LEARNER = r"""
import json, sys, time
from helpers.checking import run_check
t0 = time.perf_counter()
first = run_check("sum_ints", sys.argv[1])
t1 = time.perf_counter()
print("READY", flush=True)
sys.stdin.readline()
t2 = time.perf_counter()
report = run_check("sum_ints", sys.argv[1])
t3 = time.perf_counter()
print(json.dumps({"passed": report.passed and first.passed, "first_check_seconds": t1 - t0,
                  "check_seconds": t3 - t2, "warm": report.device_pass.timing.warm,
                  "message": report.message.splitlines()[0]}))
"""


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def run_class(n: int, device: str | None, pocl_threads: int | None, limit: float,
              warm: bool = False) -> dict:
    with tempfile.TemporaryDirectory(prefix="course-load-") as tmp:
        tmp = Path(tmp)
        procs = []
        started = time.perf_counter()
        for i in range(n):
            home = tmp / f"learner{i:02d}"
            (home / "kernels").mkdir(parents=True)
            kernel = home / "kernels" / "sum_ints.cl"
            shutil.copyfile(ROOT / "solutions" / "sum_ints.cl", kernel)
            env = {k: v for k, v in os.environ.items()
                   if k not in ("COURSE_CACHE", "XDG_CACHE_HOME", "POCL_CACHE_DIR", "TMPDIR")}
            path = [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
            env.update(HOME=str(home), PYTHONPATH=os.pathsep.join(path), COURSE_SOLUTIONS="0")
            if device:
                env["COURSE_DEVICE"] = device
            if pocl_threads:
                env["POCL_MAX_PTHREAD_COUNT"] = str(pocl_threads)
            procs.append(subprocess.Popen([sys.executable, "-c", WARM_LEARNER if warm else LEARNER,
                                           str(kernel)], env=env, cwd=home,
                                          stdin=subprocess.PIPE if warm else None,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True))
        first_done = None
        if warm:   # every first check done, then all check again at once
            for p in procs:
                line = p.stdout.readline()
                if not line.startswith("READY"):
                    break
            first_done = time.perf_counter() - started
            for p in procs:
                try:
                    p.stdin.write("GO\n")
                    p.stdin.flush()
                except OSError:
                    pass
        learners = []
        for i, p in enumerate(procs):
            left = max(1.0, limit - (time.perf_counter() - started))
            try:
                out, err = p.communicate(timeout=left)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
                learners.append({"learner": i, "failure": f"not done within {limit:g} s"})
                continue
            try:
                learners.append({"learner": i, **json.loads(out.strip().splitlines()[-1])})
            except (ValueError, IndexError):
                learners.append({"learner": i, "failure": f"exit {p.returncode}: "
                                 f"{(err or out).strip().splitlines()[-1:]}"})
        wall = time.perf_counter() - started
    checks = [x["check_seconds"] for x in learners if "check_seconds" in x]
    firsts = [x["first_check_seconds"] for x in learners if "first_check_seconds" in x]
    failures = [x for x in learners if "failure" in x or not x.get("passed")]
    extra = {} if not warm else {
        "warm": True, "first_checks_done_seconds": first_done,
        "first_check_median_seconds": statistics.median(firsts) if firsts else None,
        "first_check_p95_seconds": percentile(firsts, 0.95) if firsts else None}
    return {"learners": n, "wall_seconds": wall, "pocl_threads": pocl_threads, **extra,
            "check_median_seconds": statistics.median(checks) if checks else None,
            "check_p95_seconds": percentile(checks, 0.95) if checks else None,
            "max_rss_mib": max((max(x["max_rss_mib"].values()) for x in learners
                                if "max_rss_mib" in x), default=None),
            "sweep_median_seconds": statistics.median(
                [x["sweep_seconds"] for x in learners if "sweep_seconds" in x] or [0.0]),
            "failures": failures, "per_learner": learners}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--learners", type=int, nargs="+", default=[10, 30])
    ap.add_argument("--device", help="COURSE_DEVICE for every learner (default: the course's)")
    ap.add_argument("--pocl-threads", type=int)
    ap.add_argument("--limit", type=float, default=900.0, help="seconds a class may take")
    ap.add_argument("--warm", action="store_true", help="a first check each, then the measured one")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    runs = []
    for n in args.learners:
        print(f"{n} learners at once ...", flush=True)
        r = run_class(n, args.device, args.pocl_threads, args.limit, args.warm)
        runs.append(r)
        if r["check_median_seconds"] is None:
            first = r["failures"][0] if r["failures"] else {}
            print(f"  no check finished; the first failure: {first.get('failure', first)}",
                  flush=True)
            continue
        if args.warm:
            print(f"  first checks: median {r['first_check_median_seconds']:.1f} s, 95th "
                  f"percentile {r['first_check_p95_seconds']:.1f} s", flush=True)
        print(f"  check: median {r['check_median_seconds']:.1f} s, 95th percentile "
              f"{r['check_p95_seconds']:.1f} s; all {n} done in {r['wall_seconds']:.0f} s; "
              f"{len(r['failures'])} failure(s)", flush=True)
    alone = run_class(1, args.device, args.pocl_threads, args.limit, args.warm)
    record = {"what": "N learners at once, each its own process and home: "
                      + ("a first check('sum_ints') each, then all check again at once (the "
                         "latency of the second)" if args.warm else
                         "check('sum_ints') on the solution, then a 4-size sum_ints sweep"),
              "alone": alone, "runs": runs,
              "environment": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                                  timespec="seconds"),
                              "cores": os.cpu_count(), "python": platform.python_version(),
                              "host": platform.platform(), "device": alone["per_learner"][0].get(
                                  "device"),
                              "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse",
                                                        "HEAD"], capture_output=True,
                                                       text=True).stdout.strip()}}
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 1 if any(r["failures"] for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
