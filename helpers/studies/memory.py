"""Notebooks 08-11: access patterns, layouts, the transpose tile, the hotspot stencil, divergence,
constant memory and fast math."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyopencl as cl

from ..exercises import rounded_up
from ..timing import small_sizes
from ..wording import plural
from .harness import (
    Prepared,
    device_output,
    expect_close,
    fitting_local,
    kernel,
    launcher,
    read_back,
    run_and_compare,
    seeded_rng,
    to_device,
)

mf = cl.mem_flags


def strides(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
            steps: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64), seed: int | None = None
            ) -> list[Prepared]:
    """A copy that reads with a stride between neighbouring work-items; every element is read
    and written once at every stride."""
    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    local = fitting_local(queue, 256)
    src_np = seeded_rng(seed).uniform(-1, 1, n).astype(np.float32)
    src, dst = to_device(ctx, src_np), device_output(ctx, 4 * n)
    knl = kernel(ctx, "access.cl", "strided_copy")
    prepared = []
    for s in steps:
        if n % s:
            continue
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), src, dst, np.uint32(n),
                          np.uint32(s))
        want = src_np.reshape(n // s, s).T.ravel()
        prepared.append(Prepared(f"stride {s}", launch,
                                 run_and_compare(queue, launch, dst, n, want, f"stride {s}"),
                                 bytes=8 * n, params={"stride": s, "n": n},
                                 kernel="strided_copy"))
    return prepared


def layouts(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
            seed: int | None = None) -> list[Prepared]:
    """Array of structs {a, b, c} against three arrays, reading one field or all three. GB/s
    count the bytes the computation needs (what the struct's other fields cost is the lesson)."""
    n = n or ((1 << 20) if small_sizes() else (1 << 24))
    local = fitting_local(queue, 256)
    g = rounded_up(n, local)
    rng = seeded_rng(seed)
    abc = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    aos = to_device(ctx, abc)
    soa = [to_device(ctx, abc[:, k].copy()) for k in range(3)]
    out = device_output(ctx, 4 * n)
    a, b, c = abc[:, 0], abc[:, 1], abc[:, 2]
    prepared = []
    for label, name, args, want, used in (
        ("one field, array of structs", "aos_one", (aos,), 2 * a, 8 * n),
        ("one field, struct of arrays", "soa_one", tuple(soa), 2 * a, 8 * n),
        ("all fields, array of structs", "aos_all", (aos,), a + b * c, 16 * n),
        ("all fields, struct of arrays", "soa_all", tuple(soa), a + b * c, 16 * n),
    ):
        knl = kernel(ctx, "access.cl", name)
        launch = launcher(queue, knl, (g,), (local,), *args, out, np.uint32(n))
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, out, n, want, label, atol=1e-6),
                                 bytes=used, params={"n": n}, kernel=name))
    return prepared


def transpose(ctx: cl.Context, queue: cl.CommandQueue, width: int | None = None,
              height: int | None = None, seed: int | None = None) -> list[Prepared]:
    """Transpose naively and through a 32 x 32 tile in local memory, with rows of 32 floats
    (every work-item of a warp reading a column hits one bank) or padded to 33."""
    width = width or (1024 if small_sizes() else 8192)
    height = height or width
    m_np = seeded_rng(seed).uniform(-1, 1, (height, width)).astype(np.float32)
    m, out = to_device(ctx, m_np), device_output(ctx, 4 * width * height)
    want = m_np.T.ravel()
    tiles = (rounded_up(width, 32), rounded_up(height, 32) // 4)
    prepared = []
    for label, name, options, g in (
        ("naive", "transpose_naive", (), (rounded_up(width, 32), rounded_up(height, 8))),
        ("tile 32 x 32", "transpose_tiled", ("-DPAD=0",), tiles),
        ("tile 32 x 33 (padded)", "transpose_tiled", ("-DPAD=1",), tiles),
    ):
        knl = kernel(ctx, "access.cl", name, options)
        launch = launcher(queue, knl, g, (32, 8), m, out, np.uint32(width), np.uint32(height))
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, out, width * height, want, label),
                                 bytes=8 * width * height,
                                 params={"width": width, "height": height}, kernel=name))
    return prepared


