#!/usr/bin/env bash
# Issue 54 point 4, "every technique seen paying": the cases where a lesson's technique pays, on
# the reference GPU, run from the repository root on the device machine after the set-up line of
# ../shared/tools/gpu-wheels.sh. From a cold course cache:
#   nvidia-h100.json   results/reference/nvidia-h100.json with erosion_radii merged (notebook 03:
#                      erosion_1d and erosion_1d_local at radius 8, 32 and 128)
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
cp results/reference/nvidia-h100.json "$OUT/"
python3 -m helpers bench --device nvidia --out "$OUT/nvidia-h100.json" --merge --only erosion_radii \
    > "$OUT/bench-payoff.txt" 2>&1
tail -20 "$OUT/bench-payoff.txt"
rm -rf "$OUT/cache"
