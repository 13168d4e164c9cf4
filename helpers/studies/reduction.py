"""Notebook 12: the parallel-sum ladder, and the sum end to end against the libraries."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyopencl as cl

from ..exercises import rounded_up
from ..timing import gb_per_s, small_sizes, time_kernel
from .harness import (
    LeftOutKernel,
    Prepared,
    StudyMismatch,
    cupy_on,
    device_output,
    fitting_local,
    kernel,
    launcher,
    read_back,
    seeded_rng,
    study_result,
    to_device,
    wall_queue,
    wall_row,
)

mf = cl.mem_flags


REDUCTIONS = (
    # label, kernel, elements per work-item (0: the grid fills the device instead)
    ("1 global memory, interleaved", "sum_global", 1),
    ("2 local memory, interleaved", "sum_local", 1),
    ("3 two loads, interleaved", "sum_local_two", 2),
    ("4 two loads, sequential", "sum_sequential", 2),
    ("5 four loads, sequential", "sum_four", 4),
    ("6 four loads, last warp unrolled (racy)", "sum_warp_unrolled", 4),
    ("7 modern: grid-stride, int4 loads", "sum_modern", 0),
    ("CPU-friendly: a chunk per work-item", "sum_chunks", 0),
)


def sum_launch(dev: cl.Device, name: str, n: int, per: int, local: int) -> tuple[int, int]:
    """(global size, local size) for a reduction kernel: ``per`` elements per work-item, or for
    the grid-stride kernels just enough work-groups to fill the device (the chunk kernel: a few
    small work-groups per core on a CPU)."""
    if per:
        return rounded_up(-(-n // per), local), local
    if name == "sum_chunks" and dev.type & cl.device_type.CPU:
        loc = min(local, 4)
        return dev.max_compute_units * 4 * loc, loc
    fill = dev.max_compute_units * 8 * local
    return min(fill, rounded_up(-(-n // 4), local)), local


def sum_ints_data(rng: np.random.Generator, n: int) -> np.ndarray:
    """int32 values in [-100, 100], never zero: their sums stay far from int32's limits."""
    x = rng.integers(-100, 101, n).astype(np.int32)
    x[x == 0] = 1
    return x


def reductions(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
               variants: tuple[tuple[str, str, int], ...] = REDUCTIONS, local: int = 256,
               seed: int | None = None) -> list[Prepared]:
    """The parallel-sum ladder on n ints. GB/s count the 4n bytes of the input."""
    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    local = fitting_local(queue, local)
    src_np = sum_ints_data(seeded_rng(seed), n)
    total = int(src_np.sum(dtype=np.int64))
    src = to_device(ctx, src_np)
    scratch_src = None
    prepared = []
    for label, name, per in variants:
        if name == "sum_warp_unrolled" and local < 64:
            continue
        g, loc = sum_launch(queue.device, name, n, per, local)
        groups = g // loc
        partial = device_output(ctx, 4 * groups)
        knl = kernel(ctx, "reduction.cl", name)
        data = src
        if name == "sum_global":  # adds in place: it gets its own copy, restored before checking
            if scratch_src is None:
                scratch_src = to_device(ctx, src_np)
            data = scratch_src
        launch = launcher(queue, knl, (g,), (loc,), data, partial, np.uint32(n),
                          cl.LocalMemory(4 * loc))

        def verify(launch=launch, partial=partial, groups=groups, label=label, data=data) -> None:
            if data is not src:
                cl.enqueue_copy(queue, data, src_np).wait()
            launch().wait()
            got = int(read_back(queue, partial, groups, np.int32).sum(dtype=np.int64))
            if got != total:
                raise StudyMismatch(f"{label}: the partial sums add up to {got}, numpy says "
                                    f"{total}")
        prepared.append(Prepared(label, launch, verify, bytes=4 * n,
                                 params={"n": n, "global_size": g, "local_size": loc,
                                         "groups": groups}, kernel=name))
    return prepared


def sum_end_to_end(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                   repeats: int = 20, seed: int | None = None) -> dict:
    """Sum n int32 values held on the device, every stage counted and the result on the host:
    the course's grid-stride and chunk kernels (kernel, read the partials, add them), against
    pyopencl.array.sum, numpy.sum (the values in host memory) and cupy.sum where cupy and an
    NVIDIA GPU are there. Wall-clock medians (time.perf_counter), on a queue that records no
    profiling times (:func:`~helpers.studies.harness.wall_queue`)."""
    import pyopencl.array as cla

    from ..timing import left_out_sentence

    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    src_np = sum_ints_data(seeded_rng(seed), n)
    total = int(src_np.sum(dtype=np.int64))
    local = fitting_local(queue, 256)
    rows = []

    def wall(fn: Callable[[], int], label: str, **extra) -> None:
        rows.append(wall_row(fn, label, total, repeats, 4 * n, n=n, **extra))

    src = to_device(ctx, src_np)
    plain = wall_queue(queue)  # the kernels timed alone on queue, end to end on plain
    for name in ("sum_modern", "sum_chunks"):
        g, loc = sum_launch(queue.device, name, n, 0, local)
        groups = g // loc
        partial = device_output(ctx, 4 * groups)
        # The partials land in pinned (page-locked) host memory, which the GPU copies to
        # directly: a few microseconds less than a copy into an ordinary numpy array.
        pinned = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 4 * groups)
        host, _ = cl.enqueue_map_buffer(queue, pinned, cl.map_flags.READ | cl.map_flags.WRITE, 0,
                                        (groups,), np.int32)
        # Its arguments are set once, so each call only enqueues it: microseconds that count here.
        knl = kernel(ctx, "reduction.cl", name)
        if isinstance(knl, LeftOutKernel):
            print(left_out_sentence(f"{name} left out of the end-to-end sum", knl.error))
            continue
        knl.set_args(src, partial, np.uint32(n), cl.LocalMemory(4 * loc))

        def ours(knl=knl, g=g, loc=loc, partial=partial, host=host) -> int:
            cl.enqueue_nd_range_kernel(plain, knl, (g,), (loc,))
            cl.enqueue_copy(plain, host, partial)  # blocking: waits for the kernel
            return int(host.sum(dtype=np.int64))
        main = time_kernel(lambda knl=knl, g=g, loc=loc:
                           cl.enqueue_nd_range_kernel(queue, knl, (g,), (loc,)),
                           warmup=2, repeats=repeats)
        queue.finish()
        wall(ours, f"course: {name}, end to end", kernel=name, groups=groups,
             kernel_seconds=main.median, kernel_gb_per_s=gb_per_s(4 * n, main.median))

    a_dev = cla.to_device(plain, src_np)
    wall(lambda: int(cla.sum(a_dev, dtype=np.int64).get()), "pyopencl.array.sum")
    wall(lambda: int(src_np.sum(dtype=np.int64)), "numpy.sum (host memory)")
    cupy = cupy_on(queue.device)
    if cupy is not None:
        x = cupy.asarray(src_np)
        wall(lambda: int(x.sum(dtype=cupy.int64)), f"cupy.sum (cupy {cupy.__version__})")
    return study_result("sum_end_to_end", rows, queue, n=n)
