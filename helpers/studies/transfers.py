"""Moving data between host and device, and hiding the moves behind kernels (notebook 07).

The whitepaper's first recommendation is host memory allocated with ``CL_MEM_ALLOC_HOST_PTR``:
pinned (page-locked) by the driver, it crosses PCIe faster and is the only memory a copy can overlap
a kernel from. :func:`bandwidth` measures it against ordinary numpy memory, and against zero-copy
mapping where the device shares the host's memory; :func:`overlap` runs a sequence of chunks
(copy in, process, copy out) in order on one queue and spread over two queues, and keeps every
command's profiling times for a timeline.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pyopencl as cl

from ..paths import HELPERS_CL
from ..timing import environment, event_seconds, small_sizes

KINDS = ("numpy (pageable)", "pinned (ALLOC_HOST_PTR)", "mapped (zero-copy)")


def shares_host_memory(dev: cl.Device) -> bool:
    """A CPU device, or a GPU that says it shares the host's memory (an integrated one)."""
    if dev.type & cl.device_type.CPU:
        return True
    try:
        return bool(dev.host_unified_memory)
    except cl.Error:
        return False


def _median(values: list[float]) -> float:
    return float(np.median(values))


def _pinned(ctx: cl.Context, queue: cl.CommandQueue, nbytes: int):
    """A pinned host buffer and a numpy view of it (mapped once, kept mapped)."""
    mf = cl.mem_flags
    buf = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, nbytes)
    view, _ = cl.enqueue_map_buffer(queue, buf, cl.map_flags.READ | cl.map_flags.WRITE, 0,
                                    (nbytes // 4,), np.float32)
    return buf, view


def _timed_copies(queue: cl.CommandQueue, dev_g: cl.Buffer, host: np.ndarray, repeats: int
                  ) -> tuple[float, float]:
    """Median seconds of a host-to-device and a device-to-host copy (profiling events)."""
    up, down = [], []
    for _ in range(repeats + 1):  # the first of each is a warm-up
        up.append(event_seconds(cl.enqueue_copy(queue, dev_g, host, is_blocking=True)))
        down.append(event_seconds(cl.enqueue_copy(queue, host, dev_g, is_blocking=True)))
    return _median(up[1:]), _median(down[1:])


def _timed_maps(queue: cl.CommandQueue, buf: cl.Buffer, floats: int, repeats: int
                ) -> tuple[float, float]:
    """Zero-copy: seconds to make the buffer readable by the host (map for reading, then unmap)
    and writable by it (map for writing), by the wall clock: no bytes need to move."""
    up, down = [], []
    for _ in range(repeats + 1):
        for flags, into in ((cl.map_flags.WRITE_INVALIDATE_REGION, up), (cl.map_flags.READ, down)):
            start = time.perf_counter()
            view, ev = cl.enqueue_map_buffer(queue, buf, flags, 0, (floats,), np.float32,
                                             is_blocking=True)
            view.base.release(queue).wait()
            into.append(time.perf_counter() - start)
    return _median(up[1:]), _median(down[1:])


def bandwidth(ctx: cl.Context, queue: cl.CommandQueue, sizes: list[int] | None = None,
              repeats: int = 5) -> dict:
    """Host-to-device and device-to-host GB/s against the size of the transfer, for each kind of
    host memory (:data:`KINDS`; zero-copy only where the device shares the host's memory)."""
    dev = queue.device
    if sizes is None:
        top = 26 if not small_sizes() else 22
        sizes = [1 << k for k in range(12, top + 1, 2)]  # 4 KiB .. 64 MiB (4 MiB small)
    sizes = [s for s in sizes if s <= dev.max_mem_alloc_size]
    mf = cl.mem_flags
    rows = []
    zero_copy = shares_host_memory(dev)
    for nbytes in sizes:
        floats = nbytes // 4
        dev_g = cl.Buffer(ctx, mf.READ_WRITE, nbytes)
        plain = np.random.default_rng(0).random(floats, dtype=np.float32)
        pinned_g, pinned = _pinned(ctx, queue, nbytes)
        pinned[:] = plain
        timings = {KINDS[0]: _timed_copies(queue, dev_g, plain, repeats),
                   KINDS[1]: _timed_copies(queue, dev_g, pinned, repeats)}
        if zero_copy:
            shared_g = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, nbytes)
            timings[KINDS[2]] = _timed_maps(queue, shared_g, floats, repeats)
        pinned.base.release(queue).wait()
        for kind, (up, down) in timings.items():
            rows.append({"kind": kind, "bytes": nbytes, "h2d_seconds": up, "d2h_seconds": down,
                         "h2d_gb_per_s": nbytes / up / 1e9 if up else math.inf,
                         "d2h_gb_per_s": nbytes / down / 1e9 if down else math.inf})
    return {"experiment": "transfers", "rows": rows, "repeats": repeats,
            "zero_copy": zero_copy, "environment": environment(dev)}


POLISH_SOURCE = HELPERS_CL / "transfers.cl"


def _polish_reference(x: np.ndarray, rounds: int) -> np.ndarray:
    v = x.copy()
    for _ in range(rounds):
        v = (np.float32(0.999) * v + np.float32(0.001)).astype(np.float32)
    return v


def overlap(ctx: cl.Context, queue: cl.CommandQueue, chunks: int = 8,
            chunk_bytes: int | None = None, rounds: int | None = None) -> dict:
    """Copy in, process and copy out ``chunks`` chunks from pinned host memory: once in order on
    one queue, once spread over two queues (chunk i on queue i % 2, non-blocking copies), so that
    one queue's copies may run while the other's kernel does. Each command's profiling times are
    kept (seconds from the first command's start) for :func:`helpers.plots.timeline`."""
    from ..kernels import build_file

    dev = queue.device
    if chunk_bytes is None:
        chunk_bytes = (1 << 20) if small_sizes() else (16 << 20)
    if rounds is None:
        rounds = 16 if small_sizes() else 64
    floats = chunk_bytes // 4
    knl = cl.Kernel(build_file(ctx, POLISH_SOURCE, reuse=True), "polish")
    props = cl.command_queue_properties.PROFILING_ENABLE
    queues = [queue, cl.CommandQueue(ctx, dev, properties=props)]
    mf = cl.mem_flags
    host_g, host = _pinned(ctx, queue, chunks * chunk_bytes)
    data = np.random.default_rng(1).uniform(-1, 1, chunks * floats).astype(np.float32)
    want = _polish_reference(data, rounds)
    dev_g = [cl.Buffer(ctx, mf.READ_WRITE, chunk_bytes) for _ in range(2)]
    local = min(256, dev.max_work_group_size)
    glob = -(-floats // local) * local

    def run(spread: bool) -> dict:
        host[:] = data
        for q in queues:
            q.finish()
        steps = []
        wall = time.perf_counter()
        for c in range(chunks):
            q = queues[c % 2] if spread else queues[0]
            buf = dev_g[c % 2]
            part = host[c * floats:(c + 1) * floats]
            up = cl.enqueue_copy(q, buf, part, is_blocking=False)
            k = knl(q, (glob,), (local,), buf, np.uint32(floats), np.uint32(rounds))
            down = cl.enqueue_copy(q, part, buf, is_blocking=False)
            steps.append((c, q is queues[1], up, k, down))
        for q in queues:
            q.finish()
        wall = time.perf_counter() - wall
        correct = bool(np.allclose(host, want, rtol=1e-5, atol=1e-6))
        start = min(ev.profile.start for _, _, *evs in steps for ev in evs)
        commands = []
        for c, second, *evs in steps:
            for what, ev in zip(("copy in", "kernel", "copy out"), evs, strict=True):
                commands.append({"chunk": c, "queue": int(second), "what": what,
                                 "start": (ev.profile.start - start) * 1e-9,
                                 "end": (ev.profile.end - start) * 1e-9})
        span = max(x["end"] for x in commands)
        return {"label": "two queues" if spread else "one queue, in order", "correct": correct,
                "seconds": span, "wall_seconds": wall, "commands": commands}

    run(False)  # warm-up: the first launch builds and allocates
    results = [run(False), run(True)]
    host.base.release(queue).wait()
    del host_g
    return {"experiment": "overlap", "chunks": chunks, "chunk_bytes": chunk_bytes,
            "rounds": rounds, "runs": results, "environment": environment(dev)}
