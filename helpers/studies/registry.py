"""The experiments of ``python -m helpers bench``, the small sizes the device check runs, the kernels
whose wrong results are lessons, and the seeds' historical figures (``history.json`` beside this
module)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pyopencl as cl

from .. import known
from ..kernels import display_path
from .advanced import contention, histogram_experiment, sum_single_pass
from .harness import STUDIES, experiment, measure, study_result
from .matvec import cublas_matvec, matvec
from .memory import constant_memory, divergence, fast_math, hotspot, layouts, strides, transpose
from .parallelism import ilp, mlp
from .reduction import reductions, sum_end_to_end


def matvec_experiment(ctx: cl.Context, queue: cl.CommandQueue) -> dict:
    """The ladder (:func:`~.matvec.matvec`), and the slices of 32 and 64 again with work-groups of
    128, the fastest on the H100 in tools/frontier_variants.py."""
    prepared = matvec(ctx, queue, slice_locals=(128,))
    left_out: list[dict] = []
    rows = measure(prepared, queue, left_out=left_out)
    width, height = prepared[0].params["width"], prepared[0].params["height"]
    ref = cublas_matvec(queue, width, height)
    if ref is not None:
        rows.append(ref)
    floor = 4 * (width * height + width + height)
    return study_result("matvec_ladder", rows, queue, width=width, height=height,
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
    "contention": dict(counters=(1, 32), rounds=4),
    "histograms": dict(n=5000, nbins=37),
}

# Kernels whose wrong results are lessons of the course, and the devices they are wrong on (a piece
# of the platform version; None: any device, as a data race may show anywhere), with why: driver
# facts, kept with their sources in helpers/data/drivers.json.
KNOWN_WRONG: dict[str, tuple[str | None, str]] = known.known_wrong()


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
    "contention": experiment("contention", contention),
    "histogram": histogram_experiment,
    "sum_single_pass": sum_single_pass,
}


# Timings the seeds report, for the charts' "then" beside "now".
def _history() -> dict:
    """The seeds' figures (``history.json`` beside this module), with listing numbers as ints."""
    data = json.loads((Path(__file__).resolve().parent / "history.json").read_text())
    data.pop("about")
    data["matvec_ladder"]["ms"] = {int(k): v for k, v in data["matvec_ladder"]["ms"].items()}
    return data


HISTORY = _history()
