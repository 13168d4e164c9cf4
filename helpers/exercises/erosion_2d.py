"""erosion_2d (notebook 03): the minimum over a square window of an image, a 2-D range."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .common import clipping_finding, square_and_flat, window_min
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    extreme_floats,
    random_floats,
    register,
    two_d_case,
)


def _erosion_2d(case: Case, inputs: Inputs) -> Outputs:
    """The square window's minimum: along the rows, then along the columns of that."""
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w)
    return {"out": window_min(window_min(img, r, axis=1), r, axis=0).astype(np.float32).ravel()}


def _rows_only(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w)
    return {"out": window_min(img, r, axis=1).astype(np.float32).ravel()}


def _frame_skipped(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    got = _erosion_2d(case, inputs)["out"].astype(np.float64).reshape(h, w)
    mask = np.ones((h, w), dtype=bool)
    mask[r:h - r, r:w - r] = False
    got[mask] = np.nan
    return {"out": got.ravel()}


def _erosion_2d_cases() -> tuple[Case, ...]:
    rows = [(16, 8, 4, 4, 1), (33, 17, 8, 4, 2), (100, 60, 16, 16, 3), (7, 5, 1, 1, 2),
            (1, 1, 8, 8, 1), (40, 3, 8, 2, 0), (512, 300, 16, 8, 4), (640, 480, 32, 8, 2)]
    return tuple(two_d_case(w, h, (lx, ly), {"width": w, "height": h, "radius": r})
                 for w, h, lx, ly, r in rows)


def _bench_case(side: int) -> Case:
    return two_d_case(side, side, (16, 16), {"width": side, "height": side, "radius": 2})


register(Exercise(
    name="erosion_2d",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Buffer("out", np.float32, "out", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=_erosion_2d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["width"] * case["height"])},
    reference=_erosion_2d,
    contract=("row-major image; 2-D range, dimension 0 = column; min over the (2r+1)^2 window "
              "clipped to the image"),
    # timed beside the 1-D erosions by the bench: 2048 x 2048 pixels, 256 x 256 with small sizes
    bench_cases=(_bench_case(2048), _bench_case(256)),
    teaching=Teaching(
        title="Erosion of an image: the minimum over a square window",
        notebook="03-local-memory",
        hints=(
            "`get_global_id(0)` is the column x, `get_global_id(1)` the row y; pixel `(x, y)` is "
            "`in[y * width + x]`. Work-items with `x >= width` or `y >= height` have no pixel.",
            "Clip the window in each dimension as in `erosion_1d`: columns to 0 .. `width - 1`, rows "
            "to 0 .. `height - 1` (careful with subtraction on a `uint`).",
            "The window is the whole square: two nested loops, rows outside, columns inside, the "
            "minimum from `INFINITY` with `fmin`.",
        ),
        mistakes=(
            Mistake("frame skipped", _frame_skipped,
                    "the pixels within {radius} of the image's edge were not written: clip the window "
                    "to the image instead of skipping the border", hint=2),
            Mistake("rows only", _rows_only,
                    "each pixel holds the minimum over its row's window only: erosion takes the "
                    "minimum over the whole (2 * radius + 1) x (2 * radius + 1) square, rows above and "
                    "below included", hint=3),
        ),
        finding_hints=(clipping_finding(hint=2, where="the image"),),
        place=(3, 3),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=lambda limits: square_and_flat(limits, lambda w, h, loc: replace(two_d_case(
            w, h, loc, {"width": w, "height": h, "radius": 2}, small_up_to=0), values="wide")),
        inputs=lambda case, rng: {"in": extreme_floats(rng, case["width"] * case["height"])},
    ),
))
