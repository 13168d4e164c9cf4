"""column_sums (notebook 08): the sum of each column of a row-major matrix, one work-item per
column; the lesson is coalescing: at every row, neighbouring work-items read neighbouring floats
(the natural mapping), which a scrambled mapping of work-items to columns loses."""

from __future__ import annotations

import numpy as np

from .common import coalesced
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    Technique,
    random_floats,
    register,
    rounded_up,
)


def _size(c: Case) -> int:
    return c["width"] * c["height"]


def _matrix(case: Case, inputs: Inputs) -> np.ndarray:
    return inputs["m"].astype(np.float64).reshape(case["height"], case["width"])


def _column_sums(case: Case, inputs: Inputs) -> Outputs:
    return {"sums": _matrix(case, inputs).sum(axis=0)}


def _transposed_index(case: Case, inputs: Inputs) -> Outputs:
    """sums[j] = the sum of m[j * height + i] over i < height: the matrix read as if it were
    stored column by column (each sum a run of height neighbouring floats)."""
    m = inputs["m"].astype(np.float64).reshape(case["width"], case["height"])
    if case["width"] == 1 or case["height"] == 1:
        raise ValueError("the same as the answer")
    return {"sums": m.sum(axis=1)}


def _row_sums(case: Case, inputs: Inputs) -> Outputs:
    """sums[j] = the sum of row j (for the rows there are), one work-item per row."""
    if case["width"] == 1 or case["height"] == 1:
        raise ValueError("no rows to mix up")
    rows = _matrix(case, inputs).sum(axis=1)
    got = np.full(case["width"], np.nan)
    k = min(case["width"], case["height"])
    got[:k] = rows[:k]
    return {"sums": got}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"m": random_floats(rng, _size(case), -1.0, 1.0)}


def _case(width: int, height: int, local: int, small: bool | None = None) -> Case:
    return Case((rounded_up(width, local),), (local,), {"width": width, "height": height},
                small=width * height <= 20_000 if small is None else small)


def _cases() -> tuple[Case, ...]:
    rows = [(100, 50, 32), (1, 7, 64), (7, 300, 1), (33, 5, 2), (64, 64, 64), (513, 17, 128),
            (1000, 20, 256), (4096, 3, 64), (5000, 200, 256), ((1 << 14) + 3, 64, 128)]
    return tuple(_case(w, h, loc) for w, h, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """The device's largest work-group: fewer columns than one work-group, and a range past the
    columns by less than one work-group."""
    local = limits.widest_1d()
    return (_case(local // 2 + 3, 9, local, small=False),
            _case(2 * local + 5, 11, local, small=False))


register(Exercise(
    name="column_sums",
    args=(
        Buffer("m", np.float32, "in", _size, shape=lambda c: (c["height"], c["width"])),
        Buffer("sums", np.float32, "out", lambda c: c["width"]),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_column_sums,
    contract=("`m` row-major height x width; `sums[j]` = the sum over i of `m[i * width + j]`, "
              "one work-item per column, global size may exceed width; coalesced reads"),
    teaching=Teaching(
        title="Sum the columns of a matrix: one work-item per column, coalesced reads",
        notebook="08-coalescing",
        hints=(
            'Work-item `j` owns column `j`: it walks down the rows adding into a private variable, and '
            'stores `sums[j]` once. Work-items past the last column do nothing.',
            'Row `i` starts `i * width` floats in, and column `j` lies `j` floats further: the row '
            'length is `width`, not the global size.',
            'With the column taken straight from `get_global_id(0)`, a warp reads neighbouring floats '
            'of each row (coalesced); any other mapping scatters its reads.',
        ),
        mistakes=(
            Mistake("transposed index", _transposed_index,
                    "each sum is of a run of height neighbouring floats, m[j * height + i]: the "
                    "matrix is row-major, so element (i, j) is m[i * width + j], and a column's "
                    "floats lie width apart", hint=2),
            Mistake("row sums", _row_sums,
                    "sums[j] holds the sum of row j: the sums asked for are of the columns, element "
                    "(i, j) for every row i", hint=1),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_read", "m was read past its end: element (i, j) is "
                        "m[i * width + j] for i < height and j < width; the work-items past the "
                        "last column must read nothing", "global", hint=2),
            FindingHint("out_of_bounds_write", "sums was written past its end: it holds width "
                        "floats; guard the store with the column below width", "global", hint=1),
        ),
        place=(8, 1),
    ),
    compare=Compare(
        # sums of up to 300 floats below 1 in magnitude, in any order: float32's rounding stays far
        # below 1e-4 (a missing or extra element is far larger)
        rtol=1e-4,
        atol=1e-4,
    ),
    extremes=Extremes(cases=_extremes),
    technique=Technique(judge=coalesced),
))
