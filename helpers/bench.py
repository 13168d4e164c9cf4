"""Timing: kernels measured with profiling events (warm-up, repeats, median), and the start-up profile
of a small OpenCL program (where the time goes, after Du et al. 2011, Fig. 3).

Every result carries its provenance (:func:`environment`): device, driver, versions and the date.
Timings are measurements to show and record, never assertions.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyopencl as cl

from .device import choose_device, facts

SMALL_VARIABLE = "COURSE_SMALL"
RESULTS = Path(__file__).resolve().parent.parent / "results"


def small_sizes() -> bool:
    """Whether the small-size switch is on (``COURSE_SMALL=1``: slow machines, CI)."""
    return os.environ.get(SMALL_VARIABLE, "").lower() in {"1", "true", "yes", "on"}


def environment(dev: cl.Device) -> dict:
    """The provenance recorded beside every measurement."""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "device": facts(dev),
        "pyopencl": cl.VERSION_TEXT,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "host": f"{platform.system()} {platform.machine()}",
    }


@dataclass(frozen=True)
class Timing:
    """Kernel times in seconds from profiling events."""

    median: float
    minimum: float
    repeats: int
    warmup: int
    samples: tuple[float, ...]


def event_seconds(event: cl.Event) -> float:
    """Device time of a finished command (the queue needs profiling on)."""
    event.wait()
    return (event.profile.end - event.profile.start) * 1e-9


def time_kernel(launch: Callable[[], cl.Event], *, warmup: int = 2, repeats: int = 10) -> Timing:
    """Time ``launch()`` (which enqueues one command and returns its event) with profiling events.

    The first launches are not counted: a CPU device compiles a work-group function at each new
    local size, and caches warm up.
    """
    for _ in range(warmup):
        launch().wait()
    samples = tuple(event_seconds(launch()) for _ in range(repeats))
    return Timing(float(np.median(samples)), float(min(samples)), repeats, warmup, samples)


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


def _profile_here(dev_pattern: str | None, n: int) -> dict:
    """The profile, measured in this process (call it in a fresh one: see :func:`startup_profile`)."""
    from .kernels import kernel_path

    stages: list[dict] = []

    def stage(name: str, seconds: float, device_seconds: float | None = None) -> None:
        kind = next(k for k, names in STAGE_KINDS.items() if name in names)
        stages.append({"stage": name, "kind": kind, "seconds": seconds,
                       "device_seconds": device_seconds})

    t = time.perf_counter()
    dev = choose_device(dev_pattern)
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
    cmd = [sys.executable, "-m", "helpers", "profile", "--json", "--n", str(n)]
    if device is None:
        dev = choose_device()
        device = dev.name
    cmd += ["--device", device]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False,
                         cwd=Path(__file__).resolve().parent.parent)
    if out.returncode != 0:
        raise RuntimeError(f"The start-up profile failed:\n{out.stderr.strip()}")
    return json.loads(out.stdout)


def load_result(name: str) -> dict:
    """A measured reference result from results/ (``startup-profile-nvidia-h100``, ...)."""
    return json.loads((RESULTS / f"{name}.json").read_text())
