"""The performance studies of notebooks 05-08: each study prepares the kernels of
``kernels/studies/`` on fresh random data, checks every kernel's first result against numpy, then
times it (:func:`measure`). ``python -m helpers bench`` runs them all; the tests run each one at
small sizes and check every kernel against numpy.

A study function returns a list of :class:`Prepared` kernels; :func:`measure` turns them into rows
(label, seconds, GB/s, GFLOP/s, correct or why not). The seeds' historical timings sit beside them
in :data:`HISTORY`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyopencl as cl

from .checking.exercises import rounded_up
from .kernels import KERNELS, KernelBuildError, build_file, display_path
from .probe import KernelLeftOut
from .timing import environment, gb_per_s, gflop_per_s, small_sizes, time_kernel, timed

STUDIES = KERNELS / "studies"
mf = cl.mem_flags


class StudyMismatch(AssertionError):
    """A study kernel's result differs from numpy's."""


@dataclass
class Prepared:
    """One kernel ready to run: ``launch()`` enqueues it and returns its event; ``verify()`` runs
    it once on the study's data and raises :class:`StudyMismatch` unless numpy agrees."""

    label: str
    launch: Callable[[], cl.Event]
    verify: Callable[[], object]
    bytes: int
    flops: int = 0
    params: dict = field(default_factory=dict)
    kernel: str = ""


class LeftOutKernel:
    """Stands in for a kernel that this device's driver crashed on or refused to build: calling it
    (or setting its arguments) raises that error, which :func:`measure` turns into a sentence."""

    def __init__(self, name: str, error: Exception):
        self.function_name = name
        self.error = error

    def __call__(self, *args, **kwargs):
        raise self.error

    def set_args(self, *args):
        raise self.error


def kernel(ctx: cl.Context, file: str | Path, name: str, options: tuple[str, ...] = ()
           ) -> cl.Kernel | LeftOutKernel:
    """Kernel ``name`` of ``kernels/studies/FILE`` (or of the file at a path), built once per
    context and options (a :class:`LeftOutKernel` when the driver crashes on it or refuses it)."""
    try:
        return cl.Kernel(build_file(ctx, STUDIES / file, list(options), reuse=True), name)
    except (KernelLeftOut, KernelBuildError) as e:
        return LeftOutKernel(name, e)


def launcher(queue: cl.CommandQueue, knl: cl.Kernel, global_size: tuple[int, ...],
             local_size: tuple[int, ...], *args) -> Callable[[], cl.Event]:
    """A function that enqueues ``knl`` with these sizes and arguments and returns its event."""
    def launch() -> cl.Event:
        return knl(queue, global_size, local_size, *args)
    return launch


def _in(ctx: cl.Context, host: np.ndarray) -> cl.Buffer:
    return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(host))


def _out(ctx: cl.Context, nbytes: int) -> cl.Buffer:
    return cl.Buffer(ctx, mf.READ_WRITE, max(int(nbytes), 4))


def _read(queue: cl.CommandQueue, buf: cl.Buffer, count: int, dtype=np.float32) -> np.ndarray:
    host = np.empty(count, dtype=dtype)
    cl.enqueue_copy(queue, host, buf)
    return host


def _expect_close(got: np.ndarray, want: np.ndarray, what: str, rtol: float = 1e-5,
                  atol: float = 1e-6) -> None:
    want = np.asarray(want).ravel()
    got = np.asarray(got).ravel()
    bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise StudyMismatch(f"{what}: {int(bad.sum())} of {got.size} values differ from numpy, "
                            f"the first at [{i}]: expected {want[i]!r}, got {got[i]!r}")


def _run_and_compare(queue: cl.CommandQueue, launch: Callable[[], cl.Event], out: cl.Buffer,
                     count: int, want: np.ndarray, what: str, dtype=np.float32,
                     rtol: float = 1e-5, atol: float = 1e-6) -> Callable[[], np.ndarray]:
    """A verify function: run once on a cleared output, compare, return what the kernel wrote."""
    def verify() -> np.ndarray:
        cl.enqueue_fill_buffer(queue, out, np.zeros(1, dtype), 0, count * np.dtype(dtype).itemsize)
        launch().wait()
        got = _read(queue, out, count, dtype)
        _expect_close(got, want, what, rtol, atol)
        return got
    return verify


