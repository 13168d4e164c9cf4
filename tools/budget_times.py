"""Do the cells with a time budget keep it, and do their bars end with the work (issue 41 point 8)?
Notebook 14's tuning cell as the notebook calls it (``tuning.tune_sgemm`` with a budget of 50 s at
n = 512, or ``--budget``), timed whole, and notebook 01's peaks (``bench.peaks(..., refresh=True)``),
each with its progress bar recorded: where it stood when it closed and how long after the bar was
full the call returned. A benchmark, not a test (tests/test_sgemm.py holds a short budget to its
margin).

    python tools/budget_times.py --device nvidia --out results/history/budgets-nvidia-h100.json
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tqdm.auto  # noqa: E402
from tqdm import tqdm as _tqdm  # noqa: E402

from helpers import bench  # noqa: E402
from helpers.device import choose_device, course_context  # noqa: E402
from helpers.studies import tuning  # noqa: E402
from helpers.timing import environment  # noqa: E402


class Bar(_tqdm):
    """tqdm writing to a string, remembering when it was last full and where it stood at close."""
    made: list[Bar] = []

    def __init__(self, *args, **kwargs):
        kwargs.update(file=io.StringIO(), disable=False, delay=0)
        super().__init__(*args, **kwargs)
        self.full_at = None
        Bar.made.append(self)

    def update(self, n=1):
        out = super().update(n)
        if self.total and self.n >= self.total and self.full_at is None:
            self.full_at = time.perf_counter()
        return out

    def facts(self, ended: float) -> dict:
        return {"desc": self.desc, "n": self.n, "total": self.total,
                "full_before_end_s": None if self.full_at is None else round(ended - self.full_at, 3),
                "last_line": str(self)}


def timed(what: str, call) -> dict:
    Bar.made.clear()
    started = time.perf_counter()
    result = call()
    ended = time.perf_counter()
    return {"what": what, "seconds": round(ended - started, 3), "result": result,
            "bars": [b.facts(ended) for b in Bar.made]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device")
    ap.add_argument("--budget", type=float, default=50.0)
    ap.add_argument("--n", type=int, default=512)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    tqdm.auto.tqdm = Bar
    dev = choose_device(args.device)
    ctx, queue = course_context(dev, quiet=True)

    def tune():
        record = tuning.tune_sgemm(dev, budget=args.budget, n=args.n, save=False)
        return {k: record[k] for k in ("budget_s", "seconds", "stopped", "space_size",
                                       "gflop_per_s", "n")} | {"tried": len(record["tried"])}

    def peaks():
        peak = bench.peaks(ctx, queue, refresh=True)
        return {k: peak.get(k) for k in ("bandwidth_gb_per_s", "compute_gflop_per_s")}

    rows = [timed(f"notebook 14: tuning.tune_sgemm(budget={args.budget:g}, n={args.n})", tune),
            timed("notebook 01: bench.peaks(refresh=True)", peaks)]
    record = {"what": __doc__.split("\n\n")[0], "margin_s": tuning.MARGIN_S, "rows": rows,
              "within_budget_and_margin": rows[0]["seconds"] <= args.budget + tuning.MARGIN_S,
              "environment": environment(dev)}
    Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    for r in rows:
        bars = "; ".join(f"bar {b['n']}/{b['total']}, full {b['full_before_end_s']} s before the end"
                         for b in r["bars"])
        print(f"{r['what']}: {r['seconds']:.1f} s ({bars})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
