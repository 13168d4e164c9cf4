"""The portability lesson of notebook 14 (Du et al.'s Figs. 11 and 12): the best sgemm_param
configuration each other device found (its tune-*.json in results/reference/) run on this device, beside this
device's own best (its own tune-*.json) and the configuration the bench would run here (tuned in
this machine's cache, or the default), at n = 1024 and 4096.

    python tools/portability.py DEVICE OUT.json

DEVICE is a piece of the device's name; the tune-*.json whose name holds it is this device's own."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from helpers import studies
from helpers.device import course_context
from helpers.paths import RESULTS
from helpers.studies import sgemm
from helpers.timing import environment


def main(argv: list[str]) -> int:
    name, out = argv[0], Path(argv[1])
    ctx, queue = course_context(name, quiet=True)
    dev = queue.device
    configs = {}
    for f in sorted(RESULTS.glob("tune-*.json")):
        record = json.loads(f.read_text())
        cfg = sgemm.Config.from_json(record["best"])
        if name.lower() in f.name.lower():   # this device's own best
            configs[f"best here ({f.stem})"] = cfg
        elif sgemm.valid(cfg, dev.max_work_group_size, dev.local_mem_size):
            configs[f"best on {record['environment']['device']['device']} ({f.stem})"] = cfg
    rows = []
    for n in (1024, 4096):
        items = sgemm.ladder(ctx, queue, n, configs=configs, param_only=True)
        rows += studies.measure(items, queue, repeats=5)
    out.write_text(json.dumps({"written_by": "tools/portability.py", "rows": rows,
                               "environment": environment(dev)}, indent=1))
    for r in rows:
        print(f"{r['n']:>5} {r['gflop_per_s'] / 1e3:7.2f} TFLOP/s  {r['label']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
