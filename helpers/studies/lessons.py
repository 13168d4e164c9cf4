"""Studies for lessons of the sources that the older studies leave out: where a private array
lives and what unrolling changes (notebook 06, ``kernels/studies/registers.cl``), the work-group
size and the driver's own choice (notebook 02), local-memory banks (notebook 09,
``banks.cl``), costly instructions and the rounding of a fused multiply-add (notebook 11), images
with normalized coordinates and linear filtering (notebook 03), and host and device working at
once (notebook 07; ``lessons.cl``).

Each study follows :mod:`helpers.studies`: a function returns :class:`~helpers.studies.Prepared`
kernels checked against numpy on fresh random data before they are timed; ``python -m helpers
bench`` runs them (:mod:`helpers.studies.experiments`); the tests run each at small sizes.
"""

from __future__ import annotations

import time

import numpy as np
import pyopencl as cl

from ..exercises import rounded_up
from ..exercises.spill_fix import TAPS, fir
from ..kernels import solution_file
from ..timing import environment, small_sizes
from .harness import (
    Prepared,
    StudyMismatch,
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
def registers(ctx: cl.Context, queue: cl.CommandQueue, channels: int | None = None,
              steps: int | None = None, seed: int | None = None) -> list[Prepared]:
    """The 8-tap filter of spill_fix four ways: its history in a ring indexed at run time, in an
    array shifted by loops that the compiler may unroll, the same with unrolling forbidden, and
    (where the solutions are present) in eight variables of their own."""
    channels = channels or ((1 << 14) if small_sizes() else (1 << 18))
    steps = steps or (64 if small_sizes() else 256)
    local = fitting_local(queue, 128)
    rng = seeded_rng(seed)
    x_np = rng.uniform(-1, 1, channels * steps).astype(np.float32)
    coef_np = rng.uniform(0.1, 1.0, TAPS).astype(np.float32)
    x, y, coef = to_device(ctx, x_np), device_output(ctx, x_np.nbytes), to_device(ctx, coef_np)
    want = fir(coef_np, steps, channels, x_np)
    variants = [("ring, indexed at t % 8", "fir_ring", ()),
                ("array shifted, unrolling forbidden", "fir_shift", ("-DNO_UNROLL",)),
                ("array shifted, the compiler's choice", "fir_shift", ())]
    prepared = []
    for label, name, options in variants:
        knl = kernel(ctx, "registers.cl", name, options)
        prepared.append(_fir_prepared(queue, knl, label, name, x, y, coef, channels, steps, local,
                                      want, options))
    solved = solution_file("spill_fix")
    if solved is not None:   # a graded day's copy of the course has no solutions
        knl = kernel(ctx, solved, "spill_fix")
        prepared.append(_fir_prepared(queue, knl, "eight variables (spill_fix's solution)",
                                      "spill_fix", x, y, coef, channels, steps, local, want, ()))
    return prepared


def _fir_prepared(queue, knl, label, name, x, y, coef, channels, steps, local, want, options
                  ) -> Prepared:
    launch = launcher(queue, knl, (rounded_up(channels, local),), (local,), x, y, coef,
                      np.uint32(channels), np.uint32(steps))
    return Prepared(label, launch,
                    run_and_compare(queue, launch, y, channels * steps, want, label,
                                     rtol=1e-5, atol=1e-5),
                    bytes=8 * channels * steps, flops=2 * TAPS * channels * steps,
                    params={"channels": channels, "steps": steps, "options": " ".join(options)},
                    kernel=name)


# --------------------------------------------------------------------------------------------------
# Notebook 02: the work-group size, and leaving it to the driver.

def work_group_sizes_for(dev: cl.Device, every: int = 32, up_to: int = 1024) -> list[int]:
    """1, 2, 4, 8 and 16, then every multiple of ``every`` up to ``up_to``, then powers of two up
    to the device's largest work-group."""
    top = int(dev.max_work_group_size)
    sizes = [s for s in (1, 2, 4, 8, 16) if s <= top]
    sizes += list(range(every, min(top, up_to) + 1, every))
    s = 2 * up_to
    while s <= top:
        sizes.append(s)
        s *= 2
    return sorted(set(sizes))


def work_group_sizes(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                     sizes: list[int] | None = None, seed: int | None = None) -> list[Prepared]:
    """y = a x + y at every work-group size of :func:`work_group_sizes_for` (or ``sizes``), and
    with the local size left to the driver (NULL). The global size is n rounded up to each."""
    n = n or ((1 << 20) if small_sizes() else (1 << 24))
    if sizes is None:
        sizes = work_group_sizes_for(queue.device, every=64 if small_sizes() else 32)
    rng = seeded_rng(seed)
    x_np = rng.uniform(-1, 1, n).astype(np.float32)
    y_np = rng.uniform(-1, 1, n).astype(np.float32)
    x, y = to_device(ctx, x_np), to_device(ctx, y_np)
    a = np.float32(1.5)
    knl = kernel(ctx, "lessons.cl", "saxpy")
    prepared = []
    for local in [*sizes, None]:
        label = "NULL (the driver's choice)" if local is None else f"{local}"
        gsize = (n,) if local is None else (rounded_up(n, local),)
        launch = launcher(queue, knl, gsize, None if local is None else (local,), x, y, a,
                          np.uint32(n))

        def verify(launch=launch, label=label) -> None:
            cl.enqueue_copy(queue, y, y_np)
            launch().wait()
            expect_close(read_back(queue, y, n), a * x_np + y_np, label, rtol=1e-5, atol=1e-5)

        prepared.append(Prepared(label, launch, verify, bytes=12 * n, flops=2 * n,
                                 params={"n": n, "local": local}, kernel="saxpy"))
    return prepared


# --------------------------------------------------------------------------------------------------
# Notebook 09: local-memory banks, the degree of a conflict and the broadcast.

BANK_STRIDES = (0, 1, 2, 4, 8, 16, 32, 33)


def conflict_degree(stride: int, banks: int = 32) -> int:
    """How many of a warp's 32 work-items reading word lid * stride fall in one bank (1: none;
    stride 0 is a broadcast of one word, which costs as little as no conflict)."""
    if stride == 0:
        return 1
    words = {(lid * stride) for lid in range(banks)}
    per_bank: dict[int, int] = {}
    for w in words:
        per_bank[w % banks] = per_bank.get(w % banks, 0) + 1
    return max(per_bank.values())


def banks(ctx: cl.Context, queue: cl.CommandQueue, items: int | None = None,
          reads: int | None = None, strides: tuple[int, ...] = BANK_STRIDES) -> list[Prepared]:
    """Every work-item reads ``reads`` words of a local tile at local id x stride (+ r), for each
    stride: the time per stride shows the cost of a k-way conflict, and of none at a broadcast."""
    items = items or ((1 << 14) if small_sizes() else (1 << 20))
    reads = reads or (64 if small_sizes() else 512)
    local = fitting_local(queue, 256)
    words = 1
    while words < local * 33 and 4 * words * 2 <= queue.device.local_mem_size:
        words *= 2
    tile = np.arange(words) % 7
    out = device_output(ctx, 4 * rounded_up(items, local))
    knl = kernel(ctx, "banks.cl", "local_stride")
    prepared = []
    for stride in strides:
        degree = conflict_degree(stride)
        label = (f"stride {stride}: broadcast" if stride == 0 else
                 f"stride {stride}: " + ("no conflict" if degree == 1 else f"{degree}-way"))
        gsize = rounded_up(items, local)
        launch = launcher(queue, knl, (gsize,), (local,), out, np.uint32(stride),
                          np.uint32(reads), cl.LocalMemory(4 * words), np.uint32(words - 1))
        # what a work-item reads depends on its local id alone: one group's sums, repeated (the
        # whole launch's words at once were 2^29 indices, 4 GB and a minute, at full size)
        at = (np.arange(local)[:, None] * stride + np.arange(reads)[None, :]) % words
        want = np.tile(tile[at].sum(axis=1).astype(np.float64), gsize // local)
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, out, gsize, want, label),
                                 bytes=4 * reads * gsize,
                                 params={"stride": stride, "degree": degree, "reads": reads,
                                         "items": gsize, "local": local},
                                 kernel="local_stride"))
    return prepared


