"""The course's measurements: the start-up profile of a small OpenCL program (where the time goes,
after Du et al. 2011, Fig. 3), the device's peaks, the sweeps of the notebooks, and the experiments
``python -m helpers bench`` runs and records in results/ (what the course reads: results/reference/).
The timing primitives are in :mod:`helpers.timing` (and reachable here, as ``bench.time_kernel``).

Every result carries its provenance (:func:`environment`): device, driver, versions and the date.
Timings are measurements to show and record, never assertions.
"""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path

import numpy as np
import pyopencl as cl

from .device import choose_device
from .driver_probe import KernelLeftOut
from .kernels import KernelBuildError
from .measure.peaks import (  # noqa: F401  (the notebooks' bench.peaks, bench.share, ...)
    PEAK_WIDTHS,
    PEAKS_CACHE,
    Share,
    best_of,
    measure_peaks,
    peaks,
    ridge_point,
    share,
    table,
    vector_name,
    when,
)
from .paths import RESULTS
from .timing import (  # noqa: F401  (the notebooks' bench.time_kernel, bench.gb_per_s, ...)
    SMALL_VARIABLE,
    Timing,
    environment,
    event_seconds,
    gb_per_s,
    gflop_per_s,
    left_out_sentence,
    small_sizes,
    time_kernel,
    timed,
)

# --------------------------------------------------------------------------------------------------
# Start-up profile: what a first OpenCL program spends its time on.

PROFILE_STAGES = (
    "platforms, context, queue",
    "build from source",
    "build from source again",
    "build from saved binary",
    "kernel object",
    "copy to device",
    "first launch",
    "kernel (median)",
    "copy to host",
)
STAGE_KINDS = {"set-up": PROFILE_STAGES[:5], "transfer": (PROFILE_STAGES[5], PROFILE_STAGES[8]),
               "execution": PROFILE_STAGES[6:8]}


