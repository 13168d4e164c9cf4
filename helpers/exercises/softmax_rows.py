"""softmax_rows (notebook 17, the capstone's first rung): the softmax of each row of a matrix, one
work-item per row walking its row three times (the maximum, the sum of exponentials, the
quotients). Correct and simple; on a GPU the lanes of a warp read floats a row apart."""

from __future__ import annotations

from .common import SOFTMAX_ARGS, softmax, softmax_cases, softmax_inputs, softmax_mistakes
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Limits,
    Performance,
    Teaching,
    beyond_the_data,
    register,
)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's largest work-group: fewer rows than one work-group, and a range past the
    rows by less than one work-group and by several."""
    local = limits.widest_1d()
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"rows": n, "cols": 33}))


def _perf(rows: int, cols: int) -> Case:
    return softmax_cases([(rows, cols, 64)], "item", small_up_to=0)[0]


register(Exercise(
    name="softmax_rows",
    args=SOFTMAX_ARGS,
    cases=softmax_cases([(100, 37, 32), (1, 1, 1), (7, 300, 4), (333, 50, 64), (1000, 10, 128),
                         (64, 257, 16), (5, 3, 2), (41, 400, 8), (4096, 1024, 64),
                         (2000, 999, 256)], "item"),
    make_inputs=softmax_inputs,
    reference=softmax,
    performance=Performance(_perf(4096, 4096), _perf(1024, 1024)),
    contract=("`x`, `y` row-major rows x cols; `y[r][c] = exp(x[r][c] - m_r) / sum over c' of "
              "exp(x[r][c'] - m_r)`, m_r the row's maximum (values of any sign up to a few "
              "hundred in magnitude); one work-item per row, global size may exceed rows; timed"),
    teaching=Teaching(
        title="Softmax of each row: one work-item per row, three passes over it",
        notebook="17-capstone-softmax",
        hints=(
            "NaN in some rows: the check names which. Values near 100 overflow `exp` unless the "
            "maximum is subtracted; values all near -150 give 0 / 0 if the maximum starts from 0.",
            "Row `r` starts `r * cols` floats in; work-items past the last row store nothing.",
            "The sum and the quotients use the whole row's maximum: finish its loop first.",
        ),
        mistakes=softmax_mistakes(max_hint=1, zero_hint=1),
        finding_hints=(
            FindingHint("out_of_bounds_write", "y was written past its end: the work-items past the "
                        "last row (get_global_id(0) >= rows) must store nothing", "global", hint=2),
            FindingHint("out_of_bounds_read", "x was read past its end: row r holds the floats "
                        "r * cols to r * cols + cols - 1, for r < rows", "global", hint=2),
        ),
        guard="if (r < rows), r the row (get_global_id(0))",
        past_the_end=("the work-items past the last row (get_global_id(0) >= rows) must store "
                      "nothing: guard the row with if (r < rows)"),
        place=(17, 0),
    ),
    compare=Compare(
        # exp in float32 (a few units in the last place), sums of up to a few thousand terms in any
        # order: far below 1e-4 relative; a term left out or counted twice is far above it
        rtol=1e-4,
        atol=1e-6,
    ),
    extremes=Extremes(cases=_extremes),
))
