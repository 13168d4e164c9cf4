"""Notebook 16: the sources' lessons that depend on the hardware of their time, run on the device of
today (kernels/studies/then_and_now.cl). Each function checks its kernels' results against numpy
before it times them, and returns plain rows (the reference GPU's are in
``results/reference/then-and-now-nvidia-h100.json``, written by ``tools/then_and_now.py``):

- :func:`scalar_and_vector`: the same multiply-adds as one float per work-item or a float4 per
  work-item (the whitepaper's scalar architecture, 000 line 265);
- :func:`concurrent_kernels`: small kernels one after another on one queue, or each on its own
  queue at once (000 line 56: one kernel at a time; 004 line 152: several on Fermi);
- :func:`texture_path`: C = A B reading A and B from buffers or from images, and what copying
  them into images costs (004 lines 166-178);
- :func:`barrier_cost`: a barrier every few instructions at each work-group size (001 line 602);
- :func:`subgroups`: a work-group's sum by a tree in local memory or by sub-group functions, where
  the device has them.
"""

from __future__ import annotations

import time

import numpy as np
import pyopencl as cl

from ..timing import environment, small_sizes, time_kernel
from .harness import LeftOutKernel, expect_close, fitting_local, kernel, read_back, seeded_rng, to_device

mf = cl.mem_flags
FILE = "then_and_now.cl"
TILE = 16


def _ms(seconds: float) -> float:
    """Milliseconds to 4 significant digits (a fast CPU's launch of the small size takes about a
    microsecond, which 4 decimals of a millisecond cut by a few per cent)."""
    return float(f"{seconds * 1e3:.4g}")


def _small(queue: cl.CommandQueue) -> bool:
    """Small sizes: the switch is on (CI, slow machines), or the device is no GPU (a laptop's CPU
    runs the notebook's cells in seconds at these sizes)."""
    return small_sizes() or not queue.device.type & cl.device_type.GPU


def _usable(knl) -> cl.Kernel:
    if isinstance(knl, LeftOutKernel):
        raise RuntimeError(f"{knl.function_name} did not build here: {knl.error}")
    return knl


