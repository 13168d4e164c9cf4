#!/usr/bin/env bash
# The checker on the H100 host (issue 20): PART=verdicts runs the unseen-kernel corpus and the
# check's unit tests on the GPU; PART=workers times every exercise's warm check with Oclgrind's
# cases dealt to several workers (the slowest with one too); PART=times times every exercise's warm check
# (results/check-times-all-nvidia-h100.json) and profiles erosion_1d's. Run from the repository
# root on the device machine after the set-up line of ../shared/tools/gpu-wheels.sh (the wheels of
# h100_numbers.sh).
set -u
OUT=${OUT:?set OUT to a folder for the results}
if [ "${PART:-times}" = verdicts ]; then
    { echo "# $(python3 -c 'from helpers.device import choose_device, describe; print(describe(choose_device("nvidia")))'); tree $(git rev-parse --short HEAD 2>/dev/null || echo '?') plus its working changes; $(date -u +%F)"
      echo "# COURSE_DEVICE=nvidia python3 -m pytest -q tests/test_corpus.py tests/test_check_unit.py"
      COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
          tests/test_corpus.py tests/test_check_unit.py 2>&1; } > "$OUT/pytest-verdicts-nvidia-h100.txt"
    tail -15 "$OUT/pytest-verdicts-nvidia-h100.txt"
elif [ "${PART:-times}" = workers ]; then
    # Oclgrind's cases dealt to several workers (3 on its 16 cores, the default there): every
    # exercise, then the slowest ones with one worker (today's before), then the verdicts of one and
    # three workers compared on the GPU and where sgemm_tiled's check goes
    python3 tools/check_times.py --all --device nvidia --repeats ${REPEATS:-3} \
        --out "$OUT/check-times-all-nvidia-h100.json"
    COURSE_OCLGRIND_WORKERS=1 python3 tools/check_times.py --all --device nvidia \
        --repeats ${REPEATS:-3} --only mat_vec_mul sgemm_tiled erosion_2d \
        --out "$OUT/check-times-one-oclgrind-worker-nvidia-h100.json"
    { echo "# COURSE_DEVICE=nvidia python3 -m pytest -q tests/test_check_unit.py tests/test_corpus.py -k 'three_workers or barrier or unit'; $(date -u +%F)"
      COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
          tests/test_check_unit.py tests/test_corpus.py -k 'three_workers or barrier or not corpus' 2>&1; } \
        > "$OUT/pytest-oclgrind-workers-nvidia-h100.txt"
    tail -3 "$OUT/pytest-oclgrind-workers-nvidia-h100.txt"
    python3 -m helpers profile check sgemm_tiled --solutions --device nvidia --repeats 3 --json \
        > "$OUT/check-profile-sgemm-tiled-nvidia-h100.json"
    python3 -c "import json,sys; from helpers.checking.profile import table; print(table(json.load(open(sys.argv[1]))))" \
        "$OUT/check-profile-sgemm-tiled-nvidia-h100.json"
else
    python3 tools/check_times.py --all --device nvidia --out "$OUT/check-times-all-nvidia-h100.json"
    python3 -m helpers profile check erosion_1d --solutions --device nvidia --repeats 3
fi
