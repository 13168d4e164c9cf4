"""Ways to get a one-pass sum's total back to the host, timed end to end in one process beside
cupy.sum: what the last microseconds of notebook 15's sum cost (python tools/sum_round_trip.py
nvidia OUT.json). Each way runs the same kernel (sum_single_pass) and compares the total; then the
parts of one round trip by the GPU's clock, and cupy.sum with its default accelerators and with
CUB named."""

from __future__ import annotations

import json
import sys
import time
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

    def run_and(read, q=queue):
        def once():
            w = state["w"]
            cl.enqueue_nd_range_kernel(q, ks[w], (g,), (local,))
            got = read(q, w)
            state["w"] = 1 - w
            return got
        return once

    def blocking(q, w):
        cl.enqueue_copy(q, host[:1], totals, src_offset=4 * w)
        return int(host[0])

    def event_wait(q, w):
        cl.enqueue_copy(q, host[:1], totals, src_offset=4 * w, is_blocking=False).wait()
        return int(host[0])

    def finish(q, w):
        cl.enqueue_copy(q, host[:1], totals, src_offset=4 * w, is_blocking=False)
        q.finish()
        return int(host[0])

    def mapped(q, w):
        arr, _ = cl.enqueue_map_buffer(q, totals, cl.map_flags.READ, 4 * w, (1,), np.int32)
        got = int(arr[0])
        arr.base.release(q)
        return got

    def polled(q, w):
        # the queue flushed, then the read's status asked until it is complete: the host spins
        # instead of sleeping in the driver until the GPU wakes it
        evt = cl.enqueue_copy(q, host[:1], totals, src_offset=4 * w, is_blocking=False)
        q.flush()
        while evt.command_execution_status != cl.command_execution_status.COMPLETE:
            pass
        return int(host[0])

    def flushed(q, w):
        q.flush()  # the kernel handed to the GPU before the read is enqueued
        return finish(q, w)

    for label, read in (("blocking read into pinned memory", blocking),
                        ("non-blocking read, then its event waited", event_wait),
                        ("non-blocking read, then finish", finish),
                        ("flush after the kernel, non-blocking read, then finish", flushed),
                        ("non-blocking read, flush, its status polled", polled),
                        ("map the total, read, unmap", mapped)):
        measure(label, run_and(read))

    # the same, on a queue without profiling (the course's queue records profiling times)
    queue.finish()  # the last unmap on queue done before plain's kernels write the same buffer
    plain = studies.wall_queue(queue)
    for label, read in (("non-blocking read, then finish", finish),
                        ("non-blocking read, flush, its status polled", polled),
                        ("blocking read", blocking)):
        measure(f"{label}, on a queue without profiling", run_and(read, plain))

    # the total in a buffer the host allocates (ALLOC_HOST_PTR), the kernel's atomics into it,
    # then mapped: on a driver that lets the GPU reach pinned host memory, no copy at all
    host_totals = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 8)
    cl.enqueue_fill_buffer(queue, host_totals, np.int32(0), 0, 8)
    hks, hstate = slots(host_totals), {"w": 0}

    def host_mapped():
        w = hstate["w"]
        cl.enqueue_nd_range_kernel(queue, hks[w], (g,), (local,))
        arr, _ = cl.enqueue_map_buffer(queue, host_totals, cl.map_flags.READ, 4 * w, (1,),
                                       np.int32)
        got = int(arr[0])
        arr.base.release(queue)
        hstate["w"] = 1 - w
        return got
    measure("the total in host memory (ALLOC_HOST_PTR), mapped", host_mapped)

    # where the microseconds go: the kernel's and the read's profiling times (device clock)
    parts = {"launch: queued to start": [], "kernel: start to end": [],
             "kernel end to read start": [], "read: start to end": [],
             "host: the two enqueues": [], "host: call to return": []}
    for i in range(repeats + 2):
        w = state["w"]
        t0 = time.perf_counter()
        ke = cl.enqueue_nd_range_kernel(queue, ks[w], (g,), (local,))
        re_ = cl.enqueue_copy(queue, host[:1], totals, src_offset=4 * w, is_blocking=False)
        tm = time.perf_counter()
        queue.finish()
        t1 = time.perf_counter()
        state["w"] = 1 - w
        if i < 2:
            continue
        kp, rp = ke.profile, re_.profile
        parts["launch: queued to start"].append((kp.start - kp.queued) * 1e-9)
        parts["kernel: start to end"].append((kp.end - kp.start) * 1e-9)
        parts["kernel end to read start"].append((rp.start - kp.end) * 1e-9)
        parts["read: start to end"].append((rp.end - rp.start) * 1e-9)
        parts["host: the two enqueues"].append(tm - t0)
        parts["host: call to return"].append(t1 - t0)
    breakdown = {k: float(np.median(v)) for k, v in parts.items()}
    for k, v in breakdown.items():
        print(f"{v * 1e3:8.4f} ms  {k} (median)", flush=True)
    cupy = studies.cupy_on(queue.device)
    if cupy is not None:
        x = cupy.asarray(src_np)
        from cupy._core import _accelerator
        default = list(_accelerator.get_routine_accelerators())
        # the accelerators come back as numbers; cupy names them in ACCELERATOR_* constants
        names = {getattr(_accelerator, a): a.removeprefix("ACCELERATOR_").lower()
                 for a in dir(_accelerator) if a.startswith("ACCELERATOR_")}
        # cupy as a user calls it (its default accelerators), then with CUB asked for by name
        for accel in (default, ["cub"]):
            _accelerator.set_routine_accelerators(accel)
            name = ", ".join(str(names.get(a, a)) for a in accel) or "none"
            measure(f"cupy.sum (cupy {cupy.__version__}, accelerators: {name})",
                    lambda: int(x.sum(dtype=cupy.int64)))
            # cupy's GPU time alone (CUDA events around the call, no read back)
            gpu = studies.cupy_samples(cupy, lambda: x.sum(dtype=cupy.int64), repeats)
            key = f"cupy.sum, accelerators: {name}: CUDA events around the call"
            breakdown[key] = float(np.median(gpu))
            print(f"{breakdown[key] * 1e3:8.4f} ms  {key}", flush=True)
        _accelerator.set_routine_accelerators(default)
    Path(sys.argv[2]).write_text(json.dumps({"written_by": "python tools/sum_round_trip.py "
                                             + sys.argv[1], "n": n, "rows": rows,
                                             "breakdown_medians": breakdown,
                                             "environment": environment(queue.device)},
                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
