#!/usr/bin/env bash
# Notebook 16's measurements on the reference GPU (issue 46), run from the repository root on the
# device machine after the set-up line of ../shared/tools/gpu-wheels.sh (its default wheels). Writes
#   then-and-now-nvidia-h100.json      the H100: every study of helpers/studies/then_and_now.py,
#                                      the same kernels as CUDA (--cuda) and SGEMM per watt (--power)
#   then-and-now-h100-host-pocl.json   the same studies on the host's CPU through Debian's PoCL
#   nvidia-smi-power.txt               the board's power readings and limits (nvidia-smi -q -d POWER)
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
nvidia-smi -q -d POWER > "$OUT/nvidia-smi-power.txt" 2>&1
python3 tools/then_and_now.py nvidia "$OUT/then-and-now-nvidia-h100.json" --cuda --power \
    --seconds "${SECONDS_EACH:-10}" 2>&1 | tail -20
python3 tools/then_and_now.py "Portable" "$OUT/then-and-now-h100-host-pocl.json" 2>&1 | tail -8
rm -rf "$OUT/cache"