def _local(queue: cl.CommandQueue, wanted: int) -> int:
    """``wanted`` (a power of two) or the device's largest power of two below its limit."""
    limit = queue.device.max_work_group_size
    while wanted > limit:
        wanted //= 2
    return wanted


def measure(items: list[Prepared], queue: cl.CommandQueue, *, warmup: int = 2,
            repeats: int = 10, progress: str | None = None,
            left_out: list[dict] | None = None) -> list[dict]:
    """Check each kernel against numpy, then time it (median of ``repeats`` after ``warmup``).
    A kernel whose result is wrong on this device is still timed, and its row says why it is
    wrong (``correct: False``, ``note``): a known driver bug is part of the lesson. A kernel the
    driver crashes on or refuses has no row: its sentence is printed once, and added to
    ``left_out`` when given."""
    from tqdm.auto import tqdm

    from .timing import left_out_sentence

    rows = []
    said: set[str] = set()
    for p in tqdm(items, progress or "study", disable=progress is None, delay=1.0, leave=False):
        row = {"label": p.label, "kernel": p.kernel, "correct": True}
        try:
            p.verify()
        except StudyMismatch as e:
            row["correct"], row["note"] = False, str(e)
        except (KernelLeftOut, KernelBuildError) as e:
            if str(e) not in said:
                said.add(str(e))
                print(left_out_sentence(f"{p.label} left out", e))
            if left_out is not None:
                left_out.append({"label": p.label, "kernel": p.kernel, **p.params,
                                 "left_out": left_out_sentence(f"{p.label} left out", e)})
            continue
        row.update(p.params)  # after the check, which may add to them (an error found, say)
        t = time_kernel(p.launch, warmup=warmup, repeats=repeats)
        row.update(**timed(t), bytes=p.bytes, gb_per_s=gb_per_s(p.bytes, t.median))
        if p.flops:
            row.update(flops=p.flops, gflop_per_s=gflop_per_s(p.flops, t.median))
        rows.append(row)
    return rows


def _result(name: str, rows: list[dict], queue: cl.CommandQueue, **params) -> dict:
    return {"experiment": name, **params, "rows": rows, "environment": environment(queue.device)}


def _rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)


# --------------------------------------------------------------------------------------------------
# Notebook 05: thread-, instruction- and memory-level parallelism.

ILP_A, ILP_B = 0.999, 0.001