def scalar_and_vector(ctx: cl.Context, queue: cl.CommandQueue, items: int | None = None,
                      rounds: int | None = None) -> list[dict]:
    """GFLOP/s of ``items`` work-items of independent multiply-add chains, one float each, against
    ``items / 4`` work-items of a float4 each: the same operations either way."""
    items = items or (1 << 14 if _small(queue) else 1 << 20)
    rounds = rounds or (64 if _small(queue) else 1024)
    flops = 2.0 * 4 * rounds * items
    # every lane starts at ((lane & 7) / 8) and runs a <- a b + c, 4 rounds a loop
    b, c, steps = np.float64(0.999), np.float64(0.001), 4 * rounds
    start = (np.arange(items) & 7) * 0.125
    want = start * b ** steps + c * (1 - b ** steps) / (1 - b)
    rows = []
    for name, work_items in (("fma_scalar", items), ("fma_vector", items // 4)):
        knl = _usable(kernel(ctx, FILE, name))
        out = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * items)
        cl.enqueue_fill_buffer(queue, out, np.float32(np.nan), 0, 4 * items)

        def launch(knl=knl, out=out, work_items=work_items):
            return knl(queue, (work_items,), None, out, np.uint32(rounds))
        launch().wait()
        expect_close(read_back(queue, out, items), want, name, rtol=1e-3, atol=1e-4)
        t = time_kernel(launch)
        rows.append({"kernel": name, "work_items": work_items,
                     "values_per_work_item": 1 if name == "fma_scalar" else 4,
                     "ms": _ms(t.median), "gflop_per_s": float(f"{flops / t.median / 1e9:.4g}")})
    return rows


def _spin_reference(local: int, rounds: int) -> np.ndarray:
    """``spin``'s values after ``rounds`` steps of a <- 0.9999 a + 0.0001, in closed form (float32
    rounding moves them by less than 5e-3 even after millions of steps: they converge to 1)."""
    b = 0.9999 ** rounds
    return np.arange(local, dtype=np.float64) * 0.001 * b + (1 - b)


def concurrent_kernels(ctx: cl.Context, queue: cl.CommandQueue, kernels: int = 8, local: int = 64,
                       target_seconds: float | None = None, repeats: int = 5) -> dict:
    """``kernels`` launches of one work-group each (``spin``, a chain of dependent arithmetic): on
    one in-order queue they run one after another; each on a queue of its own, a device that runs
    kernels concurrently finishes them in about the time of one. Wall times, host-measured, after
    a warm-up; ``rounds`` is set so that one launch takes about ``target_seconds``."""
    target_seconds = target_seconds or (0.002 if _small(queue) else 0.01)
    local = fitting_local(queue, local)
    knl = _usable(kernel(ctx, FILE, "spin"))
    outs = [cl.Buffer(ctx, mf.WRITE_ONLY, 4 * local) for _ in range(kernels)]
    rounds = 1 << 10
    while True:
        one = time_kernel(lambda r=rounds: knl(queue, (local,), (local,), outs[0], np.uint32(r)),
                          warmup=1, repeats=3).median
        if one >= target_seconds or rounds >= 1 << 26:
            break
        rounds = int(rounds * min(16.0, max(2.0, 1.2 * target_seconds / max(one, 1e-7))))
    queues = [cl.CommandQueue(ctx, queue.device) for _ in range(kernels)]

    def run(on: list[cl.CommandQueue]) -> float:
        began = time.perf_counter()
        for k in range(kernels):
            knl(on[k % len(on)], (local,), (local,), outs[k], np.uint32(rounds))
        for q in on:
            q.flush()
        for q in on:
            q.finish()
        return time.perf_counter() - began

    # each way checked once on cleared outputs, before either is timed
    want = _spin_reference(local, rounds)
    for on in ([queue], queues):
        for o in outs:
            cl.enqueue_fill_buffer(queue, o, np.float32(np.nan), 0, 4 * local)
        queue.finish()
        run(on)
        for o in outs:
            expect_close(read_back(queue, o, local), want, "spin", rtol=0, atol=5e-3)
    serial = float(np.median([run([queue]) for _ in range(repeats)]))
    apart = float(np.median([run(queues) for _ in range(repeats)]))
    return {"kernels": kernels, "work_items_each": local, "rounds": rounds,
            "one_kernel_ms": _ms(one), "one_queue_ms": _ms(serial),
            "a_queue_each_ms": _ms(apart), "speedup": round(serial / apart, 2),
            "repeats": repeats}


def texture_path(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                 seed: int | None = None) -> dict:
    """C = A B (n x n floats) with A and B read from buffers or through images, naive and tiled
    in local memory, and the copy of A and B into images that OpenCL needs when they start in
    buffers (Du et al. 2011, 004 line 166). ``images`` is False where the device has none."""
    n = n or (256 if _small(queue) else 2048)
    n = max(TILE, n // TILE * TILE)
    rng = seeded_rng(seed)
    a_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    want = a_np.astype(np.float64) @ b_np.astype(np.float64)
    a, b = to_device(ctx, a_np), to_device(ctx, b_np)
    c = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * n * n)
    flops = 2.0 * n ** 3
    dev = queue.device
    rows = []

    def timed(name: str, *args) -> None:
        knl = _usable(kernel(ctx, FILE, name))

        def launch():
            return knl(queue, (n, n), (TILE, TILE), *args, c, np.uint32(n))
        cl.enqueue_fill_buffer(queue, c, np.float32(np.nan), 0, 4 * n * n)
        launch().wait()
        expect_close(read_back(queue, c, n * n).reshape(n, n), want, name, rtol=1e-3, atol=1e-3)
        t = time_kernel(launch, warmup=1, repeats=5)
        rows.append({"kernel": name, "ms": _ms(t.median),
                     "gflop_per_s": round(flops / t.median / 1e9, 1)})

    timed("gemm_buffers", a, b)
    timed("gemm_buffers_tiled", a, b)
    out = {"n": n, "images": bool(dev.image_support), "rows": rows,
           "image2d_from_buffer": "cl_khr_image2d_from_buffer" in dev.extensions}
    if not dev.image_support:
        return out
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    ia = cl.create_image(ctx, mf.READ_ONLY, fmt, shape=(n, n))
    ib = cl.create_image(ctx, mf.READ_ONLY, fmt, shape=(n, n))

    def copy_in() -> cl.Event:
        cl.enqueue_copy(queue, ia, a, offset=0, origin=(0, 0), region=(n, n))
        return cl.enqueue_copy(queue, ib, b, offset=0, origin=(0, 0), region=(n, n))
    copy_in().wait()
    began = time.perf_counter()
    for _ in range(5):
        copy_in()
    queue.finish()
    out["copy_into_images_ms"] = _ms((time.perf_counter() - began) / 5)
    timed("gemm_images", ia, ib)
    timed("gemm_images_tiled", ia, ib)
    return out


def barrier_cost(ctx: cl.Context, queue: cl.CommandQueue, sizes: tuple[int, ...] = (32, 64, 128, 256,
                 512, 1024), items: int | None = None, rounds: int | None = None,
                 seed: int | None = None) -> list[dict]:
    """The same work (``items`` work-items, ``rounds`` rounds of a local-memory exchange between
    two barriers) at each work-group size the device allows: nanoseconds a round."""
    items = items or (1 << 14 if _small(queue) else 1 << 21)
    rounds = rounds or (16 if _small(queue) else 256)
    rng = seeded_rng(seed)
    src_np = rng.uniform(0, 1, items).astype(np.float32)
    src, dst = to_device(ctx, src_np), cl.Buffer(ctx, mf.WRITE_ONLY, 4 * items)
    knl = _usable(kernel(ctx, FILE, "barrier_rounds"))
    limit = min(queue.device.max_work_group_size,
                knl.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, queue.device))
    rows = []
    for size in sizes:
        if size > limit or items % size:
            continue
        def launch(size=size):
            return knl(queue, (items,), (size,), src, dst, np.uint32(rounds),
                       cl.LocalMemory(4 * size))
        cl.enqueue_fill_buffer(queue, dst, np.float32(np.nan), 0, 4 * items)
        launch().wait()
        v = src_np.reshape(-1, size).astype(np.float64)
        for _ in range(rounds):
            v = 0.5 * v + 0.5 * np.roll(v, -1, axis=1)
        expect_close(read_back(queue, dst, items), v.ravel(), f"barrier_rounds at {size}",
                     rtol=1e-4, atol=1e-5)
        t = time_kernel(launch, warmup=2, repeats=5)
        rows.append({"local_size": size, "ms": _ms(t.median),
                     "ns_per_round": round(t.median / rounds * 1e9, 1),
                     "kernel_work_group_limit": limit})
    return rows


