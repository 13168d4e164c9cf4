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
from .model import Buffer, Compare, Exercise, Extremes, Scalar, Teaching, random_floats, register

_EROSION_1D_HINTS = (
    "`out[i]` is the minimum of the input over the window `i - radius` .. `i + radius`, both ends "
    "included. Work-items with `i >= n` have no element.",
    "Clip the window to 0 .. `n - 1` (`max`, `min`). On a `uint`, `i - radius` wraps around when "
    "`radius > i`: subtract `radius` from the larger of `i` and `radius`.",
    "Start the minimum at the window's first element or at `INFINITY`, never at a large constant "
    "(the inputs may be of any magnitude), and take it with `fmin`.",
)


register(Exercise(
    name="erosion_1d",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=window_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=window_1d,
    contract=("`out[i] = min(in[j])` over `max(0, i-radius) <= j <= min(n-1, i+radius)`; global "
              "memory only"),
    bench_cases=window_1d_bench_cases(),
    teaching=Teaching(
        title="Erosion of a list: the minimum over a window, in global memory",
        notebook="03-local-memory",
        hints=_EROSION_1D_HINTS,
        mistakes=window_1d_mistakes(borders=2, window=1),
        finding_hints=(clipping_finding(hint=2),),
        place=(3, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=window_1d_extremes, inputs=wide_1d),
))