class Span:
    """The commands from ``first`` to ``last`` as one event for :func:`~helpers.timing.time_kernel`:
    from the first one's start to the last one's end (a sequence of launches, say)."""

    def __init__(self, first: cl.Event, last: cl.Event):
        self.first, self.last = first, last

    def wait(self) -> None:
        self.last.wait()

    @property
    def profile(self):
        class _Profile:
            start = self.first.profile.start
            end = self.last.profile.end
        return _Profile


HOTSPOT_C = (0.1, 0.1, 0.05)  # CX, CY, CP of kernels/studies/hotspot.cl


def hotspot_reference(t: np.ndarray, power: np.ndarray, steps: int) -> np.ndarray:
    """``steps`` steps of hotspot.cl's update in numpy (float32, edges insulated)."""
    cx, cy, cp = (np.float32(c) for c in HOTSPOT_C)
    t = t.astype(np.float32)
    for _ in range(steps):
        g = np.pad(t, 1, mode="edge")
        w, e, n, s = g[1:-1, :-2], g[1:-1, 2:], g[:-2, 1:-1], g[2:, 1:-1]
        t = (t + cx * (w + e - np.float32(2) * t) + cy * (n + s - np.float32(2) * t)
             + cp * power).astype(np.float32)
    return t


def hotspot(ctx: cl.Context, queue: cl.CommandQueue, width: int | None = None,
            height: int | None = None, steps: int = 8, blocks: tuple[int, ...] = (16, 32),
            per_launch: tuple[int, ...] = (1, 2, 4, 8), seed: int | None = None
            ) -> list[Prepared]:
    """The hotspot stencil stepped ``steps`` times: one launch (a global synchronization) per step,
    then B x B work-groups (B in ``blocks``) that take k steps in local memory per launch, for each
    k of ``per_launch`` that leaves some inner cells (steps / k launches; the blocks overlap, so
    the cells near a block's edge are computed more than once)."""
    width = width or (512 if small_sizes() else 4096)
    height = height or width
    most = int(queue.device.max_work_group_size ** 0.5)
    blocks = tuple(dict.fromkeys(min(b, 32, most) for b in blocks))
    block = blocks[0]
    rng = seeded_rng(seed)
    t0 = rng.uniform(20.0, 80.0, (height, width)).astype(np.float32)
    power = rng.uniform(0.0, 1.0, (height, width)).astype(np.float32)
    want = hotspot_reference(t0, power, steps)
    t_in, p_in = to_device(ctx, t0), to_device(ctx, power)
    bufs = [device_output(ctx, 4 * width * height) for _ in range(2)]
    cells = width * height

    def chain(knl, launches: int, glob: tuple[int, int], block: int) -> Callable[[], Span]:
        def launch() -> Span:
            events, src = [], t_in
            for i in range(launches):
                dst = bufs[i % 2]
                events.append(knl(queue, glob, (block, block), src, p_in, dst,
                                  np.uint32(width), np.uint32(height)))
                src = dst
            return Span(events[0], events[-1])
        return launch

    def verify_of(launch: Callable[[], Span], launches: int, label: str) -> Callable[[], object]:
        def verify() -> np.ndarray:
            launch().wait()
            got = read_back(queue, bufs[(launches - 1) % 2], cells)
            expect_close(got, want, label, rtol=1e-4, atol=1e-3)
            return got
        return verify

    prepared = []
    step = kernel(ctx, "hotspot.cl", "hotspot_step", ("-DSTEPS=1",))
    glob = (rounded_up(width, block), rounded_up(height, block))
    launch = chain(step, steps, glob, block)
    label = f"one launch per step ({plural(steps, 'launch')})"
    prepared.append(Prepared(label, launch, verify_of(launch, steps, label),
                             bytes=12 * cells * steps, flops=13 * cells * steps,
                             params={"width": width, "height": height, "steps": steps,
                                     "steps_per_launch": 0, "launches": steps,
                                     "cells_computed": cells * steps},
                             kernel="hotspot_step"))
    for block, k in ((b, k) for b in blocks for k in per_launch):
        inner = block - 2 * k
        if inner < 1 or steps % k:
            continue
        knl = kernel(ctx, "hotspot.cl", "hotspot_tiled", (f"-DSTEPS={k}",))
        groups = (-(-width // inner), -(-height // inner))
        glob = (groups[0] * block, groups[1] * block)
        launches = steps // k
        launch = chain(knl, launches, glob, block)
        label = (f"{block} x {block} tiles, {plural(k, 'step')} per launch "
                 f"({plural(launches, 'launch')})")
        computed = groups[0] * groups[1] * block * block * steps
        prepared.append(Prepared(label, launch, verify_of(launch, launches, label),
                                 bytes=12 * cells * launches, flops=13 * computed,
                                 params={"width": width, "height": height, "steps": steps,
                                         "steps_per_launch": k, "launches": launches,
                                         "block": block, "cells_computed": computed},
                                 kernel="hotspot_tiled"))
    return prepared


DIVERGENCE = (
    # label, kernel, range: "rows" (1-D, one work-item per row), "i-first" (dimension 0 = row),
    # "j-first" (dimension 0 = column)
    ("MyAdd", "my_add", "rows"),
    ("MyAdd_2D", "my_add_2d", "i-first"),
    ("MyAdd_2D_unweave", "my_add_2d_unweave", "i-first"),
    ("MyAdd_2D, column first (coalesced)", "my_add_2d_coalesced", "j-first"),
    ("MyAdd_col", "my_add_col", "rows"),
    ("MyAdd_2D_col", "my_add_2d_col", "i-first"),
    ("MyAdd_2D_unweave_col", "my_add_2d_unweave_col", "i-first"),
)


def _my_add(a: np.ndarray, b: np.ndarray, by_column: bool) -> np.ndarray:
    n = a.shape[0]
    parity = (np.arange(n)[None, :] if by_column else np.arange(n)[:, None]) % 2
    return np.where(parity == 0, a + b, a - b)


def divergence(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
               seed: int | None = None) -> list[Prepared]:
    """The MyAdd family on N x N float matrices (the blog measured 1024 x 1024 doubles)."""
    n = n or (512 if small_sizes() else 1024)
    rng = seeded_rng(seed)
    a_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    a, b, c = to_device(ctx, a_np), to_device(ctx, b_np), device_output(ctx, 4 * n * n)
    lx, ly = (32, 8) if queue.device.max_work_group_size >= 256 else (16, 4)
    prepared = []
    for label, name, shape in DIVERGENCE:
        knl = kernel(ctx, "divergence.cl", name)
        if shape == "rows":
            g, loc = (rounded_up(n, 64),), (fitting_local(queue, 64),)
        else:
            g, loc = (rounded_up(n, lx), rounded_up(n, ly)), (lx, ly)
        want = _my_add(a_np, b_np, by_column=name.endswith("_col"))
        launch = launcher(queue, knl, g, loc, a, b, c, np.uint32(n))
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, c, n * n, want, label),
                                 bytes=12 * n * n, params={"n": n}, kernel=name))
    return prepared


