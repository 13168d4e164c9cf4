"""strided_fix (notebook 08), a performance exercise: y = a x + y with neighbouring work-items
on neighbouring elements, from the chunked kernel saxpy_chunks (checked by the same engine)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .common import SAXPY_ARGS, coalesced, saxpy, saxpy_inputs, wide_saxpy_inputs
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Performance,
    Teaching,
    Technique,
    grid_stride_details,
    register,
    short_of_the_data,
    study_record,
)


def _saxpy_extremes(limits: Limits) -> tuple[Case, ...]:
    """Fewer work-items than elements at the device's largest work-group."""
    local = limits.widest_1d()
    return short_of_the_data(local, lambda n, g: Case((g,), (local,), {"n": n, "a": 2.5},
                                                      values="wide"))




def _saxpy_cases() -> tuple[Case, ...]:
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n, "a": 2.5}, small=n <= 4096) for n, g, loc in rows)


def _saxpy_first(count: Callable[[Case], int]) -> Callable[[Case, Inputs], Outputs]:
    """y after a kernel that updates only its first ``count(case)`` elements (the rest unchanged)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        got = inputs["y"].astype(np.float64)
        k = min(count(case), got.size)
        got[:k] = saxpy(case, inputs)["y"][:k]
        return {"y": got}
    return model


def _saxpy_perf(n: int, g: int) -> Case:
    return Case((g,), (256,), {"n": n, "a": 2.5})


register(Exercise(
    name="strided_fix",
    args=SAXPY_ARGS,
    cases=_saxpy_cases(),
    make_inputs=saxpy_inputs,
    reference=saxpy,
    performance=Performance(_saxpy_perf(1 << 24, 1 << 16), _saxpy_perf(1 << 20, 1 << 13),
                            given=("level3.cl", "saxpy_chunks")),
    contract=("`y[i] = a * x[i] + y[i]` for `i < n`, fewer work-items than n; at every step "
              "neighbouring work-items touch neighbouring elements; timed"),
    teaching=Teaching(
        title="y = a x + y with neighbouring work-items on neighbouring elements",
        notebook="08-coalescing",
        hints=(
            "At every step of the loop, neighbouring work-items are a whole chunk apart. Keep the "
            "loop, but change which elements it visits, so that each step covers `get_global_size(0)` "
            "neighbouring elements.",
            "Start at `get_global_id(0)` and step by `get_global_size(0)`: the grid-stride loop of "
            "`sum_ints_multi`.",
            "`n` need not be a multiple of the global size: loop while the index is below `n` rather "
            "than counting steps.",
        ),
        mistakes=(
            Mistake("one element each", _saxpy_first(lambda c: c.global_size[0]),
                    "only the first {global_} elements were updated, one per work-item: there are "
                    "fewer work-items than elements, so each one loops (i, i + get_global_size(0), ... "
                    "while i < n)", hint=1),
            Mistake("leftover", _saxpy_first(lambda c: c["n"] // c.global_size[0] * c.global_size[0]),
                    "the last {leftover} elements were not updated: n = {n} is not a multiple of the "
                    "global size {global_}; loop while the index is below n instead of counting steps",
                    details=grid_stride_details, hint=3),
        ),
        shown="sectors",
        place=(8, 0),
    ),
    compare=Compare(
        rtol=1e-6,
        atol=1e-4,  # a * x + y may be one fused multiply-add or two roundings
    ),
    extremes=Extremes(cases=_saxpy_extremes, inputs=wide_saxpy_inputs),
    technique=Technique(judge=coalesced),
))

# The slow kernels the exercises start from are checked against the same contracts.
study_record("strided_fix", "saxpy_chunks", "level3.cl", _saxpy_cases())
