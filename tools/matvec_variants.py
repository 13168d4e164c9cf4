"""The course's matrix-vector kernels at the whitepaper's size with every work-group size, slice
width, rows per slice and work-groups per compute unit the study allows, in one process: where the
last few percent to the copy bandwidth are (python tools/matvec_variants.py nvidia OUT.json)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    from helpers import studies
    from helpers.device import course_context
    from helpers.timing import environment
    ctx, queue = course_context(sys.argv[1], quiet=True)
    rows = []
    for local in (128, 256, 512, 1024):
        if local > queue.device.max_work_group_size:
            continue
        prepared = [p for p in studies.matvec(ctx, queue, width=1100, height=60989, local=local,
                                              slices=(16, 32, 64), groups="filled",
                                              rows_at_once=(2, 4), per_unit=(8, 16, 32))
                    if p.params.get("listing") == 0]
        for r in studies.measure(prepared, queue, repeats=20):
            rows.append(r)
            print(f"{r['seconds'] * 1e3:8.4f} ms  local {local:5}  {r['label']}", flush=True)
    best = min(rows, key=lambda r: r["seconds"])
    print(f"best: {best['seconds'] * 1e3:.4f} ms, {best['label']}, local {best['local_size']}")
    Path(sys.argv[2]).write_text(json.dumps({"written_by": "python tools/matvec_variants.py "
                                             + sys.argv[1], "rows": rows,
                                             "environment": environment(queue.device)},
                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