# --------------------------------------------------------------------------------------------------
# Notebook 11: costly instructions.

def _divided(x: np.ndarray, rounds: int, d: int = 8) -> np.ndarray:
    v = x.astype(np.uint64)
    for r in range(rounds):
        v = (v // d + (v % d) * 1664525 + r) & 0xFFFFFFFF
    return v.astype(np.uint32)


def integer_division(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                     rounds: int | None = None, seed: int | None = None) -> list[Prepared]:
    """v / d and v % d, ``rounds`` times per element, with d = 8 given as an argument, written
    as the constant 8, and written as a shift and a mask."""
    n = n or ((1 << 18) if small_sizes() else (1 << 22))
    rounds = rounds or (32 if small_sizes() else 128)
    local = fitting_local(queue, 256)
    x_np = seeded_rng(seed).integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    x, y = to_device(ctx, x_np), device_output(ctx, 4 * n)
    want = _divided(x_np, rounds)
    prepared = []
    for label, option in (("v / d, v % d (d an argument)", "-DDIVIDE_BY_ARGUMENT"),
                          ("v / 8, v % 8 (a constant)", "-DDIVIDE_BY_CONSTANT"),
                          ("v >> 3, v & 7", "-DSHIFT_AND_MASK")):
        knl = kernel(ctx, "lessons.cl", "int_divide", (option,))
        launch = launcher(queue, knl, (rounded_up(n, local),), (local,), x, y, np.uint32(n),
                          np.uint32(8), np.uint32(rounds))
        prepared.append(Prepared(label, launch,
                                 run_and_compare(queue, launch, y, n, want, label,
                                                  dtype=np.uint32, rtol=0, atol=0),
                                 bytes=8 * n, params={"n": n, "rounds": rounds,
                                                      "options": option},
                                 kernel="int_divide"))
    return prepared


def product_error(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                  seed: int | None = None) -> dict:
    """What a * b loses when rounded to a float, p = a * b: computed as a * b - p with two
    roundings, and as fma(a, b, -p) with one; beside the exact value (in double precision, where
    the product of two floats is exact). Returns counts and the largest differences."""
    n = n or 100_000
    rng = seeded_rng(seed)
    a_np = rng.uniform(-1, 1, n).astype(np.float32)
    b_np = rng.uniform(-1, 1, n).astype(np.float32)
    a, b = to_device(ctx, a_np), to_device(ctx, b_np)
    separate, fused = device_output(ctx, 4 * n), device_output(ctx, 4 * n)
    knl = kernel(ctx, "lessons.cl", "product_error")
    knl(queue, (rounded_up(n, 64),), (64,), a, b, separate, fused, np.uint32(n)).wait()
    sep, fma = read_back(queue, separate, n), read_back(queue, fused, n)
    exact = a_np.astype(np.float64) * b_np - (a_np * b_np).astype(np.float64)
    return {"n": n, "exact_nonzero": int(np.count_nonzero(exact)),
            "separate_nonzero": int(np.count_nonzero(sep)),
            "fused_nonzero": int(np.count_nonzero(fma)),
            "separate_largest_miss": float(np.abs(sep - exact).max()),
            "fused_largest_miss": float(np.abs(fma - exact).max()),
            "fused_exact": int(np.count_nonzero(fma.astype(np.float64) == exact)),
            "environment": environment(queue.device)}


# --------------------------------------------------------------------------------------------------
# Notebook 03: images beyond clamping.

def bilinear_reference(img: np.ndarray, width: int, height: int) -> np.ndarray:
    """What CLK_FILTER_LINEAR with normalized coordinates and CLAMP_TO_EDGE returns at the
    centres of a width x height grid laid over ``img`` (the OpenCL specification's formula)."""
    h0, w0 = img.shape
    u = (np.arange(width) + 0.5) / width * w0 - 0.5
    v = (np.arange(height) + 0.5) / height * h0 - 0.5
    i0, j0 = np.floor(u).astype(int), np.floor(v).astype(int)
    a, b = u - i0, v - j0
    i1, j1 = np.clip(i0 + 1, 0, w0 - 1), np.clip(j0 + 1, 0, h0 - 1)
    i0, j0 = np.clip(i0, 0, w0 - 1), np.clip(j0, 0, h0 - 1)
    t = img.astype(np.float64)
    return ((1 - b)[:, None] * ((1 - a)[None, :] * t[j0][:, i0] + a[None, :] * t[j0][:, i1])
            + b[:, None] * ((1 - a)[None, :] * t[j1][:, i0] + a[None, :] * t[j1][:, i1]))


def images(ctx: cl.Context, queue: cl.CommandQueue, side: int | None = None, scale: int = 4,
           rows: int | None = None, cols: int | None = None, seed: int | None = None) -> dict:
    """An image scaled up ``scale`` times by the sampler's linear filtering (against numpy's
    bilinear interpolation), and the dot products of a matrix held in an RGBA image whose reads
    past the edge return 0 (against numpy). Returns the results and their largest errors."""
    side = side or 32
    rows = rows or 300
    cols = cols or 1001   # not a multiple of 8: the last texel pair reaches past the image
    rng = seeded_rng(seed)
    src_np = rng.uniform(0, 1, (side, side)).astype(np.float32)
    fmt = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
    src = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(side, side), hostbuf=src_np)
    width = height = side * scale
    dst = device_output(ctx, 4 * width * height)
    up = kernel(ctx, "lessons.cl", "upscale_linear")
    up(queue, (width, height), None, src, dst, np.uint32(width), np.uint32(height)).wait()
    got = read_back(queue, dst, width * height).reshape(height, width)
    want = bilinear_reference(src_np, width, height)

    texels = -(-cols // 4)
    m_np = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    padded = np.zeros((rows, 4 * texels), np.float32)
    padded[:, :cols] = m_np
    rgba = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
    m = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, rgba, shape=(texels, rows),
                        hostbuf=np.ascontiguousarray(padded))
    v_np = np.zeros(rounded_up(4 * texels, 8), np.float32)
    v_np[:cols] = rng.uniform(-1, 1, cols).astype(np.float32)
    v, w = to_device(ctx, v_np), device_output(ctx, 4 * rows)
    dot = kernel(ctx, "lessons.cl", "image_row_dot")
    dot(queue, (rounded_up(rows, 64),), (64,), m, v, w, np.uint32(rows), np.uint32(texels)).wait()
    w_got = read_back(queue, w, rows)
    w_want = m_np.astype(np.float64) @ v_np[:cols].astype(np.float64)
    expect_close(w_got, w_want, "image_row_dot", rtol=1e-4, atol=1e-3)
    return {"source": src_np, "scaled": got, "reference": want,
            "upscale_largest_error": float(np.abs(got - want).max()),
            "dot_largest_error": float(np.abs(w_got - w_want).max()), "rows": rows, "cols": cols,
            "texels": texels, "environment": environment(queue.device)}


