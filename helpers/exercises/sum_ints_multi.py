"""sum_ints_multi (notebook 01): the sum of sum_ints with fewer work-items than elements
(a grid-stride loop)."""

from __future__ import annotations

from .common import PAIR_SUM_ARGS, pair_sum, pair_sum_inputs, wide_pair_sum_inputs
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    Limits,
    Mistake,
    Teaching,
    first_written,
    grid_stride_details,
    register,
    short_of_the_data,
)


def _multi_extremes(limits: Limits) -> tuple[Case, ...]:
    """Fewer work-items than elements at the device's largest work-group: several rounds and a
    leftover, and one round short of a full one; values across the int range."""
    local = limits.widest_1d()
    return short_of_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide"))


def _multi_cases() -> tuple[Case, ...]:
    """Fewer work-items than elements; n a multiple of the global size or not."""
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n}, small=n <= 4096) for n, g, loc in rows)


register(Exercise(
    name="sum_ints_multi",
    args=PAIR_SUM_ARGS,
    cases=_multi_cases(),
    make_inputs=pair_sum_inputs,
    reference=pair_sum,
    contract="same result, launched with fewer work-items than n (each handles several)",
    teaching=Teaching(
        title="Add two lists of ints with fewer work-items than elements",
        notebook="01-parallel-execution",
        hints=(
            "There are fewer work-items than elements: the `get_global_size(0)` work-items share the "
            "`n` elements, so each one loops over several.",
            "Start at `get_global_id(0)` and step by `get_global_size(0)`: at every step neighbouring "
            "work-items touch neighbouring elements (a grid-stride loop).",
            "`n` need not be a multiple of the global size: counting `n / get_global_size(0)` steps "
            "leaves the last elements out. Loop while `i < n`.",
        ),
        mistakes=(
            Mistake("one element each", first_written(lambda c: c.global_size[0], "c", pair_sum),
                    "only the first {global_} elements were written, one per work-item: here there "
                    "are fewer work-items than elements, so each work-item must loop over several "
                    "(i, i + get_global_size(0), i + 2 * get_global_size(0), ... while i < n)",
                    hint=1),
            Mistake("leftover", first_written(lambda c: c["n"] // c.global_size[0] * c.global_size[0],
                                               "c", pair_sum),
                    "the last {leftover} elements were not written: n = {n} is not a multiple of the "
                    "global size {global_}, and n / {global_} = {per} steps per work-item covers only "
                    "{covered} elements. Loop while the index is below n instead of counting steps",
                    details=grid_stride_details, hint=3),
        ),
        place=(1, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=_multi_extremes, inputs=wide_pair_sum_inputs),
))
