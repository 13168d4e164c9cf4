"""Notebook 13: the matrix-vector ladder of the NVIDIA whitepaper, and cuBLAS's sgemv beside it."""

from __future__ import annotations

import numpy as np
import pyopencl as cl

from ..timing import gb_per_s, gflop_per_s, small_sizes
from ..wording import plural
from .harness import (
    Prepared,
    cupy_on,
    cupy_samples,
    device_output,
    fitting_local,
    kernel,
    launcher,
    run_and_compare,
    seeded_rng,
    to_device,
)

mf = cl.mem_flags


WHITEPAPER_GROUPS = 60  # the whitepaper ran listings 3-7 with 60 work-groups of 256


MATVEC = (
    # label, kernel, whitepaper listing
    ("listing 2: a work-item per row", "mv_item_per_row", 2),
    ("listing 3: rows shared among work-items", "mv_item_rows", 3),
    ("listing 4: a work-group per row, serial sum", "mv_group_serial", 4),
    ("listing 5: tree, interleaved", "mv_group_interleaved", 5),
    ("listing 6: tree, sequential", "mv_group_sequential", 6),
    ("after listing 6: last warp unrolled (racy)", "mv_group_warp", 7),
)

SLICES = (16, 32, 64)
ROWS_AT_ONCE = (2, 4)  # mv_slices_rows: rows per slice of 32 in one pass
PER_UNIT = (4, 16)     # the slice of 32 with this many work-groups per compute unit, looping
STREAM_ROWS = ()       # mv_stream: rows per block read as one stream (tried, not faster on the H100)