def subgroups(ctx: cl.Context, queue: cl.CommandQueue, items: int | None = None, local: int = 256,
              seed: int | None = None) -> dict:
    """Whether the device has sub-groups (``cl_khr_subgroups``, or OpenCL 3.0's optional feature),
    their size, and a work-group's sum by the local-memory tree against sub-group functions."""
    dev = queue.device
    items = items or (1 << 16 if _small(queue) else 1 << 24)
    local = fitting_local(queue, local)
    items = items // local * local
    has = "cl_khr_subgroups" in dev.extensions
    out = {"extension": has, "max_num_sub_groups": None, "sub_group_size": None, "rows": []}
    try:
        out["max_num_sub_groups"] = int(dev.get_info(cl.device_info.MAX_NUM_SUB_GROUPS))
    except (cl.Error, AttributeError):
        pass
    rng = seeded_rng(seed)
    src_np = rng.integers(-8, 8, items).astype(np.float32)   # small integers: sums exact in float
    want = src_np.reshape(-1, local).sum(axis=1)
    src, partial = to_device(ctx, src_np), cl.Buffer(ctx, mf.WRITE_ONLY, 4 * (items // local))
    names = ["sum_tree"]
    if has or (out["max_num_sub_groups"] or 0) > 0:
        names.append("sum_subgroups")
    for name in names:
        knl = kernel(ctx, FILE, name, ("-DHAVE_SUBGROUPS",) if name == "sum_subgroups" else ())
        if isinstance(knl, LeftOutKernel):
            out["build_error"] = str(knl.error).splitlines()[0][:200]
            continue
        if name == "sum_subgroups":
            try:
                out["sub_group_size"] = int(knl.get_sub_group_info(
                    dev, cl.kernel_sub_group_info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, (local,)))
            except (cl.Error, AttributeError, TypeError) as e:
                out["sub_group_size_error"] = str(e)[:200]

        def launch(knl=knl):
            return knl(queue, (items,), (local,), src, partial, cl.LocalMemory(4 * local))
        cl.enqueue_fill_buffer(queue, partial, np.float32(np.nan), 0, 4 * (items // local))
        launch().wait()
        expect_close(read_back(queue, partial, items // local), want, name, rtol=0, atol=0)
        t = time_kernel(launch, warmup=2, repeats=10)
        out["rows"].append({"kernel": name, "local_size": local, "items": items,
                            "ms": _ms(t.median), "gb_per_s": round(4 * items / t.median / 1e9, 1)})
    return out


def then_and_now(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    """Every study of this module on one device, with the device's environment."""
    return {"environment": environment(queue.device),
            "scalar_and_vector": scalar_and_vector(ctx, queue),
            "concurrent_kernels": concurrent_kernels(ctx, queue),
            "texture_path": texture_path(ctx, queue),
            "barrier_cost": barrier_cost(ctx, queue),
            "subgroups": subgroups(ctx, queue)}