def _profile_here(dev_pattern, n: int) -> dict:
    """The profile, measured in this process (call it in a fresh one: see :func:`startup_profile`);
    ``dev_pattern``: a piece of a device name, or the DeviceSpec the parent chose."""
    from .device import DeviceSpec, find_device
    from .kernels import kernel_path

    stages: list[dict] = []

    def stage(name: str, seconds: float, device_seconds: float | None = None) -> None:
        kind = next(k for k, names in STAGE_KINDS.items() if name in names)
        stages.append({"stage": name, "kind": kind, "seconds": seconds,
                       "device_seconds": device_seconds})

    t = time.perf_counter()
    dev = find_device(dev_pattern) if isinstance(dev_pattern, DeviceSpec) else \
        choose_device(dev_pattern)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
    stage(PROFILE_STAGES[0], time.perf_counter() - t)

    # A comment no build has seen yet: the first build compiles for real (no cache, pyopencl's or
    # the driver's, can know it). The second build of the same source meets whatever cache the
    # driver keeps; the third starts from the binary the first produced, as Du et al. did.
    source = kernel_path("float_copy", solutions=True).read_text()
    source += f"\n// start-up profile {secrets.token_hex(8)}\n"
    t = time.perf_counter()
    first = cl.Program(ctx, source).build()
    stage(PROFILE_STAGES[1], time.perf_counter() - t)
    how_built = first._build_duration_info[0] if hasattr(first, "_build_duration_info") else None
    t = time.perf_counter()
    cl.Program(ctx, source).build()
    stage(PROFILE_STAGES[2], time.perf_counter() - t)
    binary = first.get_info(cl.program_info.BINARIES)[0]
    t = time.perf_counter()
    prg = cl.Program(ctx, [dev], [binary]).build()
    stage(PROFILE_STAGES[3], time.perf_counter() - t)
    t = time.perf_counter()
    knl = cl.Kernel(prg, "float_copy")
    stage(PROFILE_STAGES[4], time.perf_counter() - t)

    rng = np.random.default_rng()
    src_np = rng.uniform(-1, 1, n).astype(np.float32)
    dst_np = np.empty_like(src_np)
    mf = cl.mem_flags
    t = time.perf_counter()
    src_g = cl.Buffer(ctx, mf.READ_ONLY, src_np.nbytes)
    dst_g = cl.Buffer(ctx, mf.WRITE_ONLY, src_np.nbytes)
    ev = cl.enqueue_copy(queue, src_g, src_np)
    ev.wait()
    stage(PROFILE_STAGES[5], time.perf_counter() - t, event_seconds(ev))

    local = min(256, dev.max_work_group_size)
    global_size = (-(-n // local) * local,)

    def launch() -> cl.Event:
        return knl(queue, global_size, (local,), src_g, dst_g, np.uint32(n))

    t = time.perf_counter()
    ev = launch()
    ev.wait()
    stage(PROFILE_STAGES[6], time.perf_counter() - t, event_seconds(ev))
    timing = time_kernel(launch, warmup=1, repeats=10)
    stage(PROFILE_STAGES[7], timing.median, timing.median)

    t = time.perf_counter()
    ev = cl.enqueue_copy(queue, dst_np, dst_g)
    ev.wait()
    stage(PROFILE_STAGES[8], time.perf_counter() - t, event_seconds(ev))
    assert np.array_equal(dst_np, src_np), "the start-up profile's copy kernel copied wrongly"
    return {"experiment": "startup_profile", "n": n, "bytes": int(src_np.nbytes),
            "binary_bytes": len(binary), "pyopencl_build": how_built,
            "stages": stages, "environment": environment(dev)}


def startup_profile(device: str | None = None, n: int | None = None, *,
                    in_process: bool = False) -> dict:
    """Where the time of a small OpenCL program goes: set-up, build, transfers, kernel.

    By default it runs in a fresh Python process, so that the set-up is measured cold, as a
    program's first start pays it.

    :arg device: a piece of a device name (default: the course device).
    :arg n: floats to copy (default 2^22, or 2^18 with the small-size switch).
    """
    if n is None:
        n = 1 << 18 if small_sizes() else 1 << 22
    if in_process:
        return _profile_here(device, n)
    from . import workers
    from .device import DeviceSpec
    spec = DeviceSpec.of(choose_device(device))
    said: dict = {}
    out = workers.run_once(workers.Key("profile", json.dumps(spec.to_json())), {"n": n},
                         timeout=300.0, on_event=said.update)
    if "result" not in said:
        raise RuntimeError(f"The start-up profile failed:\n{out.output.strip()}")
    return said["result"]


def warm(device, emit):
    """The child's start (see :mod:`helpers.workers`, task ``profile``): nothing, so that the
    profile's set-up is measured cold, in the request."""
    return lambda req, emit: emit(result=_profile_here(device, req["n"]))


def steps(rows: list[dict], peak: dict | None = None, ctx: cl.Context | None = None,
          queue: cl.CommandQueue | None = None, *, kind: str | None = "compute",
          width: int = 56) -> str:
    """Timed rows as a table: each row's median time with its spread (fastest-slowest run), its
    rate (``kind`` ``compute``: GFLOP/s, ``bandwidth``: GB/s, None: time only), its share of
    ``peak`` when given (measured again first where a row beats it: :func:`share`), and its speed
    against the row above when both do the same work (bytes and flops), or "within the spread"
    when their runs overlap. A row marked wrong on
    this device (``correct`` False) says so."""
    from .timing import against, spread

    key, unit = {"compute": ("gflop_per_s", "GFLOP/s"), "bandwidth": ("gb_per_s", "GB/s"),
                 None: (None, "")}[kind]
    lines = []
    for i, r in enumerate(rows):
        lo, hi = spread(r)
        text = f"{r['label'][:width]:{width}} {r['seconds'] * 1e3:9.3f} ms ({lo * 1e3:.3g}-{hi * 1e3:.3g})"
        if key:
            text += f" {r[key]:10.1f} {unit}"
            if peak:
                s = share(r[key], kind, peak, ctx, queue)
                text += f" {s.short():>14}" + ("" if s.failed else " of peak")
        before = rows[i - 1] if i else None
        if before is not None and all(before.get(k) == r.get(k) for k in ("bytes", "flops")):
            text += f"  {against(r, before)}"   # only rows doing the same work
        if not r.get("correct", True):
            text += "  WRONG on this device"
        lines.append(text)
    return "\n".join(lines)


def load_result(name: str) -> dict:
    """A measured reference result from results/reference/ (``startup-profile-nvidia-h100``, ...)."""
    return json.loads((RESULTS / f"{name}.json").read_text())


def reference_verdict(name: str, result: str = "checks-nvidia-h100") -> str:
    """The recorded check of exercise ``name``'s solution (with its speed lines) on the reference
    device of ``results/reference/RESULT.json``, framed and labelled as the course's reference, not
    the learner's outcome: a notebook prints it apart from the learner's own check."""
    rec = next(r for r in load_result(result)["checks"]
               if r["exercise"] == name and r["kernel"] == f"solutions/{name}.cl")
    env = rec.get("environment", {})
    where = rec["message"].splitlines()[0].split(" on ", 1)[-1].split(" (")[0]
    dated = env.get("date", "")[:10]
    title = (f"Reference, not your kernel: the course's solutions/{name}.cl checked on {where}"
             + (f" ({dated}, results/reference/{result}.json)" if dated
                else f" (results/reference/{result}.json)"))
    # the recorded check took the solution for a learner's kernel: "Yours" there is the solution
    body = [line.strip().replace("Yours (", "The solution, checked as a learner's kernel (", 1)
            for line in rec["message"].splitlines()[1:]]
    return "\n".join([f"┌ {title}", *(f"│ {line}" for line in body), "└"])


# --------------------------------------------------------------------------------------------------
# Timing an exercise's kernel with the record's own buffers.

def moved_bytes(ex, case) -> int:
    """The bytes a kernel of this exercise must move at least: inputs read once, outputs written
    once, buffers updated in place both."""
    from .exercises import Buffer
    total = 0
    for arg in ex.args:
        if isinstance(arg, Buffer):
            size = arg.length(case) * np.dtype(arg.dtype).itemsize
            total += 2 * size if arg.role == "inout" else size
    return total


def time_exercise(ctx: cl.Context, queue: cl.CommandQueue, name: str, case, *,
                  kernel: str | Path | None = None, warmup: int = 2, repeats: int = 10,
                  seed: int | None = None, verify: bool = True,
                  references: dict | None = None, source: str | None = None,
                  budget_s: float | None = None) -> dict:
    """Time exercise ``name``'s kernel on ``case`` (an :class:`~helpers.exercises.Case`), checking
    the first launch's output against the reference (``verify``). Default kernel: the learner's
    once it has passed its check, the solution until then. ``references``: a dict that keeps the
    reference's outputs between calls on the same case and seed (timing several kernels of one
    exercise, numpy's answer on a large case is computed once). ``source``: the kernel's text, when
    it was read already (a learner's kernel is built from the text the check read, never the file
    again). ``budget_s``: the seconds the timed runs may take, judged from the first launch; a
    kernel slower than that gets fewer runs (at least 3) and no further warm-up (the first launch
    warmed it): on a CPU the slow kernel an exercise starts from took most of a check's time."""
    from .exercises import LocalMem, Scalar, get
    from .exercises.passed import kernel_to_measure
    from .kernels import build_file, build_source, display_path

    ex = get(name)
    path = Path(kernel) if kernel is not None else kernel_to_measure(name)
    prg = build_source(ctx, source, path) if source is not None else build_file(ctx, path,
                                                                                  reuse=True)
    knl = cl.Kernel(prg, ex.function)
    rng = np.random.default_rng(seed)
    inputs = ex.make_inputs(case, rng)
    mf = cl.mem_flags
    args, outs = [], {}
    for arg in ex.args:
        if isinstance(arg, (Scalar, LocalMem)):
            args.append(arg.kernel_arg(case))
        else:
            host = (inputs[arg.name].astype(arg.dtype).ravel() if arg.role != "out"
                    else np.zeros(arg.length(case), dtype=arg.dtype))
            buf_g = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
            args.append(buf_g)
            if arg.role != "in":
                outs[arg.name] = (buf_g, host)

    first = knl(queue, case.global_size, case.local_size, *args)
    first.wait()
    expected = {}
    if verify:
        key = (ex.reference, case.key(), seed)
        if references is None or key not in references:
            expected = ex.reference(case, {k: v.copy() for k, v in inputs.items()})
            if references is not None and seed is not None:
                references[key] = expected
        else:
            expected = references[key]
    for out_name, (buf_g, host) in outs.items() if verify else ():  # the first result must be right
        got = np.empty_like(host)
        cl.enqueue_copy(queue, got, buf_g)
        if not np.allclose(got, expected[out_name].ravel(), rtol=max(ex.compare.rtol, 1e-5),
                           atol=max(ex.compare.atol, 1e-6)):
            raise AssertionError(f"{display_path(path)} gave wrong results for {case.label()}: "
                                 f"run check({name!r}) to see why")
    if budget_s is not None:
        once = (first.profile.end - first.profile.start) * 1e-9
        if once * (warmup + repeats) > budget_s:
            warmup, repeats = 0, max(3, min(repeats, int(budget_s / max(once, 1e-9))))
    timing = time_kernel(lambda: knl(queue, case.global_size, case.local_size, *args),
                         warmup=warmup, repeats=repeats)
    nbytes = moved_bytes(ex, case)
    return {"exercise": name, "kernel": display_path(path), "case": case.to_json(),
            **timed(timing), "bytes": nbytes, "gb_per_s": gb_per_s(nbytes, timing.median)}


def throughput_sweep(ctx: cl.Context, queue: cl.CommandQueue, name: str = "sum_ints",
                     sizes: list[int] | None = None, *, local_size: int = 256,
                     progress: bool = True) -> dict:
    """GB/s of a 1-D exercise kernel (``n`` elements) as n grows: small launches are dominated
    by the fixed cost of a launch, large ones approach the memory bandwidth."""
    from tqdm.auto import tqdm

    from .exercises import Case, rounded_up

    if sizes is None:
        top = 22 if small_sizes() else 26
        sizes = [1 << k for k in range(10, top + 1, 2)]
    local = min(local_size, queue.device.max_work_group_size)
    points = []
    for n in tqdm(sizes, f"{name} sweep", disable=not progress, delay=1.0, leave=False):
        case = Case((rounded_up(n, local),), (local,), {"n": n})
        points.append({"n": n, **time_exercise(ctx, queue, name, case, repeats=5)})
    return {"experiment": "throughput_sweep", "exercise": name, "points": points,
            "environment": environment(queue.device)}


def matrix_vector_sweep(ctx: cl.Context, queue: cl.CommandQueue, repeats: list[int] | None = None,
                        rows: int | None = None, cols: int | None = None, *,
                        progress: bool = True) -> dict:
    """Data and computational throughput of ``matrix_vector`` as a function of the repeat count:
    the bytes stay the same, the work grows with repeat (2 flops per element per round)."""
    from tqdm.auto import tqdm

    from .exercises import two_d_case

    if repeats is None:
        repeats = [1, 2, 4, 8, 16, 32, 64, 128, 256] + ([] if small_sizes() else [512, 1024])
    if rows is None:
        rows, cols = (1024, 1024) if small_sizes() else (4096, 4096)
    lx, ly = (32, 8) if queue.device.max_work_group_size >= 256 else (16, 4)
    points = []
    for k, rep in enumerate(tqdm(repeats, "matrix_vector sweep", disable=not progress, delay=1.0,
                                 leave=False)):
        case = two_d_case(cols, rows, (lx, ly), {"rows": rows, "cols": cols, "repeat": rep})
        # the same kernel at every point: numpy's reference is checked at the first only
        r = time_exercise(ctx, queue, "matrix_vector", case, warmup=1, repeats=5, verify=k == 0)
        flops = 2 * rep * rows * cols
        points.append({"repeat": rep, **r, "flops": flops,
                       "gflop_per_s": gflop_per_s(flops, r["seconds"]),
                       "flop_per_byte": flops / r["bytes"]})
    return {"experiment": "matrix_vector_sweep", "rows": rows, "cols": cols, "points": points,
            "crossover_repeat": crossover(points), "environment": environment(queue.device)}


def crossover(points: list[dict]) -> float | None:
    """The repeat count where the measured time stops being flat (memory-bound) and starts to
    grow with the work (compute-bound): the flat floor of the first points divided by the slope of
    the last two. None when the sweep never leaves the floor."""
    if len(points) < 3:
        return None
    floor = float(np.median([p["seconds"] for p in points[:2]]))
    a, b = points[-2], points[-1]
    slope = (b["seconds"] - a["seconds"]) / (b["repeat"] - a["repeat"])
    if slope <= 0 or b["seconds"] < 1.5 * floor:
        return None
    return floor / slope


# --------------------------------------------------------------------------------------------------
# Every measured experiment of the notebooks, in one run: ``python -m helpers bench``.

def erosion_timings(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    """The erosion exercises of notebook 03 timed side by side (the solutions, or the learner's
    kernels once they have passed), each on the launch its record names (``bench_cases``)."""
    from .exercises import exercises

    rows, left_out = [], []
    for ex in exercises():
        if ex.teaching.notebook != "03-local-memory" or ex.bench_cases is None:
            continue
        case = get_bench_case(ex.name)
        try:
            rows.append(time_exercise(ctx, queue, ex.name, case))
        except (KernelLeftOut, KernelBuildError) as e:
            left_out.append(left_out_sentence(f"{ex.name} left out of the timings", e))
            print(left_out[-1])
    return {"experiment": "erosion_timings", "rows": rows, "left_out": left_out,
            "environment": environment(queue.device)}


def erosion_radii(ctx: cl.Context, queue: cl.CommandQueue,
                  radii: tuple[int, ...] = (8, 32, 128)) -> dict:
    """Notebook 03's two 1-D erosions (the learner's kernels once passed, the solutions until then)
    timed at each radius of ``radii`` on the bench's launch (2^24 floats, 2^18 with small sizes,
    work-groups of 256): where a tile that reads each element once starts to beat windows that
    read ``2 * radius + 1`` elements each through the caches."""
    from .exercises import Case

    base = get_bench_case("erosion_1d")
    rows = []
    for radius in radii:
        case = Case(base.global_size, base.local_size, {**base.params, "radius": radius})
        for name in ("erosion_1d", "erosion_1d_local"):
            rows.append({**time_exercise(ctx, queue, name, case), "radius": radius,
                         "label": f"{name}, radius {radius}"})
    return {"experiment": "erosion_radii", "rows": rows, "environment": environment(queue.device)}


def get_bench_case(name: str):
    """Exercise ``name``'s bench launch at this run's sizes (``Exercise.bench_cases``)."""
    from .exercises import get
    return get(name).bench_cases[1 if small_sizes() else 0]
