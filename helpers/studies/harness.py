"""The harness every study uses: a kernel of ``kernels/studies/`` built once per context, buffers
made from numpy arrays, a verify step that compares a kernel's first result with numpy, and
:func:`measure`, which turns prepared kernels into rows (label, seconds, GB/s, GFLOP/s, correct or
why not). Also the CuPy baselines' plumbing (:func:`cupy_on`, :func:`cupy_samples`).
:mod:`.sgemm` and :mod:`.lessons` build on it too."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyopencl as cl

from ..driver_probe import KernelLeftOut
from ..kernels import KERNELS, KernelBuildError, build_file
from ..timing import environment, gb_per_s, gflop_per_s, time_kernel, timed
from ..wording import plural

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


def to_device(ctx: cl.Context, host: np.ndarray) -> cl.Buffer:
    return cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ascontiguousarray(host))


def device_output(ctx: cl.Context, nbytes: int) -> cl.Buffer:
    return cl.Buffer(ctx, mf.READ_WRITE, max(int(nbytes), 4))


def read_back(queue: cl.CommandQueue, buf: cl.Buffer, count: int, dtype=np.float32) -> np.ndarray:
    host = np.empty(count, dtype=dtype)
    cl.enqueue_copy(queue, host, buf)
    return host


def expect_close(got: np.ndarray, want: np.ndarray, what: str, rtol: float = 1e-5,
                  atol: float = 1e-6) -> None:
    want = np.asarray(want).ravel()
    got = np.asarray(got).ravel()
    bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        wrong = int(bad.sum())
        raise StudyMismatch(f"{what}: {wrong} of {plural(got.size, 'value')} "
                            f"{'differs' if wrong == 1 else 'differ'} from numpy, "
                            f"the first at [{i}]: expected {want[i]!r}, got {got[i]!r}")


def run_and_compare(queue: cl.CommandQueue, launch: Callable[[], cl.Event], out: cl.Buffer,
                     count: int, want: np.ndarray, what: str, dtype=np.float32,
                     rtol: float = 1e-5, atol: float = 1e-6) -> Callable[[], np.ndarray]:
    """A verify function: run once on a cleared output, compare, return what the kernel wrote."""
    def verify() -> np.ndarray:
        cl.enqueue_fill_buffer(queue, out, np.zeros(1, dtype), 0, count * np.dtype(dtype).itemsize)
        launch().wait()
        got = read_back(queue, out, count, dtype)
        expect_close(got, want, what, rtol, atol)
        return got
    return verify


def fitting_local(queue: cl.CommandQueue, wanted: int) -> int:
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

    from ..timing import left_out_sentence

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


def study_result(name: str, rows: list[dict], queue: cl.CommandQueue, **params) -> dict:
    return {"experiment": name, **params, "rows": rows, "environment": environment(queue.device)}


def experiment(name: str, study: Callable[..., list[Prepared]], **params
               ) -> Callable[[cl.Context, cl.CommandQueue], dict]:
    """A bench experiment: ``study`` prepared with ``params``, measured, as a result dict."""
    def run(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
        left_out: list[dict] = []
        rows = measure(study(ctx, queue, **params), queue, left_out=left_out)
        return study_result(name, rows, queue, left_out=left_out)
    return run


def seeded_rng(seed: int | None) -> np.random.Generator:
    return np.random.default_rng(seed)

def cupy_on(dev: cl.Device):
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


def wall_queue(queue: cl.CommandQueue) -> cl.CommandQueue:
    """A queue on ``queue``'s context and device that records no profiling times, for work timed
    end to end by the host's clock: on the H100 a profiled queue adds about 0.01 ms to a launch
    and a read (results/history/sum-round-trip-nvidia-h100.json), which no events are there to use. The
    queue itself when it does not profile."""
    if not queue.properties & cl.command_queue_properties.PROFILING_ENABLE:
        return queue
    return cl.CommandQueue(queue.context, queue.device)


def in_turns(calls: dict[str, Callable[[], object]], rounds: int = 8, repeats: int = 20,
             warmup: int = 2, warm_s: float = 0.25) -> dict[str, list[list[float]]]:
    """Wall-clock seconds (time.perf_counter) of contenders that take turns, so that whatever
    drifts during a run (a GPU's clocks, another context's state, the host) falls on all alike.
    First every contender is called in turn for ``warm_s`` seconds: a GPU at rest raises its
    clocks only under load. Then ``rounds`` rounds: in each, every contender in turn makes
    ``warmup`` calls that are not timed (the first after another's work pays for the switch) and
    ``repeats`` that are; every other round takes them in the opposite order, so none always
    follows the same one. Returns each label's samples, one list per round."""
    order = list(calls)
    end = time.perf_counter() + warm_s
    while True:
        for fn in calls.values():
            fn()
        if time.perf_counter() >= end:
            break
    samples: dict[str, list[list[float]]] = {label: [] for label in order}
    for r in range(rounds):
        for label in order if r % 2 == 0 else order[::-1]:
            fn = calls[label]
            for _ in range(warmup):
                fn()
            taken = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                fn()
                taken.append(time.perf_counter() - t0)
            samples[label].append(taken)
    return samples


def wall_row(fn: Callable[[], object], label: str, answer, repeats: int, nbytes: int,
             **extra) -> dict:
    """A row of wall-clock seconds (time.perf_counter, the median of ``repeats`` calls of ``fn``
    after one that warms up and whose result is compared with ``answer``): for work measured end
    to end, host included, where profiling events would leave out the host's part."""
    got = fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    seconds = float(np.median(samples))
    return {"label": label, "seconds": seconds, "min_seconds": float(min(samples)),
            "max_seconds": float(max(samples)), "repeats": repeats, "bytes": nbytes,
            "gb_per_s": gb_per_s(nbytes, seconds), "correct": bool(np.all(got == answer)),
            **extra}
