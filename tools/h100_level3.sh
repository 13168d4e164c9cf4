#!/usr/bin/env bash
# The level-3 measurements on the reference GPU (issue 12), run from the repository root on the
# device machine after the set-up line of ../shared/tools/gpu-wheels.sh; results land in $OUT.
#   transfers, overlap, hotspot: python -m helpers bench (full sizes)
#   the performance exercises: the check of each solution, and of a correct untiled transpose
#   the suite's tests of them (small sizes, as in CI)
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
python3 -m helpers bench --device nvidia --only transfers overlap hotspot \
    --out "$OUT/nvidia-h100-level3.json" > "$OUT/bench.txt" 2>&1
for n in transpose strided_fix divergence_fix; do
    python3 -m helpers check "$n" --solutions --device nvidia --json > "$OUT/check-$n-solution.json"
done
python3 -m helpers check transpose --kernel tests/slow/transpose/naive.cl --device nvidia --json \
    > "$OUT/check-transpose-naive.json"
COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider --junitxml="$OUT/junit.xml" \
    tests/test_exercises.py tests/test_studies.py tests/test_transfers.py \
    -k "transpose or strided or divergence or wild_loop or performance or speed or hotspot or saxpy or branches or bandwidth or pinned or overlap" \
    > "$OUT/pytest.txt" 2>&1
tail -3 "$OUT/pytest.txt"
cat "$OUT/bench.txt" | tail -20
for f in "$OUT"/check-*.json; do python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[1]); print(d['message'])" "$f"; done
