"""What a check may be told, as one object that travels from the public call to every pass."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from .. import settings

BUILD_TIMEOUT = 120.0        # seconds for the child to start and build (first PoCL build is slow)
RUN_TIMEOUT = 30.0           # seconds for all cases on the device, once built
OCLGRIND_RUN_TIMEOUT = 120.0  # Oclgrind simulates every work-item
HANG_OCLGRIND_TIMEOUT = 20.0  # after a hang on the device: what Oclgrind sees in a short run
# A device pass that has not moved on (no case started or ended) this long after Oclgrind saw a
# divergent barrier is stuck there: a GPU runs each of the course's cases in milliseconds; a CPU's
# runtime may first compile the kernel for a case's work-group size (PoCL: up to a second)
STUCK_AFTER_DIVERGENCE = 0.25
STUCK_AFTER_DIVERGENCE_CPU = 2.0
SPEED_TIMEOUT = 120.0        # the speed pass: the device's peaks (once) and three kernels
REPORT_GRACE = 1.0           # seconds Oclgrind may go on once it has reported, if its case never ends
OUTPUT_LIMIT = 1 << 20       # bytes a check's process may print (kernel printf) before it is stopped
OCLGRIND_BUDGET = 70_000     # work-items a failing case may have to be re-run on Oclgrind

# Oclgrind's uninitialized-value plugin runs on the cases of at most this many work-items (at least
# on the first): it multiplies Oclgrind's time by 2.5 to 2.8 (an unoptimized build keeps every
# variable in memory, which it follows byte by byte), and a value read before it is written shows
# in the small cases of every exercise as it does in a large one. The larger cases run in a worker
# without it, their races, bounds and counts still judged; the check's own look at local memory
# (.poison, checker._local_memory_probe) runs on the device for every kernel that uses it
# (results/history/oclgrind-case-times-*-unoptimized-amd-epyc-2cores.json).
UNINITIALIZED_UP_TO = 512


def _switch(name: str) -> bool:
    return settings.given(name) and settings.text(name).strip() != "0"


def default_oclgrind_workers() -> int:
    """Oclgrind workers one check splits its cases over: ``COURSE_OCLGRIND_WORKERS``, else 3 on a
    host of 8 cores or more, 2 from 4 cores and 1 below. With two, the widest case (two
    work-groups of 1024 work-items on Oclgrind, which it simulates one per thread) runs beside the
    small ones from the start, in a worker of its own, instead of after them; it is stopped as soon
    as a small case goes wrong (:class:`.passes.Shares`). On the H100's 16-core host that took
    sgemm_tiled's solution from 0.81 s to 0.43-0.47 s, and mat_vec_mul's from 0.44 to 0.28-0.51 s
    (results/history/check-times-all-*oclgrind-worker*-nvidia-h100.json). A third worker splits the small
    cases in two, which a wrong kernel runs all of: a wrong sgemm_tiled took 0.52-0.67 s with two
    and 0.34 s with three. On 2 cores the workers share the same cores and gain nothing. A hub
    (deploy/) and the grader set 1: their cores are their learners'."""
    given = settings.text("COURSE_OCLGRIND_WORKERS")
    if given.strip().isdigit() and int(given) > 0:
        return int(given)
    cores = usable_cores()
    return 3 if cores >= 8 else 2 if cores >= 4 else 1


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class CheckOptions:
    """How to check.

    :arg solutions: check ``solutions/NAME.cl`` instead of ``kernels/NAME.cl`` (default: the
        course's switch, :func:`helpers.kernels.solutions_on`).
    :arg device: a piece of a device name; default the course device.
    :arg seed: the seed of the random inputs; default a fresh one, reported in the message.
    :arg require_speed: a performance exercise fails when it is correct but below its speed
        target; default ``COURSE_REQUIRE_SPEED`` (an instructor's choice).
    :arg sequential: the Oclgrind pass waits for the device pass; default
        ``COURSE_CHECK_SEQUENTIAL``.
    :arg owner: whose warm workers the check may use (the grader gives each learner their own).
    :arg oclgrind_workers: Oclgrind workers the small cases are split over, side by side;
        default :func:`default_oclgrind_workers`.
    :arg registry_files: Python files that register more exercises (an instructor's, a test's).
    """

    solutions: bool | None = None
    device: str | None = None
    seed: int | None = None
    require_speed: bool | None = None
    sequential: bool | None = None
    owner: str = ""
    oclgrind_workers: int | None = None
    registry_files: tuple[str, ...] = ()
    build_timeout: float = BUILD_TIMEOUT
    run_timeout: float = RUN_TIMEOUT
    oclgrind_run_timeout: float = OCLGRIND_RUN_TIMEOUT

    def but(self, **changes) -> CheckOptions:
        return replace(self, **changes)

    @property
    def speed_required(self) -> bool:
        return _switch("COURSE_REQUIRE_SPEED") if self.require_speed is None else self.require_speed

    @property
    def grind_workers(self) -> int:
        return default_oclgrind_workers() if self.oclgrind_workers is None \
            else max(1, self.oclgrind_workers)

    @property
    def passes_in_turn(self) -> bool:
        return _switch("COURSE_CHECK_SEQUENTIAL") if self.sequential is None else self.sequential
