"""The matrix-vector ladder's bench experiment, the kernels whose wrong results are lessons, and the
seeds' historical figures (``history.json`` beside this module). The one registry of the
experiments is :mod:`.experiments`."""

from __future__ import annotations

import json
from pathlib import Path

import pyopencl as cl

from .. import driver_facts
from ..kernels import display_path
from .harness import STUDIES, measure, study_result
from .matvec import cublas_matvec, matvec


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


# Kernels whose wrong results are lessons of the course, and the devices they are wrong on (a piece
# of the platform version; None: any device, as a data race may show anywhere), with why: driver
# facts, kept with their sources in helpers/data/drivers.json.
KNOWN_WRONG: dict[str, tuple[str | None, str]] = driver_facts.known_wrong()


def known_wrong(kernel: str, dev: cl.Device) -> str | None:
    """Why ``kernel`` may give wrong results on ``dev`` as one of the course's lessons, or None."""
    if kernel not in KNOWN_WRONG:
        return None
    where, why = KNOWN_WRONG[kernel]
    return why if where is None or where in dev.platform.version else None


# Timings the seeds report, for the charts' "then" beside "now".
def _history() -> dict:
    """The seeds' figures (``history.json`` beside this module), with listing numbers as ints."""
    data = json.loads((Path(__file__).resolve().parent / "history.json").read_text())
    data.pop("about")
    data["matvec_ladder"]["ms"] = {int(k): v for k, v in data["matvec_ladder"]["ms"].items()}
    return data


HISTORY = _history()
