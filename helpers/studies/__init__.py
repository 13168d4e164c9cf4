"""The performance studies of notebooks 05-13 and 15: each study prepares the kernels of
``kernels/studies/`` on fresh random data, checks every kernel's first result against numpy, then
times it (:func:`measure`). ``python -m helpers bench`` runs them all; the tests run each one at
small sizes and check every kernel against numpy.

One module per notebook (:mod:`.parallelism` 05, :mod:`.memory` 06, :mod:`.reduction` 07,
:mod:`.matvec` 08, :mod:`.advanced` 10) on a shared :mod:`.harness`; :mod:`.registry` holds the
known-wrong kernels and the seeds' figures (:data:`HISTORY`, read from ``history.json``). Beside
them, the other studies the notebooks run: the lessons' (:mod:`.lessons`: 02, 03, 06, 07, 09, 11),
transfers (:mod:`.transfers`, 07), SGEMM and its tuning (:mod:`.sgemm`, :mod:`.tuning`, 14); and
:mod:`.experiments`, the one registry of what the bench runs and of each study's small sizes for
the device check. The notebooks import the four by the package's name (``from helpers import
lessons``), which hands them on from here.
"""

from __future__ import annotations

from . import advanced
from .advanced import contention, histograms, split_job, sum_single_pass, two_devices
from .harness import (
    STUDIES,
    LeftOutKernel,
    Prepared,
    StudyMismatch,
    cupy_on,
    cupy_samples,
    device_output,
    expect_close,
    fitting_local,
    in_turns,
    kernel,
    launcher,
    measure,
    read_back,
    run_and_compare,
    seeded_rng,
    study_result,
    to_device,
    wall_queue,
    wall_row,
)
from .matvec import MATVEC, SLICES, WHITEPAPER_GROUPS, cublas_matvec, matvec
from .memory import (
    DIVERGENCE,
    HOTSPOT_C,
    TAPS,
    Span,
    constant_memory,
    divergence,
    fast_math,
    hotspot,
    hotspot_reference,
    layouts,
    strides,
    transpose,
)
from .parallelism import ILP_A, ILP_B, MLP_CONFIGS, ilp, mlp, work_item_counts
from .reduction import REDUCTIONS, reductions, sum_end_to_end, sum_ints_data, sum_launch
from .registry import (
    HISTORY,
    KNOWN_WRONG,
    known_wrong,
    matvec_experiment,
)

__all__ = [
    "advanced", "contention", "histograms", "split_job", "sum_single_pass", "two_devices",
    "DIVERGENCE", "HISTORY", "HOTSPOT_C", "ILP_A", "ILP_B", "KNOWN_WRONG", "MATVEC", "MLP_CONFIGS",
    "REDUCTIONS", "SLICES", "STUDIES", "TAPS", "WHITEPAPER_GROUPS",
    "LeftOutKernel", "Prepared", "Span", "StudyMismatch", "constant_memory", "cublas_matvec",
    "cupy_on", "cupy_samples", "device_output", "divergence", "expect_close", "in_turns",
    "fast_math", "hotspot", "hotspot_reference", "ilp", "kernel", "known_wrong", "launcher",
    "layouts", "fitting_local", "matvec", "matvec_experiment", "measure", "mlp", "read_back",
    "reductions", "seeded_rng", "study_result", "run_and_compare", "strides", "sum_end_to_end",
    "sum_ints_data", "sum_launch", "to_device", "transpose", "wall_queue", "wall_row",
    "work_item_counts",
]
