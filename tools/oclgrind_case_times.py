"""Where the Oclgrind pass of a check spends its time: each of the pass's cases timed on Oclgrind, in
one process, with its checks on as the checker turns them on, for several thread counts and with
each plugin left out in turn. A benchmark (issue 20), not a test.

    python tools/oclgrind_case_times.py sgemm_tiled solutions/sgemm_tiled.cl --threads 1 4 0 \
        --out results/history/oclgrind-case-times-HOST.json

``--threads 0`` is Oclgrind's default (one per core). Each configuration runs in a fresh child
process, because Oclgrind reads its environment once, when the platform loads.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT


def child(name: str, path: str, repeats: int) -> dict:
    import pyopencl as cl

    from helpers.checking.passes import widest_case
    from helpers.checking.worker_side import run_case
    from helpers.device import oclgrind_device
    from helpers.exercises import device_limits, get

    ex = get(name)
    dev = oclgrind_device()
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    t = time.perf_counter()
    from helpers.checking.passes import UNOPTIMIZED
    options = [] if os.environ.get("COURSE_TIMES_OPTIMIZED") else list(UNOPTIMIZED)
    knl = cl.Program(ctx, Path(path).read_text()).build(options).all_kernels()[0]
    built = time.perf_counter() - t
    cases = [c for c in ex.cases if c.small] + widest_case(ex)
    assert all(ex.fits(c, device_limits(dev)) for c in cases)
    rows = []
    for c in cases:
        times, ok = [], None
        for r in range(repeats):
            t = time.perf_counter()
            ok = run_case(ctx, queue, knl, ex, c, r, guard=False).get("ok")
            times.append(time.perf_counter() - t)
        rows.append({"case": c.label(),
                     "work_items": c.work_items, "local": list(c.local_size),
                     "small": c.small, "ok": ok, "seconds": sorted(times)[len(times) // 2]})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"build_s": built, "cases": rows, "total_s": sum(r["seconds"] for r in rows),
            "cpu_s": usage.ru_utime + usage.ru_stime}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("exercise")
    ap.add_argument("kernel")
    ap.add_argument("--threads", type=int, nargs="+", default=[0])
    ap.add_argument("--plugins", action="store_true",
                    help="also time each configuration without each of the optional plugins")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--optimized", action="store_true",
                    help="also time an optimized build (the checker builds unoptimized)")
    ap.add_argument("--out")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.exercise, args.kernel, args.repeats)))
        return 0
    from helpers.checking.oclgrind import ENVIRONMENT
    from helpers.device import oclgrind_device
    from helpers.timing import environment
    variants = [("as the checker runs it", (), False)]
    if args.plugins:
        variants += [("without uninitialized values", ("OCLGRIND_UNINITIALIZED",), False),
                     ("without data races", ("OCLGRIND_DATA_RACES",), False),
                     ("without instruction counts", ("OCLGRIND_INST_COUNTS",), False),
                     ("no plugin", ("OCLGRIND_UNINITIALIZED", "OCLGRIND_DATA_RACES",
                                    "OCLGRIND_INST_COUNTS"), False)]
    if args.optimized:
        variants += [(f"{label}, optimized build", dropped, True) for label, dropped, _ in variants]
    runs = []
    for threads in args.threads:
        for label, dropped, optimized in variants:
            env = {**os.environ, **ENVIRONMENT, "OCLGRIND_LOG": os.devnull}
            if optimized:
                env["COURSE_TIMES_OPTIMIZED"] = "1"
            for k in dropped:
                env.pop(k, None)
            if threads:
                env["OCLGRIND_NUM_THREADS"] = str(threads)
            else:
                env.pop("OCLGRIND_NUM_THREADS", None)
            t = time.perf_counter()
            out = subprocess.run([sys.executable, __file__, args.exercise, args.kernel, "--child",
                                  "--repeats", str(args.repeats)], env=env, cwd=ROOT,
                                 capture_output=True, text=True, check=True)
            wall = time.perf_counter() - t
            row = {"threads": threads or "default (one per core)", "plugins": label,
                   "process_wall_s": wall, **json.loads(out.stdout.strip().splitlines()[-1])}
            runs.append(row)
            print(f"threads {row['threads']}, {label}: cases {row['total_s']:.3f} s "
                  f"(cpu {row['cpu_s']:.1f} s)")
            for c in row["cases"]:
                print(f"    {c['seconds']:.3f}  {c['work_items']:5d} work-items  {c['case']}")
    record = {"what": "each case of a check's Oclgrind pass timed on Oclgrind (median of "
                      f"{args.repeats}), per thread count and plugin set",
              "exercise": args.exercise, "kernel": args.kernel, "runs": runs,
              "written_by": "tools/oclgrind_case_times.py", "environment": environment(oclgrind_device()),
              "cores": os.cpu_count()}
    if args.out:
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
