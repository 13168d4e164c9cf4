"""erosion_1d (notebook 03): the minimum over a window of a list, in global memory."""

from __future__ import annotations

import numpy as np

from .common import (
    clipping_finding,
    wide_1d,
    window_1d,
    window_1d_bench_cases,
    window_1d_cases,
    window_1d_extremes,
    window_1d_mistakes,
)
from .model import Buffer, Exercise, Scalar, random_floats, register

_EROSION_1D_HINTS = (
    "Each output element `out[i]` is the minimum of the input over the window `i - radius` .. "
    "`i + radius`: `2 * radius + 1` elements, both ends included. Work-items with `i >= n` have "
    "no element.",
    "Clip the window to the data: it starts at `i - radius` or at 0, whichever is larger, and "
    "ends at `i + radius` or at `n - 1`, whichever is smaller (OpenCL's `max` and `min`). On a "
    "`uint`, `i - radius` wraps around to a huge number when `radius > i`: compare before "
    "subtracting, or subtract `radius` from the larger of `i` and `radius`. (A conditional "
    "expression that gives 0 when `radius > i` is right too, but the compiler turns it into a "
    "saturating subtraction that Oclgrind cannot simulate; the check then says so.)",
    "Start the minimum at the window's first element, or at `INFINITY`, never at a large "
    "constant (the inputs may be of any magnitude), and take it with `fmin`.",
)


register(Exercise(
    name="erosion_1d",
    title="Erosion of a list: the minimum over a window, in global memory",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=window_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=window_1d,
    rtol=0.0,
    atol=0.0,
    hints=_EROSION_1D_HINTS,
    mistakes=window_1d_mistakes(borders=2, window=1),
    finding_hints=(clipping_finding(hint=2),),
    widest=window_1d_extremes,
    wide_inputs=wide_1d,
    contract=("`out[i] = min(in[j])` over `max(0, i-radius) <= j <= min(n-1, i+radius)`; global "
              "memory only"),
    place=(3, 1),
    bench_cases=window_1d_bench_cases(),
))
