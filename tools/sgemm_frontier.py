"""How far sgemm_param goes on one device, and what each of its newer parameters buys: a guided
search (kernel_tuner) over the region of the space where the H100's best configurations lie, with
the two parameters of the second level (DB: double-buffered tiles; WX: warps on compact patches)
free; then the best configuration timed again beside itself with each parameter turned off, and
beside the best configuration of the search before them; and counts of the PTX instructions of the
best kernel (shared-memory loads, fused multiply-adds, barriers) read from the program's binary.

    python tools/sgemm_frontier.py --device nvidia --budget 240 \
        --out results/history/sgemm-frontier-<machine>.json

The tuning record is saved for the device (as ``python -m helpers tune`` does), so that a bench run
after it uses the configuration found."""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers

# where the H100's best configurations lie (results/reference/tune-nvidia-h100.json): large tiles, vector
# reads, runs of results, prefetching; the second level's parameters free
REGION = {"TM": [64, 128], "TN": [64, 128], "TK": [8, 16, 32], "TX": [8, 16, 32],
          "TY": [8, 16, 32], "VW": [2, 4], "VR": [2, 4], "PF": [1], "LOCAL": [1], "DB": [0, 1],
          "WX": [0, 4, 8, 16], "KU": [0]}
# --wide: larger tiles and up to 128 results per work-item (the size of the published CUDA kernels'
# per-thread tiles), around the first search's best
WIDE = {"TM": [128, 256], "TN": [128, 256], "TK": [8, 16], "TX": [16, 32], "TY": [8, 16],
        "VW": [2, 4], "VR": [4], "PF": [1], "LOCAL": [1], "DB": [0, 1], "WX": [0, 8, 16], "KU": [0]}
# --unrolled: the first two searches' best neighbourhoods, with the k-loop unrolled or not (their
# PTX kept the loop over a step's TK values: 64 fma per iteration), every configuration timed
UNROLLED = {"TM": [128], "TN": [128, 256], "TK": [8, 16], "TX": [16, 32], "TY": [16], "VW": [2, 4],
            "VR": [4], "PF": [1], "LOCAL": [1], "DB": [0, 1], "WX": [0, 8], "KU": [0, 1]}


def ptx_counts(ctx, config) -> dict:
    """Instruction counts of sgemm_param's PTX (NVIDIA's OpenCL returns PTX as the binary; the
    other kernels of the file are left out)."""
    import pyopencl as cl

    from helpers.kernels import KERNELS
    source = (KERNELS / "studies" / "sgemm.cl").read_text()
    prg = cl.Program(ctx, source).build(options=list(config.options()))
    ptx = prg.get_info(cl.program_info.BINARIES)[0].decode(errors="replace")
    entries = re.split(r"\n(?=\.(?:visible\s+)?\.?entry\b)", ptx)
    ptx = next((e for e in entries if re.match(r"\.(?:visible\s+)?\.?entry\s+sgemm_param\b", e)),
               ptx)
    kinds = {"fma.rn.f32": r"\bfma\.rn\.f32\b", "ld.shared": r"\bld\.shared\.",
             "ld.shared.v4": r"\bld\.shared\.v4\.", "ld.global": r"\bld\.global\.",
             "st.shared": r"\bst\.shared\.", "bar.sync": r"\bbar\.sync\b|\bbarrier\.sync\b",
             "registers (.reg .f32 declared)": r"\.reg \.f32 \s*%f<(\d+)>"}
    out = {}
    for name, pattern in kinds.items():
        if name.startswith("registers"):
            m = re.search(pattern, ptx)
            out[name] = int(m.group(1)) if m else None
        else:
            out[name] = len(re.findall(pattern, ptx))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None)
    p.add_argument("--budget", type=float, default=240.0)
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--strategy", default="genetic_algorithm")
    p.add_argument("--out", required=True)
    p.add_argument("--wide", action="store_true", help="search WIDE (up to 128 results each)")
    p.add_argument("--unrolled", action="store_true", help="time every one of UNROLLED")
    args = p.parse_args()

    from helpers import studies
    from helpers.device import course_context
    from helpers.paths import RESULTS
    from helpers.studies import sgemm, tuning
    from helpers.timing import environment

    region, most = (WIDE, 128) if args.wide else (REGION, sgemm.MAX_RESULTS)
    if args.unrolled:
        region, args.strategy = UNROLLED, "brute_force"
    record = tuning.tune_sgemm(args.device, args.budget, args.size, args.strategy, spec=region,
                               seed=1, progress=False, max_results=most)
    print(tuning.summary(record))
    ctx, queue = course_context(args.device, quiet=True)
    best = sgemm.Config.from_json(record["best"])
    before = sgemm.Config.from_json(json.loads(
        (RESULTS / "tune-nvidia-h100.json").read_text())["best"])
    variants = {"best found": best,
                "best found, one set of tiles (DB=0)": replace(best, DB=0),
                "best found, the work-group's own shape (WX=0)": replace(best, WX=0),
                "best found, neither (DB=0, WX=0)": replace(best, DB=0, WX=0),
                "best found, the k-loop left to the compiler (KU=0)": replace(best, KU=0),
                "the best before DB and WX (results/reference/tune-nvidia-h100.json)": before}
    dev = queue.device
    configs = {}
    for label, c in variants.items():
        if sgemm.valid(c, dev.max_work_group_size, dev.local_mem_size, most) \
                and c not in configs.values():
            configs[f"{label}: {c.label()}"] = c
    items = sgemm.ladder(ctx, queue, args.size, config=best, configs=configs, param_only=True)
    rows = studies.measure(items[1:], queue, repeats=10)   # items[0] is best again, as "given"
    for r in rows:
        print(f"{r['gflop_per_s'] / 1e3:7.1f} TFLOP/s  {r['label']}")
    cublas = sgemm.cublas_sgemm(queue, args.size)
    if cublas:
        rows.append(cublas)
        print(f"{cublas['gflop_per_s'] / 1e3:7.1f} TFLOP/s  {cublas['label']}")
    ptx = {}
    if "NVIDIA" in dev.platform.name.upper():
        for label, c in (("best found", best), ("best before", before)):
            ptx[label] = {"config": c.to_json(), **ptx_counts(ctx, c)}
        print(json.dumps(ptx, indent=1))
    result = {"written_by": "python tools/sgemm_frontier.py " + " ".join(sys.argv[1:]),
              "n": args.size, "region": region, "max_results": most, "tuning": record,
              "rows": rows, "ptx": ptx,
              "environment": environment(dev)}
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
