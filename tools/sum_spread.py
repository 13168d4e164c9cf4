"""Notebook 15's one-pass sum against cupy.sum in several fresh processes: the bench's own
experiment (``studies.sum_single_pass``) run once per process, so that the spread of each figure
between processes is on record beside the one bench run (python tools/sum_spread.py nvidia
OUT.json --processes 6). cupy's time moves with the process (0.164-0.193 ms on the H100 in
twelve, results/history/sum-spread-nvidia-h100.json): a ratio from one process alone says little."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT


def one(device: str) -> dict:
    """The experiment once, in this process: its rows."""
    from helpers import studies
    from helpers.device import course_context
    ctx, queue = course_context(device, quiet=True)
    return studies.sum_single_pass(ctx, queue)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("device")
    parser.add_argument("out", nargs="?")
    parser.add_argument("--processes", type=int, default=6)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one(args.device)))
        return 0
    import numpy as np

    runs = []
    for k in range(args.processes):
        done = subprocess.run([sys.executable, __file__, args.device, "--child"], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        rows = {r["label"].split(" (")[0]: r for r in result["rows"]}
        ours = rows["course: sum_single_pass, end to end"]
        run = {"process": k, "environment": result["environment"],
               "seconds": {label: r["seconds"] for label, r in rows.items()},
               "kernel_seconds": ours["kernel_seconds"],
               "all_correct": all(r["correct"] for r in result["rows"])}
        if "cupy.sum" in rows:
            run["cupy_over_one_pass"] = rows["cupy.sum"]["seconds"] / ours["seconds"]
            # both timed in turns (studies.in_turns): each round's medians and ratio too
            run.update({key: v for key, v in result.get("in_turns", {}).items()
                        if key.endswith("_per_round")})
        runs.append(run)
        print(f"process {k}: one pass {ours['seconds'] * 1e3:.4f} ms (kernel "
              f"{ours['kernel_seconds'] * 1e3:.4f}), two passes "
              f"{rows['course: sum_modern, end to end']['seconds'] * 1e3:.4f} ms"
              + (f", cupy.sum {rows['cupy.sum']['seconds'] * 1e3:.4f} ms: "
                 f"{run['cupy_over_one_pass']:.2f}x" if "cupy.sum" in rows else ""), flush=True)
    labels = list(runs[0]["seconds"])
    summary = {label: {"median": float(np.median([r["seconds"][label] for r in runs])),
                       "min": min(r["seconds"][label] for r in runs),
                       "max": max(r["seconds"][label] for r in runs)} for label in labels}
    ratios = [r["cupy_over_one_pass"] for r in runs if "cupy_over_one_pass" in r]
    if ratios:
        summary["cupy_over_one_pass"] = {"median": float(np.median(ratios)), "min": min(ratios),
                                         "max": max(ratios)}
    for label, s in summary.items():
        print(f"{label}: median {s['median']:.6g}, {s['min']:.6g} to {s['max']:.6g}")
    if args.out:
        Path(args.out).write_text(json.dumps(
            {"written_by": f"python tools/sum_spread.py {args.device} --processes "
                           f"{args.processes}", "summary": summary, "processes": runs},
            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
