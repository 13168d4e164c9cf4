#!/usr/bin/env bash
# Issue 44 point 6, the truth the warp model is checked against: Nsight Compute's counters for CUDA
# twins of the course's kernels (tools/cuda_twins.py: the exercises' solutions and starting kernels,
# the studies of coalescing, banks, divergence and registers, the warp model's test kernels), run
# from the repository root on the reference GPU machine. It needs cupy and ncu only (no pyopencl,
# no wheels): each twin is launched and checked against numpy once without the profiler, then once
# more under ncu, whose k-th profiled kernel is the k-th launch. Into $OUT:
#   warp-truth-nvidia-h100.json   every launch (sizes, work-groups, check) with its counters, the
#                                 versions (driver, CUDA, NVRTC, cupy, ncu) and the date: copied to
#                                 results/history/warp-truth-nvidia-h100.json
#   ncu-raw.csv, run.json, twins-plain.json, twins-profiled.json   what it was made of
#                                 (python tools/cuda_twins.py assemble DIR --out ... remakes it)
#   warp-truth-log.txt            the output, the short table last
# ONLY=REGEX keeps the launches whose label matches; NCU=PATH another ncu; NCU_TIMEOUT=seconds.
set -u
OUT=${OUT:?set OUT to a folder for the results}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
WORK=$(mktemp -d)
export PYTHONUNBUFFERED=1
python3 tools/cuda_twins.py measure --out "$WORK/warp-truth-nvidia-h100.json" --ncu "$NCU" \
    ${ONLY:+--only "$ONLY"} 2>&1 | tee "$OUT/warp-truth-log.txt"
status=${PIPESTATUS[0]}
for f in warp-truth-nvidia-h100.json ncu-raw.csv run.json twins-plain.json twins-profiled.json; do
    [ -f "$WORK/$f" ] && cp "$WORK/$f" "$OUT/"
done
[ -f "$WORK/ncu-query-metrics.txt" ] && gzip -c "$WORK/ncu-query-metrics.txt" > "$OUT/ncu-query-metrics.txt.gz"
rm -rf "$WORK"
exit "$status"
