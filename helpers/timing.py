"""The timing primitives every measurement of the course shares: the small-size switch, the
provenance recorded beside a result, kernel times from profiling events, and what a time means
(GB/s, GFLOP/s). :mod:`helpers.bench`, :mod:`helpers.studies` and :mod:`helpers.studies.transfers` build on
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

from . import settings
from .device import facts
from .driver_probe import KernelLeftOut
from .wording import plural

SMALL_VARIABLE = "COURSE_SMALL"
GRADING_VARIABLE = "COURSE_GRADING"
GRADING_REPEATS = 3          # a measurement's timed launches in the grading profile (10 otherwise)
_ON = {"1", "true", "yes", "on"}
_SAID: list[bool] = []


def grading_profile() -> bool:
    """Whether notebooks run to be graded (``COURSE_GRADING=1``, which the grader sets): every
    measurement at small sizes, timed a few times, so that no cell of a slow laptop's notebook
    nears nbval's limit on a cell; the checks are the same."""
    return settings.flag(GRADING_VARIABLE)


def small_sizes() -> bool:
    """Whether the small-size switch is on (``COURSE_SMALL=1``: slow machines, CI; and the
    grading profile)."""
    return settings.flag(SMALL_VARIABLE) or grading_profile()


def say_grading_profile() -> None:
    """Under the grading profile, the sentence that says so, once in a notebook's output (at its
    first measurement)."""
    if grading_profile() and not _SAID:
        _SAID.append(True)
        print(f"Grading profile ({GRADING_VARIABLE}=1): the measurements below run at small "
              f"sizes and are timed {GRADING_REPEATS} times, not 10, so that no cell takes long "
              f"on a slow machine; their numbers are not this device's, and nothing is graded "
              f"on them.")


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


BUSY_SHARE = 0.25   # other programs using more of the CPU than this during a peak: "busy"


class Busy:
    """How much of the machine's CPU other programs used while the ``with`` block ran: the
    machine's busy CPU time (psutil, all cores) less this process's own (an OpenCL CPU device's
    threads run in it), as a share of the block's wall time times the cores. A peak measured
    while ``share`` exceeds :data:`BUSY_SHARE` is marked as such and measured again later."""

    def __init__(self):
        self.share: float | None = None

    @staticmethod
    def _now() -> tuple[float, float, float]:
        import time

        import psutil
        t = psutil.cpu_times()
        # Linux counts guest time inside user time too: once, not twice
        busy = (sum(t) - t.idle - getattr(t, "iowait", 0.0) - getattr(t, "guest", 0.0)
                - getattr(t, "guest_nice", 0.0))
        own = psutil.Process().cpu_times()
        return time.monotonic(), busy, own.user + own.system

    def __enter__(self) -> Busy:
        try:
            self._start = self._now()
        except Exception:   # psutil missing or refused (a sandbox's /proc): nothing is known
            self._start = None
        return self

    def __exit__(self, *exc) -> None:
        if self._start is None:
            return
        try:
            wall, busy, own = (b - a for a, b in zip(self._start, self._now(), strict=True))
        except Exception:
            return
        if wall > 0:
            self.share = max(0.0, (busy - own) / (wall * (os.cpu_count() or 1)))

    def sentence(self) -> str | None:
        """Why a measurement may be low, or None when the machine was quiet enough."""
        if self.share is None or self.share <= BUSY_SHARE:
            return None
        return (f"other programs used {self.share:.0%} of this machine's CPU while it was "
                f"measured")


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
    if grading_profile() and not settings.given("COURSE_CHILD"):   # a check's own timing
        say_grading_profile()                  # (in a worker) stays what it is: verdicts do not
        warmup, repeats = min(warmup, 1), min(repeats, GRADING_REPEATS)   # change in the profile
    for _ in range(warmup):
        launch().wait()
    samples = tuple(event_seconds(launch()) for _ in range(repeats))
    return Timing(float(np.median(samples)), float(min(samples)), repeats, warmup, samples)


def timed(t: Timing) -> dict:
    """The fields a timed row carries: median, fastest and slowest seconds, repeats, warm-up."""
    return {"seconds": t.median, "min_seconds": t.minimum, "max_seconds": float(max(t.samples)),
            "repeats": t.repeats, "warmup": t.warmup}


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


# --------------------------------------------------------------------------------------------------
# Noise: two timings compared only as far as their spread allows.

def spread(row: dict) -> tuple[float, float]:
    """The fastest and slowest seconds of a timed row (its median when no spread was kept)."""
    return row.get("min_seconds", row["seconds"]), row.get("max_seconds", row["seconds"])


def apart(a: dict, b: dict) -> bool:
    """Whether two timed rows' ranges over their repeats do not overlap: only then does the
    difference of their medians say more than the noise of this machine."""
    (a_lo, a_hi), (b_lo, b_hi) = spread(a), spread(b)
    return a_hi < b_lo or b_hi < a_lo


def _ms(row: dict) -> str:
    lo, hi = spread(row)
    over = row.get("over", plural(row["repeats"], "run") if "repeats" in row else "? runs")
    return f"{row['seconds'] * 1e3:.3g} ms, {lo * 1e3:.3g}-{hi * 1e3:.3g} over {over}"


def compare(a_label: str, a: dict, b_label: str, b: dict) -> str:
    """A sentence comparing two timed rows (``seconds``, ``min_seconds``, ``max_seconds``):
    how many times faster or slower ``a`` is, with both spreads, or that they lie within each
    other's spread and this run cannot tell them apart."""
    if not apart(a, b):
        return (f"{a_label} ({_ms(a)}) and {b_label} ({_ms(b)}) lie within each other's spread: "
                f"this run cannot tell them apart.")
    ratio = b["seconds"] / a["seconds"]
    how = f"{ratio:.2f}x faster than" if ratio >= 1 else f"{1 / ratio:.2f}x slower than"
    return f"{a_label} is {how} {b_label} ({_ms(a)}, against {_ms(b)})."


def against(row: dict, before: dict) -> str:
    """A short column: ``row``'s speed as a multiple of ``before``'s, or that the two lie within
    each other's spread."""
    if not apart(row, before):
        return "within the spread of the row above"
    ratio = before["seconds"] / row["seconds"]
    return (f"{ratio:.2f}x faster than the row above" if ratio >= 1 else
            f"{1 / ratio:.2f}x slower than the row above")
