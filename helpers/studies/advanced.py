"""Notebook 15: atomics under contention, the histogram privatized, a sum in one pass, and one job
split across two devices by their measured speeds (kernels/studies/advanced.cl)."""

from __future__ import annotations

import time

import numpy as np
import pyopencl as cl

from ..exercises import rounded_up
from ..timing import environment, gb_per_s, small_sizes, time_kernel
from ..wording import plural
from .harness import (
    LeftOutKernel,
    Prepared,
    StudyMismatch,
    cupy_on,
    cupy_samples,
    fitting_local,
    in_turns,
    kernel,
    launcher,
    run_and_compare,
    seeded_rng,
    study_result,
    to_device,
    wall_queue,
    wall_row,
)
from .reduction import sum_end_to_end, sum_ints_data

mf = cl.mem_flags
FILE = "advanced.cl"


def _fill(dev: cl.Device, local: int, per_unit: int = 8) -> int:
    """Work-items for ``per_unit`` work-groups of ``local`` per compute unit."""
    return dev.max_compute_units * per_unit * local


def contention(ctx: cl.Context, queue: cl.CommandQueue, counters: tuple[int, ...] = (1, 32, 1024),
               rounds: int | None = None, local: int = 256) -> list[Prepared]:
    """Atomic increments per second as the work-items share fewer counters: every work-item adds
    one ``rounds`` times to counter ``gid % counters``, on global memory (``contend_global``) or
    in each work-group's local copy first (``contend_local``). ``params["atomics"]`` counts the
    increments of one launch."""
    rounds = rounds or (16 if small_sizes() else 64)
    local = fitting_local(queue, local)
    items = _fill(queue.device, local)
    dev_local = queue.device.local_mem_size
    prepared = []
    for c in counters:
        per_counter = np.bincount(np.arange(items) % c, minlength=c).astype(np.int64)
        want = per_counter * rounds
        counter = cl.Buffer(ctx, mf.READ_WRITE, 4 * c)
        for name in ("contend_global", "contend_local"):
            args = [counter, np.uint32(c), np.uint32(rounds)]
            if name == "contend_local":
                if 4 * c > dev_local:
                    continue
                args.append(cl.LocalMemory(4 * c))
            knl = kernel(ctx, FILE, name)
            launch = launcher(queue, knl, (items,), (local,), *args)
            where = "global" if name == "contend_global" else "local, then global"
            label = f"{where}: {plural(c, 'counter')}"
            prepared.append(Prepared(label, launch,
                                     run_and_compare(queue, launch, counter, c, want, label,
                                                     np.uint32, 0, 0),
                                     bytes=0, params={"counters": c, "rounds": rounds,
                                                      "work_items": items,
                                                      "atomics": items * rounds,
                                                      "memory": where.split(",")[0]},
                                     kernel=name))
    return prepared