TAPS = 16
DEGREE = 128   # access.cl's polynomial: the coefficients' reads are most of its loads


def constant_memory(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                    seed: int | None = None) -> list[Prepared]:
    """A 16-tap filter whose taps come through __constant or __global memory; then a polynomial of
    degree 128 on one x per work-item, whose coefficients (the same for a whole warp at each step)
    are most of its loads, through either."""
    n = n or ((1 << 20) if small_sizes() else (1 << 24))
    local = fitting_local(queue, 256)
    rng = seeded_rng(seed)
    x_np = rng.uniform(-1, 1, n).astype(np.float32)
    taps_np = rng.uniform(-1, 1, TAPS).astype(np.float32)
    x, y, taps = to_device(ctx, x_np), device_output(ctx, 4 * n), to_device(ctx, taps_np)
    idx = np.minimum(np.arange(n)[:, None] + np.arange(TAPS)[None, :], n - 1)
    want = (x_np[idx].astype(np.float64) * taps_np[None, :]).sum(axis=1)
    prepared = []
    for label, name in (("taps in __constant", "taps_constant"),
                        ("taps in __global", "taps_global")):
        knl = kernel(ctx, "access.cl", name)
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), x, y, np.uint32(n), taps)
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, y, n, want, label, rtol=1e-4,
                                                  atol=1e-5),
                                 bytes=8 * n, flops=2 * TAPS * n, params={"n": n},
                                 kernel=name))
    v_np = rng.uniform(-0.5, 0.5, n).astype(np.float32)
    coef_np = rng.uniform(-1, 1, DEGREE + 1).astype(np.float32)
    want = np.polynomial.polynomial.polyval(v_np.astype(np.float64), coef_np.astype(np.float64))
    v, coef = to_device(ctx, v_np), to_device(ctx, coef_np)
    for label, name in ((f"degree-{DEGREE} polynomial, coefficients in __constant",
                         "poly_constant"),
                        (f"degree-{DEGREE} polynomial, coefficients in __global", "poly_global")):
        knl = kernel(ctx, "access.cl", name)
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), v, y, np.uint32(n), coef)
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, y, n, want, label, rtol=1e-4,
                                                  atol=1e-4),
                                 bytes=8 * n, flops=2 * DEGREE * n, params={"n": n},
                                 kernel=name))
    return prepared


