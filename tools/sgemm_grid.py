"""Every configuration of a small grid of sgemm_param's space timed on one device, beside the
libraries: the exhaustive check on a random or guided tuning run (notebook 14, issue 10).

    python tools/sgemm_grid.py DEVICE N OUT.json [--wide]

The grid is the region where a GPU's best configurations lie (64 or 128 rows and columns a
work-group, float4 reads); --wide adds smaller tiles and narrower reads. Prints the ten fastest."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import studies
from helpers.device import course_context
from helpers.studies import sgemm
from helpers.timing import environment

GRID = {"TM": [64, 128], "TN": [64, 128], "TK": [8, 16, 32], "TX": [8, 16, 32], "TY": [8, 16, 32],
        "VW": [4], "VR": [1, 4], "PF": [0, 1], "LOCAL": [1]}
WIDE = {**GRID, "TM": [32, 64, 128], "TN": [32, 64, 128], "VW": [2, 4], "VR": [1, 2, 4]}


def main(argv: list[str]) -> int:
    name, n, out = argv[0], int(argv[1]), Path(argv[2])
    ctx, queue = course_context(name, quiet=True)
    dev = queue.device
    grid = WIDE if "--wide" in argv else GRID
    configs = sgemm.space(dev, grid)
    items = sgemm.ladder(ctx, queue, n, configs={c.label(): c for c in configs},
                         param_only=True)[1:]   # the first is the tuned or default configuration
    rows = studies.measure(items, queue, repeats=5, progress=f"{len(items)} configurations")
    by_label = {c.label(): c for c in configs}
    for r in rows:
        r["config"] = by_label[r["label"]].to_json()
    rows.sort(key=lambda r: -r["gflop_per_s"])
    libs = sgemm.libraries(ctx, queue, n)
    out.write_text(json.dumps({"written_by": "tools/sgemm_grid.py", "n": n, "grid": grid,
                               "rows": rows, "libraries": libs, "environment": environment(dev)},
                              indent=1))
    for r in rows[:10] + libs:
        print(f"{r['gflop_per_s'] / 1e3:7.2f} TFLOP/s  {'' if r.get('correct', True) else 'WRONG '}"
              f"{r['label']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
