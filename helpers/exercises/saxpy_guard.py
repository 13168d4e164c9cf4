"""saxpy_guard (notebook 01): y = a x + y, one work-item per element, with the bounds guard the
rounded-up launch needs (the skeleton has everything but the guard)."""

from __future__ import annotations

import numpy as np

from .common import SAXPY_ARGS, saxpy, saxpy_inputs, wide_saxpy_inputs
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Teaching,
    beyond_the_data,
    register,
    rounded_up,
)

A = 2.5








def _cases() -> tuple[Case, ...]:
    rows = [(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1), (9, 2), (333, 7),
            (1 << 20, 256), ((1 << 20) + 3, 128)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "a": A}, small=n <= 4096)
                 for n, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n, "a": A},
                                                    values="wide"))


def _last_left(case: Case, inputs: Inputs) -> Outputs:
    """y updated everywhere but its last element (a guard of i < n - 1)."""
    got = saxpy(case, inputs)["y"].astype(np.float64)
    got[-1] = inputs["y"][-1]
    return {"y": got}


register(Exercise(
    name="saxpy_guard",
    args=SAXPY_ARGS,
    cases=_cases(),
    make_inputs=saxpy_inputs,
    reference=saxpy,
    contract="`y[i] = a * x[i] + y[i]` for `i < n`; global size may exceed n",
    teaching=Teaching(
        title="y = a x + y, guarded: work-items past the data do nothing",
        notebook="01-parallel-execution",
        hints=(
            "The global size is rounded up to a multiple of the work-group size: what does a "
            "work-item whose index is `n` or more read and write?",
            "Such a work-item must not touch `x` or `y` at all. The comparison with `n` decides "
            "whether a work-item works, not which element it works on.",
            "An `if` around the update, with the condition `i < n`, is the whole fix (a `return` for "
            "the others does the same).",
        ),
        mistakes=(
            Mistake("last left out", _last_left,
                    "the last element of y was not updated: the guard stops one short "
                    "(i < n - 1 where i < n is meant)", hint=2),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_read", "reads past the end of x or y: every access of a "
                        "work-item past the data, its reads included, belongs under the guard",
                        "global", hint=2),
            FindingHint("out_of_bounds_write", "work-items past the data wrote y[i] beyond the end: "
                        "the update needs a guard, if (i < n), around it", "global", hint=1),
        ),
        place=(1, 2),
    ),
    compare=Compare(
        rtol=1e-6,
        atol=1e-4,  # a * x + y may be one fused multiply-add or two roundings
    ),
    extremes=Extremes(cases=_extremes, inputs=wide_saxpy_inputs),
))
