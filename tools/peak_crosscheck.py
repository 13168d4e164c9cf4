"""An independent check of the course's compute peak (issue "Every number true"): in one process,
the course's yardstick (``bench.measure_peaks``) and a kernel written apart from it, eight
independent ``fma`` chains per work-item held in a private array, at float8 and float16. The course's
peak should reach at least 80% of the better of the two on a CPU runtime, and stay at the
datasheet's level on a GPU.

    python tools/peak_crosscheck.py DEVICE OUT.json
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import pyopencl as cl

from helpers import bench
from helpers.device import course_context
from helpers.timing import environment, event_seconds

SOURCE = """
__kernel void chains(__global float *out, const float a, const float b, const int n)
{
    VEC acc[8];
    #pragma unroll
    for (int k = 0; k < 8; ++k)
        acc[k] = (VEC)((float)get_global_id(0) * 1e-6f + 0.1f * k);
    for (int i = 0; i < n; ++i) {
        #pragma unroll
        for (int k = 0; k < 8; ++k)
            acc[k] = fma(acc[k], (VEC)(a), (VEC)(b));
    }
    VEC s = acc[0];
    #pragma unroll
    for (int k = 1; k < 8; ++k)
        s += acc[k];
    out[get_global_id(0)] = dot(s.lo.lo, (float4)(1.0f)) + dot(s.lo.hi, (float4)(1.0f))
#if WIDTH == 16
                          + dot(s.hi.lo, (float4)(1.0f)) + dot(s.hi.hi, (float4)(1.0f))
#endif
                          ;
}
"""
SOURCE_8 = SOURCE.replace("s.lo.lo", "s.lo").replace("dot(s.lo.hi, (float4)(1.0f))",
                                                     "dot(s.hi, (float4)(1.0f))")


def chains_gflop_per_s(ctx, queue, width: int) -> float:
    dev = queue.device
    src = SOURCE if width == 16 else SOURCE_8
    prg = cl.Program(ctx, src).build(options=[f"-DVEC=float{width}", f"-DWIDTH={width}"])
    items = dev.max_compute_units * 256 * 16
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, items * 4)
    knl = prg.chains

    def run(n: int) -> float:
        return event_seconds(knl(queue, (items,), (256,), out, np.float32(0.999), np.float32(1e-3),
                                 np.int32(n)))

    n = 16
    run(n)
    while run(n) < 0.02 and n < (1 << 20):
        n *= 4
    t = float(np.median([run(n) for _ in range(5)]))
    return items * n * 8 * 2 * width / t / 1e9


def main(device: str, out_path: str) -> int:
    ctx, queue = course_context(device, quiet=True)
    started = time.perf_counter()
    course = bench.measure_peaks(ctx, queue, progress=False, with_references=True)
    apart = {w: chains_gflop_per_s(ctx, queue, w) for w in (8, 16)}
    best_apart = max(apart.values())
    record = {
        "what": "the course's compute peak beside a kernel written apart from it (8 fma chains per "
                "work-item in a private array), in one process",
        "course_peak_gflop_per_s": course["compute_gflop_per_s"],
        "course_per_width": course["gflop_per_s"], "one_chain_per_width": course["chain_gflop_per_s"],
        "independent_chains_gflop_per_s": apart,
        "course_share_of_independent": course["compute_gflop_per_s"] / best_apart,
        "references": course["references"], "seconds": time.perf_counter() - started,
        "written_by": "python tools/peak_crosscheck.py " + " ".join(sys.argv[1:]),
        "environment": environment(queue.device),
    }
    with open(out_path, "w") as f:
        json.dump(record, f, indent=1)
    print(f"{queue.device.name.strip()}: course peak {course['compute_gflop_per_s']:.1f} GFLOP/s, "
          f"8 fma chains float8 {apart[8]:.1f}, float16 {apart[16]:.1f} "
          f"({100 * record['course_share_of_independent']:.0f}%)")
    for r in course["references"]:
        print("  ", r["label"], r.get("gflop_per_s") or r.get("bandwidth_gb_per_s"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
