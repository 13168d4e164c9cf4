#!/usr/bin/env bash
# Notebook 09's measurements on the reference GPU (issue 10), run from the repository root on the
# device machine after the set-up line of ../shared/tools/gpu-wheels.sh (with kernel_tuner and its
# dependencies among the wheels) and with Debian's CLBlast carried in .clblast/
# (../shared/docs/gpu.md, section 4). Results land in $OUT:
#   tune-nvidia-h100.json    the tuning run: every configuration timed, the best one
#   nvidia-h100.json         results/nvidia-h100.json with the sgemm experiment merged in (the
#                            ladder at 1024, the tuned kernel, cuBLAS and CLBlast at 1024/4096/8192)
#   portability-...json      the CPU's best configuration (CPU_BEST, from results/) run here
#   check-sgemm_tiled.json   the exercise's check of the solution, with its speed pass
#   pytest.txt               tests/test_sgemm.py and the exercise's tests on the GPU
set -u
OUT=${OUT:?set OUT to a folder for the results}
BUDGET=${BUDGET:-240}
export COURSE_CACHE=$OUT/cache
export LD_LIBRARY_PATH=$PWD/.clblast${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export COURSE_CLBLAST_VERSION="CLBlast 1.5.3, Debian libclblast1 1.5.3-3"
cp results/nvidia-h100.json "$OUT/nvidia-h100.json"
python3 -m helpers tune sgemm --device nvidia --budget "$BUDGET" --size 4096 --json \
    > "$OUT/tune-nvidia-h100.json" 2> "$OUT/tune.err"
tail -3 "$OUT/tune.err"
python3 -m helpers bench --device nvidia --only sgemm --out "$OUT/nvidia-h100.json" --merge \
    > "$OUT/bench.txt" 2>&1
python3 -m helpers check sgemm_tiled --solutions --device nvidia --json > "$OUT/check-sgemm_tiled.json"
python3 -m helpers check sgemm_tiled --kernel tests/slow/sgemm_tiled/plain.cl --device nvidia \
    --json > "$OUT/check-sgemm_tiled-plain.json"
# the portability lesson: the best configuration of each CPU recorded in results/ run on the H100
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
import pyopencl as cl
from helpers import sgemm, studies
from helpers.device import match_devices
from helpers.timing import environment
out = Path(sys.argv[1])
dev = match_devices("nvidia")[0]
ctx = cl.Context([dev])
queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
configs = {}
for f in sorted(Path("results").glob("tune-*.json")):
    record = json.loads(f.read_text())
    if "nvidia" in f.name:
        continue
    cfg = sgemm.Config.from_json(record["best"])
    if sgemm.valid(cfg, dev.max_work_group_size, dev.local_mem_size):
        configs[f"best on {record['environment']['device']['device']} ({f.stem})"] = cfg
rows = []
for n in (1024, 4096):
    items = [p for p in sgemm.ladder(ctx, queue, n, configs=configs) if p.kernel == "sgemm_param"]
    rows += studies.measure(items, queue, repeats=5)
(out / "portability-nvidia-h100.json").write_text(json.dumps(
    {"written_by": "tools/h100_sgemm.sh", "rows": rows, "environment": environment(dev)}, indent=1))
for r in rows:
    print(f"{r['n']:>5} {r['gflop_per_s'] / 1e3:7.2f} TFLOP/s  {r['label']}")
PY
COURSE_DEVICE=nvidia python3 -m pytest -q -p no:cacheprovider -o addopts="" \
    tests/test_sgemm.py > "$OUT/pytest.txt" 2>&1
tail -3 "$OUT/pytest.txt"
rm -rf "$OUT/cache"
grep -E "sgemm|SGEMM|cuBLAS|CLBlast" "$OUT/bench.txt" | tail -30