def histogram_data(rng: np.random.Generator, n: int, nbins: int, spread: str) -> np.ndarray:
    """n values below nbins: ``uniform`` over the bins, or ``one value`` (every element the same:
    the worst contention)."""
    if spread == "one value":
        return np.full(n, nbins // 2, dtype=np.uint32)
    return rng.integers(0, nbins, n).astype(np.uint32)


HISTOGRAMS = (
    # label, kernel, sub-histograms per work-group
    ("one global atomic per element", "histogram_global", 0),
    ("privatized in local memory", "histogram_copies", 1),
    ("privatized, 8 copies per work-group", "histogram_copies", 8),
)


def histograms(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None, nbins: int = 256,
               spreads: tuple[str, ...] = ("uniform", "one value"), local: int = 256,
               seed: int | None = None) -> list[Prepared]:
    """The histogram of n values (2^24, 2^22 with small sizes) into nbins bins, three ways, on
    uniform data and on data of one value. GB/s count the 4n bytes of the data."""
    n = n or ((1 << 22) if small_sizes() else (1 << 24))
    local = fitting_local(queue, local)
    items = min(_fill(queue.device, local), rounded_up(n, local))
    rng = seeded_rng(seed)
    bins = cl.Buffer(ctx, mf.READ_WRITE, 4 * nbins)
    prepared = []
    for spread in spreads:
        data_np = histogram_data(rng, n, nbins, spread)
        want = np.bincount(data_np, minlength=nbins)
        data = to_device(ctx, data_np)
        for label, name, copies in HISTOGRAMS:
            if copies and 4 * copies * nbins > queue.device.local_mem_size:
                continue
            knl = kernel(ctx, FILE, name, (f"-DCOPIES={copies}",) if copies else ())
            launch = launcher(queue, knl, (items,), (local,), data, np.uint32(n), bins,
                              np.uint32(nbins), cl.LocalMemory(4 * max(copies, 1) * nbins))
            full = f"{label} ({spread})"
            prepared.append(Prepared(full, launch,
                                     run_and_compare(queue, launch, bins, nbins, want, full,
                                                     np.uint32, 0, 0),
                                     bytes=4 * n, params={"n": n, "nbins": nbins,
                                                          "spread": spread, "copies": copies,
                                                          "work_items": items},
                                     kernel=name))
    return prepared


def histogram_experiment(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                         repeats: int = 20, seed: int | None = 0) -> dict:
    """The histograms (kernel times, profiling events) and, on an NVIDIA GPU with cupy, cupy's
    ``bincount`` on the same uniform data (CUDA events), in one run; 2^26 values on a GPU."""
    from .harness import measure

    gpu = bool(queue.device.type & cl.device_type.GPU)
    n = n or (None if small_sizes() or not gpu else 1 << 26)
    prepared = histograms(ctx, queue, n, seed=seed)
    rows = measure(prepared, queue)
    n, nbins = prepared[0].params["n"], prepared[0].params["nbins"]
    cupy = cupy_on(queue.device)
    if cupy is not None:
        host = histogram_data(seeded_rng(seed), n, nbins, "uniform")   # the study's uniform data
        data = cupy.asarray(host)
        got = cupy.bincount(data, minlength=nbins).get()
        want = np.bincount(host, minlength=nbins)
        samples = cupy_samples(cupy, lambda: cupy.bincount(data, minlength=nbins), repeats)
        seconds = float(np.median(samples))
        rows.append({"label": f"cupy.bincount (cupy {cupy.__version__}) (uniform)",
                     "kernel": "cupy", "seconds": seconds, "min_seconds": float(min(samples)),
                     "max_seconds": float(max(samples)), "repeats": repeats, "bytes": 4 * n,
                     "gb_per_s": 4 * n / seconds / 1e9, "correct": bool(np.array_equal(got, want)),
                     "n": n, "nbins": nbins, "spread": "uniform"})
    return study_result("histogram", rows, queue, n=n, nbins=nbins)


def sum_single_pass(ctx: cl.Context, queue: cl.CommandQueue, n: int | None = None,
                    repeats: int = 20, seed: int | None = 0, loads: int = 4) -> dict:
    """The sum end to end in one pass (``sum_single_pass``: the work-groups' sums combined with
    one atomic each, the total read back), beside notebook 12's two-pass kernels and the
    libraries (:func:`~helpers.studies.reduction.sum_end_to_end`) on the same data, in one run.
    ``loads``: int4 loads a work-item issues at once (the kernel's LOADS)."""
    from ..timing import left_out_sentence

    n = n or ((1 << 22) if small_sizes() else (1 << 26))
    result = sum_end_to_end(ctx, queue, n, repeats, seed)
    src_np = sum_ints_data(seeded_rng(seed), n)
    total = int(src_np.sum(dtype=np.int64))
    local = fitting_local(queue, 256)
    g = min(_fill(queue.device, local), rounded_up(-(-n // 4), local))
    knl = kernel(ctx, FILE, "sum_single_pass", (f"-DLOADS={loads}",))
    if isinstance(knl, LeftOutKernel):
        print(left_out_sentence("sum_single_pass left out", knl.error))
        return result
    src = to_device(ctx, src_np)
    totals = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(2, np.int32))
    pinned = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, 4)
    host, _ = cl.enqueue_map_buffer(queue, pinned, cl.map_flags.READ | cl.map_flags.WRITE, 0,
                                    (1,), np.int32)
    # one kernel object per slot, its arguments set once: a call only enqueues (setting an
    # argument from Python costs microseconds that count here)
    slots = []
    for which in (0, 1):
        k = cl.Kernel(knl.program, "sum_single_pass")
        k.set_args(src, totals, np.uint32(n), np.uint32(which), cl.LocalMemory(4 * local))
        slots.append(k)
    state = {"which": 0}

    plain = wall_queue(queue)  # end to end on a queue that records no profiling times

    def once() -> int:
        which = state["which"]
        cl.enqueue_nd_range_kernel(plain, slots[which], (g,), (local,))
        # the read enqueued without waiting, then the queue finished: on the H100 a few
        # microseconds faster than a blocking read (results/history/sum-round-trip-nvidia-h100.json)
        cl.enqueue_copy(plain, host, totals, src_offset=4 * which, is_blocking=False)
        plain.finish()
        state["which"] = 1 - which
        return int(host[0])

    # the kernel alone first (profiling events); the end-to-end calls then go on alternating the
    # slots where it stopped, so each starts on a slot the launch before cleared
    kernel_t = _single_pass_kernel_time(queue, slots, g, local, state, repeats)
    queue.finish()
    # the total fits an int here (values in [-100, 100]); that is the kernel's contract
    row = wall_row(once, "course: sum_single_pass, end to end", total, repeats, 4 * n,
                   n=n, kernel="sum_single_pass", groups=g // local, loads=loads,
                   kernel_seconds=kernel_t,
                   kernel_gb_per_s=gb_per_s(4 * n, kernel_t))
    # what end to end costs beyond the data: a launch of no work and the same 4-byte read
    empty = kernel(ctx, FILE, "no_work")
    if not isinstance(empty, LeftOutKernel):
        empty.set_args(totals)

        def round_trip() -> int:
            cl.enqueue_nd_range_kernel(plain, empty, (local,), (local,))
            cl.enqueue_copy(plain, host, totals, src_offset=0, is_blocking=False)
            plain.finish()
            return 0
        result["rows"].append(wall_row(round_trip, "a launch of no work and a 4-byte read", 0,
                                       repeats, 0, n=0, kernel="no_work"))
    result["rows"].insert(0, row)
    cupy = cupy_on(queue.device)
    if cupy is not None:
        _against_cupy(cupy, result, row, once, src_np, total, repeats)
    result["experiment"] = "sum_single_pass"
    return result


def _against_cupy(cupy, result: dict, row: dict, once, src_np: np.ndarray, total: int,
                  repeats: int, rounds: int = 8) -> None:
    """The one pass and cupy.sum timed in turns (:func:`~helpers.studies.harness.in_turns`), so
    that neither is measured on a GPU the other has just left idle or warm: both rows' figures
    become these, and ``result["in_turns"]`` holds each round's medians and their ratio."""
    x = cupy.asarray(src_np)
    label = f"cupy.sum (cupy {cupy.__version__})"
    calls = {"ours": once, "cupy": lambda: int(x.sum(dtype=cupy.int64))}
    turns = in_turns(calls, rounds, repeats)
    cupy_row = next(r for r in result["rows"] if r["label"] == label)
    for r, key in ((row, "ours"), (cupy_row, "cupy")):
        r["correct"] = bool(r["correct"] and calls[key]() == total)  # still right after the turns
        taken = [t for one in turns[key] for t in one]
        seconds = float(np.median(taken))
        r.update(seconds=seconds, min_seconds=float(min(taken)), max_seconds=float(max(taken)),
                 repeats=len(taken), gb_per_s=gb_per_s(r["bytes"], seconds),
                 timed=f"in turns with the other, {plural(rounds, 'round')} of "
                       f"{plural(repeats, 'call')}")
    medians = {key: [float(np.median(one)) for one in turns[key]] for key in ("ours", "cupy")}
    result["in_turns"] = {"rounds": rounds, "repeats": repeats,
                          "ours_seconds": row["seconds"], "cupy_seconds": cupy_row["seconds"],
                          "ratio": cupy_row["seconds"] / row["seconds"],
                          "ours_per_round": medians["ours"], "cupy_per_round": medians["cupy"],
                          "ratio_per_round": [c / o for o, c in zip(medians["ours"],
                                                                     medians["cupy"], strict=True)]}


def _single_pass_kernel_time(queue: cl.CommandQueue, slots: list, g: int, local: int,
                             state: dict, repeats: int) -> float:
    """The kernel alone (profiling events), alternating its slot (``state``) as the end-to-end
    runs do."""
    def launch() -> cl.Event:
        knl = slots[state["which"]]
        state["which"] = 1 - state["which"]
        return cl.enqueue_nd_range_kernel(queue, knl, (g,), (local,))
    return time_kernel(launch, warmup=2, repeats=repeats).median


# --------------------------------------------------------------------------------------------------
# One job, two devices.

def shared_job_reference(x: np.ndarray, rounds: int) -> np.ndarray:
    """What ``shared_job`` computes, in closed form (float64): after r steps of c = c * A + B a
    chain holds A^r c + B (1 - A^r) / (1 - A)."""
    a, b = 0.999, 0.001
    ar = a ** rounds
    x = x.astype(np.float64)
    return sum(ar * (x + 0.125 * k) + b * (1 - ar) / (1 - a) for k in range(8))


class _Worker:
    """One device with its own context, queue (profiling on) and build of ``shared_job``."""

    def __init__(self, dev: cl.Device):
        from ..device import describe
        self.device = dev
        self.name = describe(dev)
        self.ctx = cl.Context([dev])
        self.queue = cl.CommandQueue(self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.knl = kernel(self.ctx, FILE, "shared_job")
        if isinstance(self.knl, LeftOutKernel):
            raise self.knl.error
        self.local = fitting_local(self.queue, 64)

    def enqueue(self, x: np.ndarray, rounds: int) -> tuple[list[tuple[str, cl.Event]], np.ndarray,
                                                            float]:
        """Copy in, run, copy out, all without waiting: the events, the output array (filled
        once they end), and the host clock at the first enqueue."""
        count = x.size
        out = np.empty(count, np.float32)
        xb = cl.Buffer(self.ctx, mf.READ_ONLY, max(4 * count, 4))
        yb = cl.Buffer(self.ctx, mf.WRITE_ONLY, max(4 * count, 4))
        t0 = time.perf_counter()
        events = [("copy in", cl.enqueue_copy(self.queue, xb, x, is_blocking=False))]
        g = rounded_up(max(count, 1), self.local)
        events.append(("kernel", self.knl(self.queue, (g,), (self.local,), xb, yb,
                                          np.uint32(count), np.uint32(rounds))))
        events.append(("copy out", cl.enqueue_copy(self.queue, out, yb, is_blocking=False)))
        self.queue.flush()
        return events, out, t0


def split_job(devices: list[cl.Device], n: int | None = None, rounds: int | None = None,
              seed: int | None = 0, repeats: int = 3) -> dict:
    """One job (``shared_job`` on n floats) on each device alone, then split across all of them
    in proportion to their speeds measured alone, each device with its own context and queue,
    all enqueued before any is waited for. Wall-clock seconds (best of ``repeats``); the split's
    commands as a timeline, each device's profiling clock placed on the host's clock at its first
    enqueue (devices' clocks are not one clock). Every result is compared with numpy."""
    n = n or ((1 << 18) if small_sizes() else (1 << 22))
    rounds = rounds or (64 if small_sizes() else 1024)
    x = seeded_rng(seed).uniform(-1, 1, n).astype(np.float32)
    want = shared_job_reference(x, rounds)
    workers = [_Worker(d) for d in devices]

    def best_run(ws: list[_Worker], slices: list[np.ndarray], label: str) -> tuple[float, list]:
        """The fastest of ``repeats`` runs after one that builds and warms up: all of ``ws``
        enqueued before any is waited for; the result checked. Its seconds and launches."""
        best = None
        for _ in range(repeats + 1):
            start = time.perf_counter()
            launched = [w.enqueue(s, rounds) for w, s in zip(ws, slices, strict=True)]
            for events, _, _ in launched:
                events[-1][1].wait()
            seconds = time.perf_counter() - start
            if best is None or seconds < best[0]:
                best = (seconds, launched)
        if not np.allclose(np.concatenate([out for _, out, _ in best[1]]), want, rtol=1e-4,
                           atol=1e-4):
            raise StudyMismatch(f"{label}: the result differs from numpy's")
        return best

    alone = [best_run([w], [x], w.name)[0] for w in workers]
    speed = [1.0 / s for s in alone]
    shares = [s / sum(speed) for s in speed]
    bounds = np.rint(np.cumsum([0.0] + shares) * n).astype(int)
    slices = [x[bounds[i]:bounds[i + 1]] for i in range(len(workers))]
    best, timeline = best_run(workers, slices, "the split")
    commands = []
    first = min(t0 for _, _, t0 in timeline)
    for k, (events, _, t0) in enumerate(timeline):
        base = events[0][1].profile.queued
        for what, ev in events:
            commands.append({"device": k, "what": what,
                             "start": t0 - first + (ev.profile.start - base) * 1e-9,
                             "end": t0 - first + (ev.profile.end - base) * 1e-9})
    rows = [{"label": f"{w.name} alone", "seconds": s, "share": 1.0, "correct": True}
            for w, s in zip(workers, alone, strict=True)]
    rows.append({"label": "split across " + " and ".join(w.name for w in workers),
                 "seconds": best, "shares": shares, "correct": True,
                 "ideal_seconds": 1.0 / sum(speed)})
    return {"experiment": "split_job", "n": n, "rounds": rounds, "rows": rows,
            "devices": [w.name for w in workers], "commands": commands,
            "environment": [environment(d) for d in devices]}


def two_devices(prefer: cl.Device | None = None) -> list[cl.Device]:
    """Two devices of this machine to share a job: ``prefer`` (the course's device) first, then the
    best-ranked device of another platform, in the course's order of choice (never Oclgrind, a
    simulator); one when there is no second."""
    from ..device import _rank, all_devices, builds_here, is_oclgrind
    # never a driver that builds nothing on this processor (pip's PoCL 3.0 on AMD Zen 5)
    devices = sorted((d for d in all_devices() if not is_oclgrind(d) and builds_here(d)),
                     key=_rank)
    first = prefer or devices[0]
    others = [d for d in devices if d.platform.int_ptr != first.platform.int_ptr]
    return [first] + others[:1]