def _ilp_reference(items: int, chains: int, rounds: int) -> np.ndarray:
    start = (np.arange(min(items, 1024)) * np.float32(1e-3)).astype(np.float32)
    a, b = np.float32(ILP_A), np.float32(ILP_B)
    total = np.zeros_like(start)
    for c in range(chains):
        x = start + np.float32(0.25 * c)
        for _ in range(rounds):
            x = x * a + b
        total = total + x
    reps = -(-items // 1024)
    return np.tile(total, reps)[:items]


def work_item_counts(dev: cl.Device, local: int, steps: int) -> list[int]:
    """Work-items that give each compute unit 1, 2, 4, ... work-groups' worth (TLP axis)."""
    return [dev.max_compute_units * local * (1 << k) for k in range(steps)]


def ilp(ctx: cl.Context, queue: cl.CommandQueue, items: list[int] | None = None,
        rounds: int | None = None, chains: tuple[int, ...] = (1, 2, 3, 4)) -> list[Prepared]:
    """GFLOP/s of 1 to 4 independent chains of multiply-adds per work-item, as the number of
    work-items grows (TLP); each chain is ``rounds`` dependent mads."""
    local = _local(queue, 32)
    if items is None:
        items = work_item_counts(queue.device, local, 4 if small_sizes() else 7)
    rounds = rounds or (256 if small_sizes() else 4096)
    prepared = []
    for c in chains:
        knl = kernel(ctx, "parallelism.cl", "ilp", (f"-DCHAINS={c}",))
        for n in items:
            g = rounded_up(n, local)
            out = _out(ctx, 4 * g)
            launch = launcher(queue, knl, (g,), (local,), out, np.float32(ILP_A),
                              np.float32(ILP_B), np.uint32(rounds))
            want = _ilp_reference(g, c, rounds)
            prepared.append(Prepared(f"ILP {c}", launch,
                                     _run_and_compare(queue, launch, out, g, want, f"ilp {c}",
                                                      rtol=1e-4, atol=1e-4),
                                     bytes=4 * g, flops=2 * c * rounds * g,
                                     params={"chains": c, "work_items": g, "rounds": rounds},
                                     kernel="ilp"))
    return prepared


MLP_CONFIGS = tuple((vec, floats) for floats in (1, 2, 4, 8, 16) for vec in (1, 2, 4)
                    if floats % vec == 0)


def mlp(ctx: cl.Context, queue: cl.CommandQueue, floats_total: int | None = None,
        items: list[int] | None = None, configs: tuple[tuple[int, int], ...] = MLP_CONFIGS,
        seed: int | None = None) -> list[Prepared]:
    """GB/s of reads with 1 to 16 floats in flight per work-item (as float, float2 or float4
    loads), as the number of work-items grows."""
    local = _local(queue, 64)
    if floats_total is None:
        floats_total = (1 << 22) if small_sizes() else (1 << 26)
    if items is None:
        items = work_item_counts(queue.device, local, 3 if small_sizes() else 6)
    src_np = _rng(seed).uniform(0, 1, floats_total).astype(np.float32)
    src = _in(ctx, src_np)
    prepared = []
    for vec, floats in configs:
        loads = floats // vec
        type_name = "float" if vec == 1 else f"float{vec}"
        knl = kernel(ctx, "parallelism.cl", "mlp",
                     (f"-DVEC={type_name}", f"-DWIDTH={vec}", f"-DLOADS={loads}"))
        count = floats_total // vec
        per_vector = src_np[:count * vec].reshape(count, vec).sum(axis=1, dtype=np.float64)
        for n in items:
            g = rounded_up(n, local)
            out = _out(ctx, 4 * g)
            padded = np.zeros(rounded_up(count, g))
            padded[:count] = per_vector
            want = padded.reshape(-1, g).sum(axis=0)
            launch = launcher(queue, knl, (g,), (local,), src, out, np.uint32(count))
            label = f"{loads} x {type_name}"
            prepared.append(Prepared(label, launch,
                                     _run_and_compare(queue, launch, out, g, want, label,
                                                      rtol=1e-3, atol=1e-3),
                                     bytes=4 * floats_total + 4 * g,
                                     params={"vector": vec, "loads": loads, "floats": floats,
                                             "work_items": g}, kernel="mlp"))
    return prepared


# --------------------------------------------------------------------------------------------------
# Notebook 06: access patterns, local-memory banks, divergence, constant memory, fast math.

def strides(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
            steps: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64), seed: int | None = None
            ) -> list[Prepared]:
    """A copy that reads with a stride between neighbouring work-items; every element is read
    and written once at every stride."""
    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    local = _local(queue, 256)
    src_np = _rng(seed).uniform(-1, 1, n).astype(np.float32)
    src, dst = _in(ctx, src_np), _out(ctx, 4 * n)
    knl = kernel(ctx, "access.cl", "strided_copy")
    prepared = []
    for s in steps:
        if n % s:
            continue
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), src, dst, np.uint32(n),
                          np.uint32(s))
        want = src_np.reshape(n // s, s).T.ravel()
        prepared.append(Prepared(f"stride {s}", launch,
                                 _run_and_compare(queue, launch, dst, n, want, f"stride {s}"),
                                 bytes=8 * n, params={"stride": s, "n": n},
                                 kernel="strided_copy"))
    return prepared


def layouts(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
            seed: int | None = None) -> list[Prepared]:
    """Array of structs {a, b, c} against three arrays, reading one field or all three. GB/s
    count the bytes the computation needs (what the struct's other fields cost is the lesson)."""
    n = n or ((1 << 20) if small_sizes() else (1 << 24))
    local = _local(queue, 256)
    g = rounded_up(n, local)
    rng = _rng(seed)
    abc = rng.uniform(-1, 1, (n, 3)).astype(np.float32)
    aos = _in(ctx, abc)
    soa = [_in(ctx, abc[:, k].copy()) for k in range(3)]
    out = _out(ctx, 4 * n)
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
                                 _run_and_compare(queue, launch, out, n, want, label, atol=1e-6),
                                 bytes=used, params={"n": n}, kernel=name))
    return prepared


