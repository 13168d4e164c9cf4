#!/usr/bin/env bash
# Issue 41 point 8 on the reference GPU, run from the repository root on the device machine after the
# set-up line of ../shared/tools/gpu-wheels.sh (with kernel_tuner and its dependencies among the
# wheels). Results land in $OUT:
#   budgets-nvidia-h100.json   tools/budget_times.py: notebook 14's tuning cell (90 s at n = 512) and
#                              notebook 01's peaks, timed whole, with their bars, from a cold cache
#   pytest-budgets-nvidia-h100.txt   the budget and bar tests of tests/test_sgemm.py and test_peaks.py
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
python3 tools/budget_times.py --device nvidia --out "$OUT/budgets-nvidia-h100.json"
python3 -m pytest -q -p no:cacheprovider -o addopts="" -k "budget or bar" tests/test_sgemm.py tests/test_peaks.py \
    > "$OUT/pytest-budgets-nvidia-h100.txt" 2>&1
tail -3 "$OUT/pytest-budgets-nvidia-h100.txt"
rm -rf "$OUT/cache"
