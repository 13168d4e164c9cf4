#!/usr/bin/env bash
# The checker on the H100 host (issue 20): PART=cases times each case of Oclgrind's pass and every
# exercise's warm check with one Oclgrind worker; PART=phases profiles the slowest wrong kernels'
# checks; PART=shares the same checks with WORKERS workers
# (default "2 3"); PART=verdicts runs the unseen-kernel corpus and the
# check's unit tests on the GPU; PART=workers times every exercise's warm check with Oclgrind's
# cases dealt to several workers (the slowest with one too); PART=times times every exercise's warm check
# (results/history/check-times-all-nvidia-h100.json) and profiles erosion_1d's. Run from the repository
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
elif [ "${PART:-times}" = cases ]; then
    # where Oclgrind's time goes on the host's 16 cores: each case of the two slowest checks timed
    # on Oclgrind, per thread count and plugin set; then every exercise's warm check, one worker
    python3 tools/oclgrind_case_times.py sgemm_tiled solutions/sgemm_tiled.cl --threads 1 4 0 \
        --out "$OUT/oclgrind-case-times-sgemm-tiled-h100-host.json"
    python3 tools/oclgrind_case_times.py sgemm_tiled solutions/sgemm_tiled.cl --threads 0 \
        --plugins --repeats 2 --out "$OUT/oclgrind-case-times-sgemm-tiled-plugins-h100-host.json"
    python3 tools/oclgrind_case_times.py mat_vec_mul solutions/mat_vec_mul.cl --threads 1 4 0 \
        --out "$OUT/oclgrind-case-times-mat-vec-mul-h100-host.json"
    COURSE_OCLGRIND_WORKERS=1 python3 tools/check_times.py --all --device nvidia \
        --repeats ${REPEATS:-3} --out "$OUT/check-times-all-one-oclgrind-worker-nvidia-h100.json"
elif [ "${PART:-times}" = shares ]; then
    # Oclgrind's cases dealt to WORKERS workers, each stopped where one worker would have stopped
    for w in ${WORKERS:-2 3}; do
        COURSE_OCLGRIND_WORKERS=$w python3 tools/check_times.py --all --device nvidia \
            --repeats ${REPEATS:-3} --out "$OUT/check-times-all-oclgrind-workers$w-nvidia-h100.json"
    done
elif [ "${PART:-times}" = phases ]; then
    # where the slowest wrong kernels' checks go (two Oclgrind workers), and where their CPU goes
    # (py-spy, following the workers; its wheel in .whl)
    for k in sgemm_tiled/a_transposed mat_vec_mul/barrier_in_branch erosion_1d/borders_skipped \
             histogram/barrier_in_divergent_loop erosion_2d/frame_skipped; do
        COURSE_OCLGRIND_WORKERS=${WORKERS:-2} python3 -m helpers profile check "${k%%/*}" \
            --kernel "tests/wrong/$k.cl" --device nvidia --repeats 3 --json \
            > "$OUT/check-profile-${k//[\/_]/-}-nvidia-h100.json"
        python3 -c "import json,sys; from helpers.checking.profile import table; print(table(json.load(open(sys.argv[1]))))" \
            "$OUT/check-profile-${k//[\/_]/-}-nvidia-h100.json" | head -14
    done
    COURSE_OCLGRIND_WORKERS=${WORKERS:-2} py-spy record --subprocesses --rate 250 --format raw \
        --output "$OUT/py-spy-a-transposed-nvidia-h100.txt" -- python3 -m helpers profile check \
        sgemm_tiled --kernel tests/wrong/sgemm_tiled/a_transposed.cl --device nvidia --repeats 5 \
        > /dev/null 2>&1 || echo "py-spy failed"
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