def transpose(ctx: cl.Context, queue: cl.CommandQueue, width: int | None = None,
              height: int | None = None, seed: int | None = None) -> list[Prepared]:
    """Transpose naively and through a 32 x 32 tile in local memory, with rows of 32 floats
    (every work-item of a warp reading a column hits one bank) or padded to 33."""
    width = width or (1024 if small_sizes() else 8192)
    height = height or width
    m_np = _rng(seed).uniform(-1, 1, (height, width)).astype(np.float32)
    m, out = _in(ctx, m_np), _out(ctx, 4 * width * height)
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
                                 _run_and_compare(queue, launch, out, width * height, want, label),
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
    rng = _rng(seed)
    t0 = rng.uniform(20.0, 80.0, (height, width)).astype(np.float32)
    power = rng.uniform(0.0, 1.0, (height, width)).astype(np.float32)
    want = hotspot_reference(t0, power, steps)
    t_in, p_in = _in(ctx, t0), _in(ctx, power)
    bufs = [_out(ctx, 4 * width * height) for _ in range(2)]
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
            got = _read(queue, bufs[(launches - 1) % 2], cells)
            _expect_close(got, want, label, rtol=1e-4, atol=1e-3)
            return got
        return verify

    prepared = []
    step = kernel(ctx, "hotspot.cl", "hotspot_step", ("-DSTEPS=1",))
    glob = (rounded_up(width, block), rounded_up(height, block))
    launch = chain(step, steps, glob, block)
    label = f"one launch per step ({steps} launches)"
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
        label = (f"{block} x {block} tiles, {k} step{'s' * (k > 1)} per launch ({launches} "
                 f"launch{'es' * (launches > 1)})")
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
    rng = _rng(seed)
    a_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    b_np = rng.uniform(-1, 1, (n, n)).astype(np.float32)
    a, b, c = _in(ctx, a_np), _in(ctx, b_np), _out(ctx, 4 * n * n)
    lx, ly = (32, 8) if queue.device.max_work_group_size >= 256 else (16, 4)
    prepared = []
    for label, name, shape in DIVERGENCE:
        knl = kernel(ctx, "divergence.cl", name)
        if shape == "rows":
            g, loc = (rounded_up(n, 64),), (_local(queue, 64),)
        else:
            g, loc = (rounded_up(n, lx), rounded_up(n, ly)), (lx, ly)
        want = _my_add(a_np, b_np, by_column=name.endswith("_col"))
        launch = launcher(queue, knl, g, loc, a, b, c, np.uint32(n))
        prepared.append(Prepared(label, launch,
                                 _run_and_compare(queue, launch, c, n * n, want, label),
                                 bytes=12 * n * n, params={"n": n}, kernel=name))
    return prepared


TAPS = 16


