#!/usr/bin/env bash
# The level-3 measurements on the reference GPU (issue 12), run from the repository root on the
# device machine after the set-up line of ../shared/tools/gpu-wheels.sh; results land in $OUT:
#   nvidia-h100.json          results/reference/nvidia-h100.json with transfers, overlap and hotspot (re)measured
#   checks-nvidia-h100.json   the check of each performance exercise's solution, and of a correct
#                             untiled transpose, with their timings (python -m helpers check --json)
#   pytest.txt, junit.xml     the suite's tests of the new kernels on the GPU (small sizes, as in CI)
set -u
OUT=${OUT:?set OUT to a folder for the results}
export COURSE_CACHE=$OUT/cache
cp results/reference/nvidia-h100.json "$OUT/nvidia-h100.json"
python3 -m helpers bench --device nvidia --only transfers overlap hotspot \
    --out "$OUT/nvidia-h100.json" --merge > "$OUT/bench.txt" 2>&1
for n in transpose strided_fix divergence_fix; do
    python3 -m helpers check "$n" --solutions --device nvidia --json > "$OUT/check-$n.json"
done
python3 -m helpers check transpose --kernel tests/slow/transpose/naive.cl --device nvidia --json \
    > "$OUT/check-transpose-naive.json"
python3 -m helpers check divergence_fix --kernel tests/slow/divergence_fix/table.cl \
    --device nvidia --json > "$OUT/check-divergence_fix-table.json"
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
checks = [json.loads(f.read_text()) for f in sorted(out.glob("check-*.json"))]
(out / "checks-nvidia-h100.json").write_text(json.dumps(
    {"written_by": "tools/h100_level3.sh: python -m helpers check NAME --json", "checks": checks},
    indent=1) + "\n")
for c in checks:
    print(c["kernel"]); print(c["message"])
PY
rm -f "$OUT"/check-*.json; rm -rf "$OUT/cache"
# how this driver lays out a __constant float3 table (sizeof(float3) is 16 bytes in OpenCL C)
python3 - "$OUT" <<'PY'
import json, sys
import numpy as np
import pyopencl as cl
from helpers.bench import environment
from helpers.device import match_devices
src = """
__constant float3 T3[2] = {(float3)(1.0f, 2.0f, 3.0f), (float3)(4.0f, 5.0f, 6.0f)};
__constant float4 T4[2] = {(float4)(1.0f, 2.0f, 3.0f, 0.0f), (float4)(4.0f, 5.0f, 6.0f, 0.0f)};
__kernel void probe(__global float *out, const uint k)
{
    const float3 a = T3[k];
    const float4 b = T4[k];
    out[0] = a.x; out[1] = a.y; out[2] = a.z;
    out[3] = b.x; out[4] = b.y; out[5] = b.z;
    out[6] = (float)sizeof(float3);
}
"""
dev = match_devices("nvidia")[0]
ctx = cl.Context([dev]); q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, src).build()
out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 7 * 4)
rows = []
for k in (0, 1):
    prg.probe(q, (1,), (1,), out, np.uint32(k))
    got = np.empty(7, np.float32); cl.enqueue_copy(q, got, out)
    rows.append({"index": k, "float3_table": got[:3].tolist(), "float4_table": got[3:6].tolist(),
                 "sizeof_float3": float(got[6])})
record = {"what": "__constant float3 T3[2] = {(1,2,3), (4,5,6)}: T3[k] read in a kernel",
          "source": src, "rows": rows, "environment": environment(dev)}
open(sys.argv[1] + "/float3-constant-nvidia-h100.json", "w").write(json.dumps(record, indent=1))
print(json.dumps(rows))
PY
COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
    --junitxml="$OUT/junit.xml" tests/test_exercises.py tests/test_studies.py tests/test_transfers.py \
    -k "transpose or strided or divergence or wild_loop or performance or speed or hotspot or saxpy or branches or bandwidth or pinned or overlap or lookup" \
    > "$OUT/pytest.txt" 2>&1
tail -3 "$OUT/pytest.txt"
tail -25 "$OUT/bench.txt"
