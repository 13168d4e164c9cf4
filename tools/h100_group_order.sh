#!/usr/bin/env bash
# Notebook 03's work-group start order on the reference GPU (issue 52 point 5: a demo of what OpenCL
# does not promise shows it not holding), run from the repository root on the device machine after
# the set-up line of ../shared/tools/gpu-wheels.sh (its default wheels). Writes to $OUT:
#   nvidia-h100.json   results/reference/nvidia-h100.json with the group_order experiment added
#                      (python -m helpers bench --merge --only group_order)
set -eu
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
cp results/reference/nvidia-h100.json "$OUT/"
python3 -m helpers bench --device nvidia --out "$OUT/nvidia-h100.json" --merge --only group_order
python3 - "$OUT/nvidia-h100.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["experiments"]["group_order"]
print(r["groups"], "groups; in order:", r["in_order"], "largest distance:", r["largest_distance"])
PY
rm -rf "$OUT/cache"
