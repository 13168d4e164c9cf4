"""Ways to get a one-pass sum's total back to the host, timed end to end in one process beside
cupy.sum: what the last microseconds of notebook 10's sum cost (python tools/sum_round_trip.py
nvidia OUT.json). Each way runs the same kernel (sum_single_pass) and compares the total."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    import numpy as np
    import pyopencl as cl

    from helpers import studies
    from helpers.device import course_context
    from helpers.studies.advanced import FILE, _fill
    from helpers.timing import environment
    ctx, queue = course_context(sys.argv[1], quiet=True)
    n, repeats = 1 << 26, 50
    src_np = studies.sum_ints_data(studies.seeded_rng(0), n)
    total = int(src_np.sum(dtype=np.int64))
    local = studies.fitting_local(queue, 256)
    g = min(_fill(queue.device, local), -(-n // 4 // local) * local)
    mf = cl.mem_flags
    src = studies.to_device(ctx, src_np)
    program = studies.kernel(ctx, FILE, "sum_single_pass").program
    rows = []

    def slots(totals):
        out = []
        for which in (0, 1):
            k = cl.Kernel(program, "sum_single_pass")
            k.set_args(src, totals, np.uint32(n), np.uint32(which), cl.LocalMemory(4 * local))
            out.append(k)
        return out

    def measure(label, once):
        rows.append(studies.wall_row(once, label, total, repeats, 4 * n, n=n))
        print(f"{rows[-1]['seconds'] * 1e3:8.4f} ms  {label}  correct={rows[-1]['correct']}",
              flush=True)

    totals = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(2, np.int32))
    pinned = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 8)
    host, _ = cl.enqueue_map_buffer(queue, pinned, cl.map_flags.READ | cl.map_flags.WRITE, 0,
                                    (2,), np.int32)
    ks, state = slots(totals), {"w": 0}

    def run_and(read):
        def once():
            w = state["w"]
            cl.enqueue_nd_range_kernel(queue, ks[w], (g,), (local,))
            got = read(w)
            state["w"] = 1 - w
            return got
        return once

    def blocking(w):
        cl.enqueue_copy(queue, host[:1], totals, src_offset=4 * w)
        return int(host[0])

    def event_wait(w):
        cl.enqueue_copy(queue, host[:1], totals, src_offset=4 * w, is_blocking=False).wait()
        return int(host[0])

    def finish(w):
        cl.enqueue_copy(queue, host[:1], totals, src_offset=4 * w, is_blocking=False)
        queue.finish()
        return int(host[0])

    def mapped(w):
        arr, _ = cl.enqueue_map_buffer(queue, totals, cl.map_flags.READ, 4 * w, (1,), np.int32)
        got = int(arr[0])
        arr.base.release(queue)
        return got

    for label, read in (("blocking read into pinned memory", blocking),
                        ("non-blocking read, then its event waited", event_wait),
                        ("non-blocking read, then finish", finish),
                        ("map the total, read, unmap", mapped)):
        measure(label, run_and(read))
    cupy = studies.cupy_on(queue.device)
    if cupy is not None:
        x = cupy.asarray(src_np)
        measure(f"cupy.sum (cupy {cupy.__version__})", lambda: int(x.sum(dtype=cupy.int64)))
    Path(sys.argv[2]).write_text(json.dumps({"written_by": "python tools/sum_round_trip.py "
                                             + sys.argv[1], "n": n, "rows": rows,
                                             "environment": environment(queue.device)},
                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