def _ladder(height: int, local: int, slices: tuple[int, ...], groups: str) -> list[tuple]:
    """The whitepaper's steps, launched as it did and filled, then the slice kernel at each width:
    (label, kernel, options, work-groups, launch, listing, local floats) each."""
    configs = []
    for label, name, listing in MATVEC:
        if name == "mv_group_warp" and local < 64:
            continue
        rows_per_group = local if listing == 2 else 1
        filled = -(-height // rows_per_group)
        paper = filled if listing == 2 else WHITEPAPER_GROUPS
        if groups in ("whitepaper", "both"):
            configs.append((label, name, (), paper, "whitepaper", listing, local))
        if groups in ("filled", "both") and filled != paper:
            configs.append((label, name, (), filled, "filled", listing, local))
    for s in slices:
        if s <= local:
            configs.append((f"course: a slice of {s} per row", "mv_slices", (f"-DSLICE={s}",),
                            -(-height // (local // s)), "filled", 0, local))
    return configs


def _course_variants(queue: cl.CommandQueue, width: int, height: int, local: int,
                     per_unit: tuple[int, ...], rows_at_once: tuple[int, ...],
                     stream_rows: tuple[int, ...], stream_per_unit: tuple[int, ...]) -> list[tuple]:
    """The course's variants: a few work-groups per compute unit looping over the rows, v in
    local memory, several rows at once, the matrix as one stream (as :func:`_ladder`)."""
    configs = []
    units = queue.device.max_compute_units
    for k in per_unit if local >= 32 else ():
        if units * k < -(-height // (local // 32)):
            configs.append((f"course: a slice of 32, {plural(k, 'work-group')} per compute unit",
                            "mv_slices",
                            ("-DSLICE=32",), units * k, "per unit", 0, local))
    fits = 4 * (local + width) <= queue.device.local_mem_size
    for k in per_unit if local >= 32 and fits else ():
        groups_k = min(units * k, -(-height // (local // 32)))
        configs.append((f"course: a slice of 32, v in local memory, {plural(k, 'work-group')} "
                        f"per compute unit", "mv_slices_local_v", ("-DSLICE=32",), groups_k, "per unit", 0,
                        local + width))
    for r in rows_at_once if local >= 32 else ():
        rows = local // 32 * r
        configs.append((f"course: a slice of 32, {plural(r, 'row')} at once", "mv_slices_rows",
                        ("-DSLICE=32", f"-DROWS={r}"), -(-height // rows), "filled", 0,
                        rows * 33))
    for r in stream_rows:
        per_row = local // r
        if per_row < 1 or per_row & (per_row - 1) or 4 * r * local > queue.device.local_mem_size:
            continue
        blocks = -(-height // r)
        configs.append((f"course: one stream, blocks of {plural(r, 'row')}", "mv_stream",
                        (f"-DROWS={r}",),
                        blocks, "filled", 0, r * local))
        for k in stream_per_unit:
            if units * k < blocks:
                configs.append((f"course: one stream, blocks of {plural(r, 'row')}, "
                                f"{plural(k, 'work-group')} per compute unit", "mv_stream",
                                (f"-DROWS={r}",), units * k, "per unit", 0, r * local))
    return configs


def matvec(ctx: cl.Context, queue: cl.CommandQueue, width: int | None = None,
           height: int | None = None, local: int = 256, slices: tuple[int, ...] = SLICES,
           groups: str = "both", seed: int | None = None,
           rows_at_once: tuple[int, ...] = ROWS_AT_ONCE,
           per_unit: tuple[int, ...] = PER_UNIT,
           stream_rows: tuple[int, ...] = STREAM_ROWS,
           stream_per_unit: tuple[int, ...] = (), options: tuple[str, ...] = (),
           slice_locals: tuple[int, ...] = ()) -> list[Prepared]:
    """The whitepaper's ladder on a height x width matrix (its 60989 x 1100), each step launched
    as the whitepaper did (239 work-groups for listing 2, 60 for the others) and with enough
    work-groups to fill the device (``groups``: "whitepaper", "filled" or "both"), then the
    course's slice kernel at several slice widths, with a few work-groups per compute unit that
    loop over the rows, and with several rows per slice at once; then the matrix read as one
    stream (``mv_stream``) in blocks of ``stream_rows`` rows, one block per work-group or
    ``stream_per_unit`` work-groups per compute unit that loop over the blocks. ``options`` go to
    every build (``-DVLOAD4``: the float4 loads as vload4, see matvec.cl); ``slice_locals``: the
    slices of 32 and 64 again with these work-group sizes, on the same data."""
    if width is None:
        width, height = (1100, 6000) if small_sizes() else (1100, 60989)
    local = fitting_local(queue, local)
    rng = seeded_rng(seed)
    m_np = rng.uniform(-1, 1, (height, width)).astype(np.float32)
    v_np = rng.uniform(-1, 1, width).astype(np.float32)
    want = m_np.astype(np.float64) @ v_np.astype(np.float64)
    m, v, w = to_device(ctx, m_np), to_device(ctx, v_np), device_output(ctx, 4 * height)
    nbytes = 4 * (width * height + width + height)
    configs = _ladder(height, local, slices, groups) + _course_variants(
        queue, width, height, local, per_unit, rows_at_once, stream_rows, stream_per_unit)
    configs = [(*c, local) for c in configs]
    for loc in slice_locals:
        if fitting_local(queue, loc) == loc:
            configs.extend((f"course: a slice of {s} per row, work-groups of {loc}", "mv_slices",
                            (f"-DSLICE={s}",), -(-height // (loc // s)), "filled", 0, loc, loc)
                           for s in (32, 64) if s <= loc)
    prepared = []
    for label, name, own, n_groups, launch_kind, listing, words, loc in configs:
        knl = kernel(ctx, "matvec.cl", name, own + tuple(options))
        g = n_groups * loc
        launch = launcher(queue, knl, (g,), (loc,), m, v, np.uint32(width), np.uint32(height),
                          w, cl.LocalMemory(4 * words))
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, w, height, want, label,
                                                  rtol=1e-4, atol=1e-3),
                                 bytes=nbytes, flops=2 * width * height,
                                 params={"width": width, "height": height, "groups": n_groups,
                                         "local_size": loc, "launch": launch_kind,
                                         "listing": listing,
                                         "options": " ".join(own + tuple(options))},
                                 kernel=name))
    return prepared




def cublas_matvec(queue: cl.CommandQueue, width: int, height: int, repeats: int = 20,
                  seed: int | None = None) -> dict | None:
    """cuBLAS sgemv through cupy (``m @ v``), timed with CUDA events; None without cupy or an
    NVIDIA device."""
    cupy = cupy_on(queue.device)
    if cupy is None:
        return None
    rng = seeded_rng(seed)
    m = cupy.asarray(rng.uniform(-1, 1, (height, width)).astype(np.float32))
    v = cupy.asarray(rng.uniform(-1, 1, width).astype(np.float32))
    samples = cupy_samples(cupy, lambda: m @ v, repeats)
    seconds = float(np.median(samples))
    nbytes = 4 * (width * height + width + height)
    return {"label": f"cuBLAS sgemv (cupy {cupy.__version__})", "kernel": "cublas",
            "seconds": seconds, "min_seconds": float(min(samples)),
            "max_seconds": float(max(samples)), "repeats": repeats,
            "bytes": nbytes, "gb_per_s": gb_per_s(nbytes, seconds),
            "flops": 2 * width * height,
            "gflop_per_s": gflop_per_s(2 * width * height, seconds), "correct": True,
            "width": width, "height": height}
