#!/usr/bin/env bash
# Issue 23's lessons on the reference GPU, run from the repository root on the device machine after
# the set-up line of ../shared/tools/gpu-wheels.sh (the wheels of h100_numbers.sh, Oclgrind's
# among them). From a cold course cache:
#   nvidia-h100.json      results/reference/nvidia-h100.json with the lessons' experiments (and fast_math,
#                         which gained half_sin and half_exp) replaced by one bench run (--merge)
#   checks-nvidia-h100.json   results/reference/checks-nvidia-h100.json with the checks of the solutions of
#                         spill_fix and bank_fix (each times the solution and the given kernel)
#   pytest-lessons-nvidia-h100.txt   the lessons' studies, the two exercises and their corpus on the
#                         GPU, and notebook 14's terms cell run with pyopencl's warnings as errors
# EXERCISES="spill_fix" checks only those (the bench is left out when BENCH=0).
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
cp results/reference/nvidia-h100.json results/reference/checks-nvidia-h100.json "$OUT/"
[ "${BENCH:-1}" = 1 ] && python3 -m helpers bench --device nvidia --out "$OUT/nvidia-h100.json" --merge --only \
    work_group_sizes registers banks integer_division product_error images split_work fast_math \
    > "$OUT/bench-lessons.txt" 2>&1
for n in ${EXERCISES:-spill_fix bank_fix}; do
    python3 -m helpers check "$n" --solutions --device nvidia --json > "$OUT/check-$n.json"
done
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
record = json.loads((out / "checks-nvidia-h100.json").read_text())
new = [json.loads(f.read_text()) for f in sorted(out.glob("check-*.json"))]
names = {c["kernel"] for c in new}
record["checks"] = [c for c in record["checks"] if c["kernel"] not in names] + new
if "h100_lessons" not in record["written_by"]:
    record["written_by"] += "; spill_fix and bank_fix: tools/h100_lessons.sh"
(out / "checks-nvidia-h100.json").write_text(json.dumps(record, indent=1) + "\n")
for c in new:
    print(c["kernel"]); print(c["message"])
PY
rm -f "$OUT"/check-*.json
{ echo "# COURSE_DEVICE=nvidia python3 -m pytest -q tests/test_lessons.py, and tests/test_exercises.py tests/test_corpus.py -k 'spill_fix or bank_fix'; $(date -u +%F)"
  COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_lessons.py 2>&1 | tail -5
  COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
      tests/test_exercises.py tests/test_corpus.py -k "spill_fix or bank_fix" 2>&1 | tail -40
  echo "# notebook 14's first cells (the terms table builds a kernel) with warnings as errors"
  python3 -W error::UserWarning - <<'PY' 2>&1 | tail -20
import json
cells = [c for c in json.load(open("notebooks/14-portability-and-tuning.ipynb"))["cells"]
         if c["cell_type"] == "code"]
for cell in cells[:2]:
    exec("".join(cell["source"]))
PY
  echo "exit status ${PIPESTATUS[0]}"; } > "$OUT/pytest-lessons-nvidia-h100.txt"
[ -f "$OUT/bench-lessons.txt" ] && tail -60 "$OUT/bench-lessons.txt"
cat "$OUT/pytest-lessons-nvidia-h100.txt"
rm -rf "$OUT/cache"
