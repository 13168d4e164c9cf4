"""float_copy (notebook 00): copy a buffer of floats, the hello world of OpenCL."""

from __future__ import annotations

import numpy as np

from .common import guarded_extremes
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Outputs,
    Scalar,
    Teaching,
    one_d_cases,
    random_floats,
    register,
    wide_floats,
    wrong_index_mistakes,
)


def _copy(case: Case, inputs: Inputs) -> Outputs:
    return {"dst": inputs["src"].copy()}


register(Exercise(
    name="float_copy",
    args=(
        Buffer("src", np.float32, "in", lambda c: c["n"]),
        Buffer("dst", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=lambda case, rng: {"src": random_floats(rng, case["n"])},
    reference=_copy,
    contract="`dst[i] = src[i]` for `i < n`; global size may exceed n",
    teaching=Teaching(
        title="Copy a buffer of floats: one work-item per element",
        notebook="00-host-and-device",
        hints=(
            "`get_global_id(0)` is this work-item's number in the whole range: use it as the element "
            "index `i`.",
            "The global size is rounded up to a multiple of the work-group size: work-items with no "
            "element must not touch memory. Guard the copy with `i < n`.",
            "Two lines, as in `kernels/scale.cl`: the index, then, under the guard, element `i` of "
            "`src` copied to the same place in `dst`.",
        ),
        mistakes=wrong_index_mistakes("dst", _copy, hint=1),
        place=(0, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=guarded_extremes,
        inputs=lambda case, rng: {"src": wide_floats(rng, case["n"])},
    ),
))
