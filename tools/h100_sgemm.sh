#!/usr/bin/env bash
# Notebook 14's measurements on the reference GPU (issue 10), run from the repository root on the
# device machine after the set-up line of ../shared/tools/gpu-wheels.sh (with kernel_tuner and its
# dependencies among the wheels) and with Debian's CLBlast carried in .clblast/
# (../shared/docs/gpu.md, section 4). Results land in $OUT:
#   tune-nvidia-h100.json    the tuning run: every configuration timed, the best one
#   sgemm-grid-...json       with GRID=1: every configuration of tools/sgemm_grid.py's grid at 4096
#   nvidia-h100.json         results/reference/nvidia-h100.json with the sgemm experiment merged in (the
#                            ladder at 1024, the tuned kernel, cuBLAS and CLBlast at 1024/4096/8192)
#   portability-...json      every other device's best configuration (results/reference/tune-*.json) run here
#   check-sgemm_tiled.json   the exercise's check of the solution, with its speed pass
#   pytest.txt               tests/test_sgemm.py and the exercise's tests on the GPU
set -u
OUT=${OUT:?set OUT to a folder for the results}
BUDGET=${BUDGET:-300}
# a guided search: the space has about 6700 configurations and a few dozen beat CLBlast, too few
# for a random sample of a few hundred to find reliably (tools/sgemm_grid.py measured the region)
STRATEGY=${STRATEGY:-genetic_algorithm}
export COURSE_CACHE=$OUT/cache
export LD_LIBRARY_PATH=$PWD/.clblast${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COURSE_CLBLAST_VERSION="CLBlast 1.5.3, Debian libclblast1 1.5.3-3"
cp results/reference/nvidia-h100.json "$OUT/nvidia-h100.json"
if [ "${GRID:-0}" = 1 ]; then
    python3 tools/sgemm_grid.py nvidia 4096 "$OUT/sgemm-grid-nvidia-h100-4096.json" 2>/dev/null
fi
python3 -m helpers tune sgemm --device nvidia --budget "$BUDGET" --size 4096 \
    --strategy "$STRATEGY" --json > "$OUT/tune-nvidia-h100.json" 2> "$OUT/tune.err"
tail -3 "$OUT/tune.err"
python3 -m helpers bench --device nvidia --only sgemm --out "$OUT/nvidia-h100.json" --merge \
    > "$OUT/bench.txt" 2>&1
python3 -m helpers check sgemm_tiled --solutions --device nvidia --json > "$OUT/check-sgemm_tiled.json"
python3 -m helpers check sgemm_tiled --kernel tests/slow/sgemm_tiled/plain.cl --device nvidia \
    --json > "$OUT/check-sgemm_tiled-plain.json"
# the portability lesson: the best configuration of each CPU recorded in results/ run on the H100
if [ "${PORTABILITY:-1}" = 1 ]; then
    python3 tools/portability.py nvidia "$OUT/portability-nvidia-h100.json"
fi
COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
    tests/test_sgemm.py > "$OUT/pytest.txt" 2>&1
tail -3 "$OUT/pytest.txt"
rm -rf "$OUT/cache"
grep -E "sgemm|SGEMM|cuBLAS|CLBlast" "$OUT/bench.txt" | tail -30