def _transcendental(x: np.ndarray, rounds: int) -> np.ndarray:
    v = x.astype(np.float64)
    for _ in range(rounds):
        v = 0.5 * np.sin(v) + 0.25 * np.exp(-v * v)
    return v


def _horner(x: np.ndarray, rounds: int) -> np.ndarray:
    v = np.zeros_like(x, dtype=np.float64)
    for _ in range(rounds):
        v = v * x + 0.5
    return v


def fast_math(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
              rounds: int | None = None, seed: int | None = None) -> list[Prepared]:
    """sin and exp against native_sin and native_exp, and half_sin and half_exp; a * b + c with
    and without -cl-mad-enable. Each row records its largest error against numpy in double
    precision."""
    n = n or ((1 << 18) if small_sizes() else (1 << 22))
    rounds = rounds or (16 if small_sizes() else 64)
    local = fitting_local(queue, 256)
    x_np = seeded_rng(seed).uniform(-0.9, 0.9, n).astype(np.float32)
    x, y = to_device(ctx, x_np), device_output(ctx, 4 * n)
    prepared = []
    for label, name, options, ref, tol in (
        ("sin, exp", "transcendental", (), _transcendental, 1e-5),
        ("native_sin, native_exp", "transcendental", ("-DNATIVE",), _transcendental, 1e-3),
        ("half_sin, half_exp", "transcendental", ("-DHALF",), _transcendental, 1e-2),
        ("a * b + c", "horner", (), _horner, 1e-5),
        ("a * b + c, -cl-mad-enable", "horner", ("-cl-mad-enable",), _horner, 1e-5),
    ):
        knl = kernel(ctx, "access.cl", name, options)
        want = ref(x_np, rounds)
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), x, y, np.uint32(n),
                          np.uint32(rounds))
        compare = run_and_compare(queue, launch, y, n, want, label, rtol=tol, atol=tol)
        row_params = {"n": n, "rounds": rounds, "options": " ".join(options)}

        def verify(compare=compare, want=want, row_params=row_params) -> None:
            row_params["max_abs_error"] = float(np.abs(compare() - want).max())
        prepared.append(Prepared(label, launch, verify, bytes=8 * n, params=row_params,
                                 kernel=name))
    return prepared
