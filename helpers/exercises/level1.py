"""Level 1 (notebook 01): sum_ints and sum_ints_multi, parallel execution."""

from __future__ import annotations

import numpy as np

from .level0 import guarded_extremes
from .model import (
    Buffer,
    Case,
    Exercise,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Scalar,
    first_written,
    grid_stride_details,
    one_d_cases,
    random_ints,
    register,
    short_of_the_data,
    wide_ints,
    wrong_index_mistakes,
)


def _sum(case: Case, inputs: Inputs) -> Outputs:
    return {"c": inputs["a"] + inputs["b"]}


def _sum_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"a": random_ints(rng, case["n"]), "b": random_ints(rng, case["n"])}


def _wide_sum_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    a, b = wide_ints(rng, case["n"])
    return {"a": a, "b": b}


def _multi_extremes(limits: Limits) -> tuple[Case, ...]:
    """Fewer work-items than elements at the device's largest work-group: several rounds and a
    leftover, and one round short of a full one; values across the int range."""
    local = limits.widest_1d()
    return short_of_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide"))


_SUM_ARGS = (
    Buffer("a", np.int32, "in", lambda c: c["n"]),
    Buffer("b", np.int32, "in", lambda c: c["n"]),
    Buffer("c", np.int32, "out", lambda c: c["n"]),
    Scalar("n", np.uint32, lambda c: c["n"]),
)

register(Exercise(
    name="sum_ints",
    title="Add two lists of ints: c[i] = a[i] + b[i]",
    notebook="01-parallel-execution",
    args=_SUM_ARGS,
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=_sum_inputs,
    reference=_sum,
    rtol=0.0,
    atol=0.0,
    hints=(
        "One work-item per element, as in `float_copy`: the element index `i` is "
        "`get_global_id(0)`.",
        "The global size is rounded up and may be larger than `n`, so some work-items have no "
        "element: store into `c` only when `i < n`.",
    ),
    mistakes=wrong_index_mistakes("c", _sum, hint=1),
    widest=guarded_extremes,
    wide_inputs=_wide_sum_inputs,
))


def _multi_cases() -> tuple[Case, ...]:
    """Fewer work-items than elements; n a multiple of the global size or not."""
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n}, small=n <= 4096) for n, g, loc in rows)


register(Exercise(
    name="sum_ints_multi",
    title="Add two lists of ints with fewer work-items than elements",
    notebook="01-parallel-execution",
    args=_SUM_ARGS,
    cases=_multi_cases(),
    make_inputs=_sum_inputs,
    reference=_sum,
    rtol=0.0,
    atol=0.0,
    hints=(
        "There are fewer work-items than elements: the `get_global_size(0)` work-items share the "
        "`n` elements, so each one loops over several.",
        "Start at `i = get_global_id(0)` and step by `get_global_size(0)`: at every step "
        "neighbouring work-items then touch neighbouring elements (a grid-stride loop).",
        "`n` need not be a multiple of the global size: a loop that counts "
        "`n / get_global_size(0)` steps rounds down and leaves the last elements out. Let the "
        "loop run while `i < n`.",
    ),
    mistakes=(
        Mistake("one element each", first_written(lambda c: c.global_size[0], "c", _sum),
                "only the first {global_} elements were written, one per work-item: here there "
                "are fewer work-items than elements, so each work-item must loop over several "
                "(i, i + get_global_size(0), i + 2 * get_global_size(0), ... while i < n)",
                hint=1),
        Mistake("leftover", first_written(lambda c: c["n"] // c.global_size[0] * c.global_size[0],
                                           "c", _sum),
                "the last {leftover} elements were not written: n = {n} is not a multiple of the "
                "global size {global_}, and n / {global_} = {per} steps per work-item covers only "
                "{covered} elements. Loop while the index is below n instead of counting steps",
                details=grid_stride_details, hint=3),
    ),
    widest=_multi_extremes,
    wide_inputs=_wide_sum_inputs,
))