# --------------------------------------------------------------------------------------------------
# Notebook 07: the host and the device busy at once.

DEGREE = 32


def polynomial_reference(x: np.ndarray, degree: int = DEGREE) -> np.ndarray:
    """Horner's rule for sum_k x^k / (k + 1) in float32, as numpy computes it on the host."""
    v = np.zeros_like(x)
    for k in range(degree, -1, -1):
        v = v * x + np.float32(1.0 / (k + 1))
    return v


def split_work(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
               shares: tuple[float, ...] | None = None, repeats: int = 5,
               seed: int | None = None) -> dict:
    """y = a polynomial of x for n floats: all on the device, all on the host (numpy), and split,
    the device taking a share while the host computes the rest at the same time. The balanced
    share comes from the two measured rates. Wall-clock times, the device's part read back."""
    n = n or ((1 << 20) if small_sizes() else (1 << 23))
    local = fitting_local(queue, 256)
    x_np = seeded_rng(seed).uniform(-1, 1, n).astype(np.float32)
    y_np = np.empty_like(x_np)
    x, y = to_device(ctx, x_np), device_output(ctx, 4 * n)
    knl = kernel(ctx, "lessons.cl", "polynomial")
    want = polynomial_reference(x_np)

    def run(share: float) -> float:
        k = int(n * share)
        t0 = time.perf_counter()
        copied = None
        if k:
            done = knl(queue, (rounded_up(k, local),), (local,), x, y, np.uint32(k))
            copied = cl.enqueue_copy(queue, y_np[:k], y, wait_for=[done], is_blocking=False)
            queue.flush()
        if k < n:
            y_np[k:] = polynomial_reference(x_np[k:])
        if copied is not None:
            copied.wait()
        return time.perf_counter() - t0

    def best(share: float) -> float:
        """The median wall time of this split, its first result checked against numpy."""
        run(share)   # warm up
        if not np.allclose(y_np, want, rtol=1e-4, atol=1e-5):
            raise StudyMismatch(f"device {share:.0%}: the split result differs from numpy")
        return float(np.median([run(share) for _ in range(repeats)]))

    device_s, host_s = best(1.0), best(0.0)
    balanced = host_s / (host_s + device_s)   # each side's time equal: k/dev_rate = (n-k)/host_rate
    rows = []
    for label, share in [("device alone", 1.0), ("host alone (numpy)", 0.0),
                         *[(f"device {s:.0%}, host the rest", s) for s in (shares or ())],
                         (f"balanced: device {balanced:.0%}, host the rest", balanced)]:
        seconds = device_s if share == 1.0 else host_s if share == 0.0 else best(share)
        rows.append({"label": label, "device_share": share, "seconds": seconds})
    return {"n": n, "rows": rows, "environment": environment(queue.device)}
