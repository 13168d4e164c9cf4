"""How long each notebook takes to run top to bottom on this machine (the solutions on, the
learner's full sizes unless --small): the machine's share of a workshop's schedule.

    python tools/notebook_times.py --out results/notebook-times-<machine>.json [--small]

Each notebook runs under nbval in its own process; the record holds the seconds per notebook, the
outcome, the device the course chose and the versions.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--small", action="store_true", help="COURSE_SMALL=1 (the test sizes)")
    args = ap.parse_args()
    env = {**os.environ, "COURSE_SOLUTIONS": "1", "COURSE_SMALL": "1" if args.small else "0",
           "MPLBACKEND": "Agg"}
    rows = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-o", "addopts=", "--nbval-lax", "--nbval-current-env",
                              "--nbval-cell-timeout=1800", str(nb)], cwd=ROOT, env=env,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        last = (run.stdout.strip().splitlines() or [""])[-1]
        rows.append({"notebook": nb.stem, "seconds": round(seconds, 1),
                     "passed": run.returncode == 0, "pytest": last})
        print(f"{nb.stem:<28} {seconds:7.1f} s  {last}", flush=True)
    device = subprocess.run([sys.executable, "-c", "import helpers; from helpers.device import "
                             "choose_device, describe; print(describe(choose_device()))"],
                            cwd=ROOT, env=env, capture_output=True, text=True).stdout.strip()
    record = {"what": "each notebook top to bottom under nbval, the solutions on, "
                      + ("small sizes" if args.small else "full sizes"),
              "rows": rows, "device": device,
              "environment": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                                  timespec="seconds"),
                              "cores": os.cpu_count(), "python": platform.python_version(),
                              "host": platform.platform()}}
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(r["passed"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
