#!/usr/bin/env bash
# The checker on the H100 host (issue 20): PART=verdicts runs the unseen-kernel corpus and the
# check's unit tests on the GPU; PART=times times every exercise's warm check
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
else
    python3 tools/check_times.py --all --device nvidia --out "$OUT/check-times-all-nvidia-h100.json"
    python3 -m helpers profile check erosion_1d --solutions --device nvidia --repeats 3
fi
