#!/usr/bin/env bash
# Issue 57 point 8: warm checks before and after the typed passes, on the GPU host (H100 or H200), in
# one run.
# BEFORE: a tarball of the tree before (git archive REV | gzip > .whl/before.tar.gz, carried in
# .whl); this tree is the after. Each tree's tools/check_times.py times its own checker on the
# five kernels of issue 20 (warm workers, the Oclgrind pass beside the device pass), twice, in
# turn (before, after, before, after), so that a drift of the machine falls on both. Run from the
# repository root on the device machine after the set-up line of ../shared/tools/gpu-wheels.sh.
set -u
OUT=${OUT:?set OUT to a folder for the results}
BEFORE=${BEFORE:-.whl/before.tar.gz}
rm -rf /tmp/before && mkdir -p /tmp/before && tar -xzf "$BEFORE" -C /tmp/before || exit 1
for round in 1 2; do
    for tree in before after; do
        root=$([ $tree = before ] && echo /tmp/before || echo "$PWD")
        (cd "$root" && PYTHONPATH="/tmp/site:$root" python3 tools/check_times.py --device nvidia \
            --repeats ${REPEATS:-5} --out "$OUT/check-times-$tree-$round.json") | tail -7
    done
done
python3 - "$OUT" <<'PY'
import json, statistics, sys
from pathlib import Path
out = Path(sys.argv[1])
runs = {t: [json.loads((out / f"check-times-{t}-{r}.json").read_text()) for r in (1, 2)]
        for t in ("before", "after")}
rows = []
for k, row in enumerate(runs["after"][0]["rows"]):
    cell = {"exercise": row["exercise"], "kernel": row["kernel"], "passed": row["passed"]}
    for t in ("before", "after"):
        medians = [run["rows"][k]["median_s"] for run in runs[t]]
        cell[f"{t}_median_s"] = round(statistics.median(medians), 3)
        cell[f"{t}_rounds_s"] = [round(m, 3) for m in medians]
    rows.append(cell)
record = {"what": "warm check times before and after issue 57's typed passes (the same machine, "
                  "in turn: before, after, before, after), five kernels, the median of 5 a round",
          "written_by": "OUT=... bash tools/gpu_warm_verdicts.sh", "rows": rows,
          "environment": runs["after"][0].get("environment") or runs["after"][0].get("device")}
gpu = (record["environment"] or {}).get("device", {}).get("device", "gpu").lower().replace(" ", "-")
(out / f"check-times-57-before-after-{gpu}.json").write_text(json.dumps(record, indent=1) + "\n")
for c in rows:
    print(f"{c['exercise']:14s} {c['kernel'].split('/')[-1]:16s} before {c['before_median_s']:6.3f} s  after {c['after_median_s']:6.3f} s")
PY
