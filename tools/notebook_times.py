"""How long each notebook takes to run top to bottom on this machine (the solutions on, the
learner's full sizes unless --small): the machine's share of a workshop's schedule.

    python tools/notebook_times.py --out results/history/notebook-times-<machine>.json [--small]
                                   [--grading]
                                   [--only 09 ...] [--merge] [--cells]

Each notebook runs under nbval in its own process; the record holds the seconds per notebook, the
outcome, the device the course chose, whether Oclgrind was there for the checks' second pass, and the
versions. It is rewritten after every notebook, so a run stopped early keeps what it measured.
With ``--cells`` each notebook runs in nbclient instead (as Run All does, in a kernel of its own),
and the record holds every code cell's seconds too: the slowest cell of each notebook is what
docs/install.md quotes against the course's bound of 60 s a cell on a 2-core laptop.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--small", action="store_true", help="COURSE_SMALL=1 (the test sizes)")
    ap.add_argument("--grading", action="store_true",
                    help="COURSE_GRADING=1: the grading profile (small sizes, few repeats)")
    ap.add_argument("--only", nargs="+", metavar="PREFIX", help="only the notebooks whose name "
                                                               "starts with one of these")
    ap.add_argument("--cells", action="store_true", help="every cell's seconds (nbclient)")
    ap.add_argument("--markdown", action="store_true",
                    help="print the --out record's table for docs/install.md and stop")
    ap.add_argument("--merge", action="store_true", help="keep the other notebooks' rows of an "
                                                             "existing --out file")
    args = ap.parse_args()
    if args.markdown:
        print(cell_table(json.loads(Path(args.out).read_text())))
        return 0
    env = {**os.environ, "COURSE_SOLUTIONS": "1", "COURSE_SMALL": "1" if args.small else "0",
           "COURSE_GRADING": "1" if args.grading else "0", "MPLBACKEND": "Agg"}
    device = subprocess.run([sys.executable, "-c", "import helpers; from helpers.device import "
                             "choose_device, describe; print(describe(choose_device()))"],
                            cwd=ROOT, env=env, capture_output=True, text=True).stdout.strip()
    oclgrind = subprocess.run([sys.executable, "-c", "from helpers.device import oclgrind_device; "
                               "print(oclgrind_device() is not None)"],
                              cwd=ROOT, env=env, capture_output=True, text=True).stdout.strip()
    record = {"what": "each notebook top to bottom under nbval, the solutions on, "
                      + ("the grading profile (COURSE_GRADING=1)" if args.grading else
                         "small sizes" if args.small else "full sizes"),
              "rows": [], "device": device, "oclgrind": oclgrind == "True",
              "environment": {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(
                                  timespec="seconds"),
                              "cores": os.cpu_count(), "python": platform.python_version(),
                              "host": platform.platform()}}
    rows = record["rows"]
    if args.merge and Path(args.out).exists():   # the other notebooks' rows, with their own dates
        old = json.loads(Path(args.out).read_text())
        rows.extend(dict(r, date=r.get("date", old["environment"]["date"])) for r in old["rows"])
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if args.only:
        notebooks = [nb for nb in notebooks if nb.stem.startswith(tuple(args.only))]
    for nb in notebooks:
        if args.cells:
            row = cell_times(nb, env)
            rows[:] = [r for r in rows if r["notebook"] != nb.stem]
            rows.append({**row, "date": record["environment"]["date"]})
            rows.sort(key=lambda r: r["notebook"])
            slowest = max(row["cells"], key=lambda c: c["seconds"], default=None)
            print(f"{nb.stem:<28} {row['seconds']:7.1f} s, slowest cell "
                  f"{slowest['seconds'] if slowest else 0:6.1f} s (cell {slowest and slowest['cell']})"
                  f"{'' if row['passed'] else '  FAILED: ' + row['error']}", flush=True)
            Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
            continue
        start = time.perf_counter()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-o", "addopts=", "--nbval-lax", "--nbval-current-env",
                              "--nbval-cell-timeout=1800", str(nb)], cwd=ROOT, env=env,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        last = (run.stdout.strip().splitlines() or [""])[-1]
        rows[:] = [r for r in rows if r["notebook"] != nb.stem]
        rows.append({"notebook": nb.stem, "seconds": round(seconds, 1),
                     "passed": run.returncode == 0, "pytest": last,
                     "date": record["environment"]["date"]})
        rows.sort(key=lambda r: r["notebook"])
        print(f"{nb.stem:<28} {seconds:7.1f} s  {last}", flush=True)
        Path(args.out).write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(r["passed"] for r in rows) else 1


def cell_table(record: dict) -> str:
    """docs/install.md's table of a --cells record: each notebook's slowest cell and its total."""
    lines = ["| notebook | slowest cell, s | the cell | whole notebook, s |", "|---|---|---|---|"]
    for row in record["rows"]:
        slow = max(row["cells"], key=lambda c: c["seconds"])
        lines.append(f"| `{row['notebook']}` | {slow['seconds']:.1f} | `{slow['first_line'][:48]}` "
                     f"| {row['seconds']:.1f} |")
    return "\n".join(lines)


def cell_times(nb: Path, env: dict[str, str]) -> dict:
    """Run ``nb`` top to bottom in nbclient (its own kernel, this environment) and time each code
    cell: {"notebook", "seconds", "passed", "error", "cells": [{"cell", "seconds", "first_line"}]}."""
    import nbclient
    import nbformat
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        book = nbformat.read(nb, as_version=4)
        client = nbclient.NotebookClient(book, timeout=1800, kernel_name="python3",
                                         resources={"metadata": {"path": str(nb.parent)}})
        start, error = time.perf_counter(), ""
        cells: list[dict] = []

        def timed(cell, cell_index, **_):
            cells.append({"cell": cell_index, "started": time.perf_counter(),
                          "first_line": cell.source.split("\n", 1)[0][:80]})

        def ended(cell, cell_index, **_):
            if cells and cells[-1]["cell"] == cell_index:
                cells[-1]["seconds"] = round(time.perf_counter() - cells[-1].pop("started"), 2)

        client.on_cell_execute = timed
        client.on_cell_executed = ended
        try:
            client.execute()
        except Exception as e:   # a cell's error: the record says which
            error = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:300]}"
        for c in cells:
            c.setdefault("seconds", round(time.perf_counter() - c.pop("started", start), 2))
        return {"notebook": nb.stem, "seconds": round(time.perf_counter() - start, 1),
                "passed": not error, "error": error, "cells": cells}
    finally:
        os.environ.clear()
        os.environ.update(saved)


if __name__ == "__main__":
    sys.exit(main())
