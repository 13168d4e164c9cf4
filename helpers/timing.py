"""The timing primitives every measurement of the course shares: the small-size switch, the
provenance recorded beside a result, kernel times from profiling events, and what a time means
(GB/s, GFLOP/s). :mod:`helpers.bench`, :mod:`helpers.studies` and :mod:`helpers.transfers` build on
them; this module imports none of those.
"""

from __future__ import annotations

import datetime
import os
import platform
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyopencl as cl

from .device import facts
from .probe import KernelLeftOut

SMALL_VARIABLE = "COURSE_SMALL"


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


def gb_per_s(nbytes: float, seconds: float) -> float:
    """Data throughput in GB/s (10^9 bytes per second, as vendors quote bandwidth)."""
    return nbytes / seconds / 1e9


def gflop_per_s(flops: float, seconds: float) -> float:
    """Computational throughput in GFLOP/s."""
    return flops / seconds / 1e9


def left_out_sentence(what: str, error: Exception) -> str:
    """"WHAT: why", for a course kernel this device's driver crashed on or refused to build."""
    if isinstance(error, KernelLeftOut):
        return f"{what}: {error}"
    first = str(error).strip().splitlines()[0]
    return f"{what}: the driver refused to build it ({first})."
