#!/usr/bin/env bash
# Where the H100 host's slow checks spend their time (issue 20): `python -m helpers profile check`
# of each exercise whose warm check took over 0.5 s there (results/history/check-times-all-nvidia-h100.json),
# with the cases each pass ran, then the same with Oclgrind on one thread and on two, to see whether
# its threads on 16 cores cost more than they give. Run from the repository root on the device
# machine after the set-up line of ../shared/tools/gpu-wheels.sh (the wheels of h100_numbers.sh).
set -u
OUT=${OUT:?set OUT to a folder for the results}
nproc
for n in ${NAMES:-erosion_1d erosion_1d_local query_work_space mat_vec_mul erosion_2d parallel_sum}; do
    python3 -m helpers profile check "$n" --solutions --device nvidia --repeats 3 --json \
        > "$OUT/profile-$n.json" 2> "$OUT/profile-$n.err"
    python3 - "$OUT/profile-$n.json" <<'PY'
import json, sys
from helpers.checking.profile import table
print(table(json.load(open(sys.argv[1]))))
PY
done
for t in 1 2; do
    OCLGRIND_NUM_THREADS=$t python3 -m helpers profile check erosion_1d --solutions --device nvidia \
        --repeats 3 --json > "$OUT/profile-erosion_1d-threads$t.json"
    python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('OCLGRIND_NUM_THREADS=$t', sorted(w['check'] for w in r['warm']))" "$OUT/profile-erosion_1d-threads$t.json"
done