def constant_memory(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                    seed: int | None = None) -> list[Prepared]:
    """A 16-tap filter whose taps come through __constant or __global memory."""
    n = n or ((1 << 20) if small_sizes() else (1 << 24))
    local = _local(queue, 256)
    rng = _rng(seed)
    x_np = rng.uniform(-1, 1, n).astype(np.float32)
    taps_np = rng.uniform(-1, 1, TAPS).astype(np.float32)
    x, y, taps = _in(ctx, x_np), _out(ctx, 4 * n), _in(ctx, taps_np)
    idx = np.minimum(np.arange(n)[:, None] + np.arange(TAPS)[None, :], n - 1)
    want = (x_np[idx].astype(np.float64) * taps_np[None, :]).sum(axis=1)
    prepared = []
    for label, name in (("taps in __constant", "taps_constant"),
                        ("taps in __global", "taps_global")):
        knl = kernel(ctx, "access.cl", name)
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), x, y, np.uint32(n), taps)
        prepared.append(Prepared(label, launch,
                                 _run_and_compare(queue, launch, y, n, want, label, rtol=1e-4,
                                                  atol=1e-5),
                                 bytes=8 * n, flops=2 * TAPS * n, params={"n": n},
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
    local = _local(queue, 256)
    x_np = _rng(seed).uniform(-0.9, 0.9, n).astype(np.float32)
    x, y = _in(ctx, x_np), _out(ctx, 4 * n)
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
        compare = _run_and_compare(queue, launch, y, n, want, label, rtol=tol, atol=tol)
        row_params = {"n": n, "rounds": rounds, "options": " ".join(options)}

        def verify(compare=compare, want=want, row_params=row_params) -> None:
            row_params["max_abs_error"] = float(np.abs(compare() - want).max())
        prepared.append(Prepared(label, launch, verify, bytes=8 * n, params=row_params,
                                 kernel=name))
    return prepared


# --------------------------------------------------------------------------------------------------
# Notebook 07: the parallel-sum ladder.

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
    local = _local(queue, local)
    src_np = sum_ints_data(_rng(seed), n)
    total = int(src_np.sum(dtype=np.int64))
    src = _in(ctx, src_np)
    scratch_src = None
    prepared = []
    for label, name, per in variants:
        if name == "sum_warp_unrolled" and local < 64:
            continue
        g, loc = sum_launch(queue.device, name, n, per, local)
        groups = g // loc
        partial = _out(ctx, 4 * groups)
        knl = kernel(ctx, "reduction.cl", name)
        data = src
        if name == "sum_global":  # adds in place: it gets its own copy, restored before checking
            if scratch_src is None:
                scratch_src = _in(ctx, src_np)
            data = scratch_src
        launch = launcher(queue, knl, (g,), (loc,), data, partial, np.uint32(n),
                          cl.LocalMemory(4 * loc))

        def verify(launch=launch, partial=partial, groups=groups, label=label, data=data) -> None:
            if data is not src:
                cl.enqueue_copy(queue, data, src_np).wait()
            launch().wait()
            got = int(_read(queue, partial, groups, np.int32).sum(dtype=np.int64))
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
    NVIDIA GPU are there. Wall-clock medians (time.perf_counter)."""
    import pyopencl.array as cla

    from .timing import left_out_sentence

    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    src_np = sum_ints_data(_rng(seed), n)
    total = int(src_np.sum(dtype=np.int64))
    local = _local(queue, 256)
    rows = []

    def wall(fn: Callable[[], int], label: str, **extra) -> None:
        got = fn()  # warm-up, and the answer checked
        samples = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            samples.append(time.perf_counter() - t0)
        seconds = float(np.median(samples))
        rows.append({"label": label, "seconds": seconds, "min_seconds": float(min(samples)),
                     "max_seconds": float(max(samples)), "repeats": repeats, "bytes": 4 * n,
                     "gb_per_s": gb_per_s(4 * n, seconds),
                     "correct": int(got) == total, "n": n, **extra})

    src = _in(ctx, src_np)
    for name in ("sum_modern", "sum_chunks"):
        g, loc = sum_launch(queue.device, name, n, 0, local)
        groups = g // loc
        partial = _out(ctx, 4 * groups)
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
            cl.enqueue_nd_range_kernel(queue, knl, (g,), (loc,))
            cl.enqueue_copy(queue, host, partial)  # blocking: waits for the kernel
            return int(host.sum(dtype=np.int64))
        main = time_kernel(lambda knl=knl, g=g, loc=loc:
                           cl.enqueue_nd_range_kernel(queue, knl, (g,), (loc,)),
                           warmup=2, repeats=repeats)
        wall(ours, f"course: {name}, end to end", kernel=name, groups=groups,
             kernel_seconds=main.median, kernel_gb_per_s=gb_per_s(4 * n, main.median))

    a_dev = cla.to_device(queue, src_np)
    wall(lambda: int(cla.sum(a_dev, dtype=np.int64).get()), "pyopencl.array.sum")
    wall(lambda: int(src_np.sum(dtype=np.int64)), "numpy.sum (host memory)")
    cupy = _cupy_on(queue.device)
    if cupy is not None:
        x = cupy.asarray(src_np)
        wall(lambda: int(x.sum(dtype=cupy.int64)), f"cupy.sum (cupy {cupy.__version__})")
    return _result("sum_end_to_end", rows, queue, n=n)


def _cupy_on(dev: cl.Device):
    """cupy, when it imports and the OpenCL device is an NVIDIA GPU (the same GPU, on a machine
    with one); None otherwise."""
    if "NVIDIA" not in dev.platform.name.upper():
        return None
    try:
        import cupy
        cupy.cuda.runtime.getDeviceCount()
        return cupy
    except Exception:
        return None


# --------------------------------------------------------------------------------------------------
# Notebook 08: the matrix-vector ladder of the NVIDIA whitepaper.

WHITEPAPER_GROUPS = 60  # the whitepaper ran listings 3-7 with 60 work-groups of 256


MATVEC = (
    # label, kernel, whitepaper listing
    ("listing 2: a work-item per row", "mv_item_per_row", 2),
    ("listing 3: rows shared among work-items", "mv_item_rows", 3),
    ("listing 4: a work-group per row, serial sum", "mv_group_serial", 4),
    ("listing 5: tree, interleaved", "mv_group_interleaved", 5),
    ("listing 6: tree, sequential", "mv_group_sequential", 6),
    ("listing 7: last warp unrolled (racy)", "mv_group_warp", 7),
)

SLICES = (16, 32, 64)


def matvec(ctx: cl.Context, queue: cl.CommandQueue, width: int | None = None,
           height: int | None = None, local: int = 256, slices: tuple[int, ...] = SLICES,
           groups: str = "both", seed: int | None = None) -> list[Prepared]:
    """The whitepaper's ladder on a height x width matrix (its 60989 x 1100), each step launched
    as the whitepaper did (239 work-groups for listing 2, 60 for the others) and with enough
    work-groups to fill the device (``groups``: "whitepaper", "filled" or "both"), then the
    course's slice kernel at several slice widths."""
    if width is None:
        width, height = (1100, 6000) if small_sizes() else (1100, 60989)
    local = _local(queue, local)
    rng = _rng(seed)
    m_np = rng.uniform(-1, 1, (height, width)).astype(np.float32)
    v_np = rng.uniform(-1, 1, width).astype(np.float32)
    want = m_np.astype(np.float64) @ v_np.astype(np.float64)
    m, v, w = _in(ctx, m_np), _in(ctx, v_np), _out(ctx, 4 * height)
    nbytes = 4 * (width * height + width + height)
    configs = []
    for label, name, listing in MATVEC:
        if name == "mv_group_warp" and local < 64:
            continue
        rows_per_group = local if listing == 2 else 1
        filled = -(-height // rows_per_group)
        paper = filled if listing == 2 else WHITEPAPER_GROUPS
        if groups in ("whitepaper", "both"):
            configs.append((label, name, (), paper, "whitepaper", listing))
        if groups in ("filled", "both") and filled != paper:
            configs.append((label, name, (), filled, "filled", listing))
    for s in slices:
        if s <= local:
            configs.append((f"course: a slice of {s} per row", "mv_slices", (f"-DSLICE={s}",),
                            -(-height // (local // s)), "filled", 0))
    prepared = []
    for label, name, options, n_groups, launch_kind, listing in configs:
        knl = kernel(ctx, "matvec.cl", name, options)
        g = n_groups * local
        launch = launcher(queue, knl, (g,), (local,), m, v, np.uint32(width), np.uint32(height),
                          w, cl.LocalMemory(4 * local))
        prepared.append(Prepared(label, launch,
                                 _run_and_compare(queue, launch, w, height, want, label,
                                                  rtol=1e-4, atol=1e-3),
                                 bytes=nbytes, flops=2 * width * height,
                                 params={"width": width, "height": height, "groups": n_groups,
                                         "local_size": local, "launch": launch_kind,
                                         "listing": listing, "options": " ".join(options)},
                                 kernel=name))
    return prepared


def cupy_samples(cupy, fn: Callable[[], object], repeats: int, warmup: int = 3) -> list[float]:
    """Seconds of ``repeats`` calls of ``fn`` (a cupy operation) after ``warmup``, each timed with
    CUDA events on the current stream."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(cupy.cuda.get_elapsed_time(start, end) * 1e-3)
    return samples


def cublas_matvec(queue: cl.CommandQueue, width: int, height: int, repeats: int = 20,
                  seed: int | None = None) -> dict | None:
    """cuBLAS sgemv through cupy (``m @ v``), timed with CUDA events; None without cupy or an
    NVIDIA device."""
    cupy = _cupy_on(queue.device)
    if cupy is None:
        return None
    rng = _rng(seed)
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


# --------------------------------------------------------------------------------------------------
# The experiments for ``python -m helpers bench``, and the seeds' historical numbers.

def experiment(name: str, study: Callable[..., list[Prepared]], **params
               ) -> Callable[[cl.Context, cl.CommandQueue], dict]:
    def run(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
        left_out: list[dict] = []
        rows = measure(study(ctx, queue, **params), queue, left_out=left_out)
        return _result(name, rows, queue, left_out=left_out)
    return run


def matvec_experiment(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    prepared = matvec(ctx, queue)
    left_out: list[dict] = []
    rows = measure(prepared, queue, left_out=left_out)
    width, height = prepared[0].params["width"], prepared[0].params["height"]
    ref = cublas_matvec(queue, width, height)
    if ref is not None:
        rows.append(ref)
    floor = 4 * (width * height + width + height)
    return _result("matvec_ladder", rows, queue, width=width, height=height,
                   bytes=floor, source=display_path(STUDIES / "matvec.cl"), left_out=left_out)


# A small size of every study, for the device check (and the first size the tests try).
SMALL: dict[str, dict] = {
    "ilp": dict(items=[64, 200], rounds=40),
    "mlp": dict(floats_total=10000, items=[64, 320]),
    "strides": dict(n=4096),
    "layouts": dict(n=1000),
    "transpose": dict(width=100, height=70),
    "divergence": dict(n=37),
    "constant_memory": dict(n=1000),
    "fast_math": dict(n=1000, rounds=5),
    "reductions": dict(n=10001),
    "matvec": dict(width=300, height=77),
    "hotspot": dict(width=100, height=70, steps=4, per_launch=(1, 2)),
}

# Kernels whose wrong results are lessons of the course, and the devices they are wrong on (a piece
# of the platform version; None: any device, as a data race may show anywhere).
KNOWN_WRONG: dict[str, tuple[str | None, str]] = {
    "sum_local": ("PoCL", "PoCL miscompiles the interleaved tree reduction (wrong sums on 3.0, 3.1 "
                          "and 5.0; pocl issue #1390), which Oclgrind runs correctly"),
    "sum_local_two": ("PoCL", "PoCL miscompiles the interleaved tree reduction (wrong sums on 3.0, "
                              "3.1 and 5.0; pocl issue #1390), which Oclgrind runs correctly"),
    "sum_warp_unrolled": (None, "racy by design: it relies on work-items running in lock-step, "
                                "which OpenCL does not promise (Oclgrind reports the race)"),
    "mv_group_warp": (None, "racy by design: it relies on work-items running in lock-step, which "
                            "OpenCL does not promise (Oclgrind reports the race)"),
}


def known_wrong(kernel: str, dev: cl.Device) -> str | None:
    """Why ``kernel`` may give wrong results on ``dev`` as one of the course's lessons, or None."""
    if kernel not in KNOWN_WRONG:
        return None
    where, why = KNOWN_WRONG[kernel]
    return why if where is None or where in dev.platform.version else None


STUDY_EXPERIMENTS: dict[str, Callable[[cl.Context, cl.CommandQueue], dict]] = {
    "ilp": experiment("ilp", ilp),
    "mlp": experiment("mlp", mlp),
    "strides": experiment("strides", strides),
    "layouts": experiment("layouts", layouts),
    "transpose": experiment("transpose", transpose),
    "divergence": experiment("divergence", divergence),
    "constant_memory": experiment("constant_memory", constant_memory),
    "fast_math": experiment("fast_math", fast_math),
    "reductions": experiment("reductions", reductions),
    "sum_end_to_end": sum_end_to_end,
    "matvec_ladder": matvec_experiment,
    "hotspot": experiment("hotspot", hotspot),
}

# Timings the seeds report, for the charts' "then" beside "now".
def _history() -> dict:
    """The seeds' figures (helpers/data/history.json), with listing numbers as ints."""
    data = json.loads((Path(__file__).resolve().parent / "data" / "history.json").read_text())
    data.pop("about")
    data["matvec_ladder"]["ms"] = {int(k): v for k, v in data["matvec_ladder"]["ms"].items()}
    return data


HISTORY = _history()
