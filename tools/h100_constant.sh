#!/usr/bin/env bash
# Notebook 11's constant memory where it may pay (issue 54 point 4), on the reference GPU, run from
# the repository root on the device machine after the set-up line of ../shared/tools/gpu-wheels.sh
# (its default wheels). The 16-tap filter takes 0.096 ms with its taps in __constant or __global;
# the study now also runs a polynomial of degree 128 on one x per work-item, whose coefficients
# (the same for a whole warp at each step) are most of its loads. From a cold course cache, writes
# to $OUT:
#   nvidia-h100.json     results/reference/nvidia-h100.json with constant_memory replaced by one
#                        bench run (python -m helpers bench --merge --only constant_memory): the
#                        filter's two rows again and the polynomial's two
#   bench-constant.txt   the bench's output, and the study's kernels checked against numpy on the GPU
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
# a file another h100_*.sh script left in $OUT is merged into, not replaced
[ -f "$OUT/nvidia-h100.json" ] || cp results/reference/nvidia-h100.json "$OUT/"
{ python3 -m helpers bench --device nvidia --out "$OUT/nvidia-h100.json" --merge --only constant_memory
  echo "exit status $?"
  COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" tests/test_studies.py \
      -k constant_memory 2>&1 | tail -5; } > "$OUT/bench-constant.txt" 2>&1
python3 - "$OUT/nvidia-h100.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["experiments"]["constant_memory"]
print(r["environment"]["date"], r["environment"]["device"]["device"])
for row in r["rows"]:
    print(f"{row['label']:55} {row['seconds'] * 1e3:8.4f} ms  "
          f"({row['min_seconds'] * 1e3:.4f}-{row['max_seconds'] * 1e3:.4f})  correct {row['correct']}")
PY
cat "$OUT/bench-constant.txt"
rm -rf "$OUT/cache"
