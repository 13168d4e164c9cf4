#!/usr/bin/env bash
# Issue 25's frontier on the reference GPU, run from the repository root on the device machine after
# the set-up line of ../shared/tools/gpu-wheels.sh (the wheels of tools/h100_numbers.sh: pyopencl,
# kernel_tuner and Oclgrind), with Debian's CLBlast carried in .clblast/ (../shared/docs/gpu.md).
#   PART=tune   (WIDE=1: larger tiles, up to 128 results per work-item; UNROLLED=1: every
#               configuration of a small neighbourhood, the k-loop unrolled or not)
#               sgemm-frontier[-wide]-nvidia-h100.json: a guided search of sgemm_param's H100 region with
#               the double-buffered tiles (DB) and warp patches (WX) free, what each bought, the
#               PTX's instruction counts; tune-nvidia-h100.json, the record the course ships
#   PART=bench  nvidia-h100.json with notebook 15's experiments and the frontier (the one-pass sum,
#               the histogram, the matrix-vector ladder, SGEMM at the shipped configuration, each
#               beside cupy, cuBLAS and CLBlast) from one bench run merged in; split-job: the GPU
#               and PoCL on the host's 16 cores sharing one job; checks-histogram: its checks
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
export LD_LIBRARY_PATH=$PWD/.clblast${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COURSE_CLBLAST_VERSION="CLBlast 1.5.3, Debian libclblast1 1.5.3-3"
if [ "${PART:-tune}" = tune ]; then
    python3 tools/sgemm_frontier.py --device nvidia --budget "${BUDGET:-300}" ${WIDE:+--wide} \
        ${UNROLLED:+--unrolled} --out "$OUT/sgemm-frontier${WIDE:+-wide}${UNROLLED:+-unrolled}-nvidia-h100.json"
    python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
record = json.loads(next(out.glob("sgemm-frontier*-nvidia-h100.json")).read_text())["tuning"]
record["written_by"] = "python tools/sgemm_frontier.py --device nvidia (its tuning record)"
(out / "tune-nvidia-h100.json").write_text(json.dumps(record, indent=1) + "\n")
PY
else
    cp results/reference/nvidia-h100.json "$OUT/nvidia-h100.json"
    python3 -m helpers bench --device nvidia --only contention histogram sum_end_to_end sum_single_pass \
        matvec_ladder sgemm --out "$OUT/nvidia-h100.json" --merge > "$OUT/bench.txt" 2>&1
    tail -30 "$OUT/bench.txt"
    python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
from helpers import studies
from helpers.device import choose_device
out = Path(sys.argv[1])
devices = [choose_device("nvidia"), choose_device("portable")]
result = studies.split_job(devices)
result["written_by"] = "tools/h100_frontier.sh (PART=bench): studies.split_job([nvidia, pocl])"
(out / "split-job-nvidia-h100-host.json").write_text(json.dumps(result, indent=1) + "\n")
for r in result["rows"]:
    print(f"{r['seconds'] * 1e3:9.2f} ms  {r['label']}  {r.get('shares', '')}")
PY
    python3 -m helpers check histogram --solutions --device nvidia --json > "$OUT/check-histogram.json"
    python3 -m helpers check histogram --kernel tests/right/histogram/global_atomic_only.cl \
        --device nvidia --json > "$OUT/check-histogram-global.json"
    COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
        tests/test_exercises.py tests/test_corpus.py tests/test_studies.py -k histogram \
        > "$OUT/pytest-histogram.txt" 2>&1
    tail -3 "$OUT/pytest-histogram.txt"
fi
rm -rf "$OUT/cache"
