"""matrix_add (notebook 02): c = a + b on row-major matrices, a 2-D range guarded in both
dimensions."""

from __future__ import annotations

import numpy as np

from .common import square_and_flat
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    random_floats,
    register,
    two_d_case,
    wide_floats,
)


def _size(c: Case) -> int:
    return c["width"] * c["height"]


def _shape(c: Case) -> tuple[int, int]:
    return (c["height"], c["width"])


def _add(case: Case, inputs: Inputs) -> Outputs:
    return {"c": inputs["a"] + inputs["b"]}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"a": random_floats(rng, _size(case)), "b": random_floats(rng, _size(case))}


def _wide(case: Case, rng: np.random.Generator) -> Inputs:
    return {"a": wide_floats(rng, _size(case)), "b": wide_floats(rng, _size(case))}


def _written_at(case: Case, inputs: Inputs, stride: int) -> Outputs:
    """c after a kernel that stores element (x, y) at y * stride + x (and reads a and b there):
    the right sum where such an index lands inside the matrix, nothing elsewhere."""
    w, h = case["width"], case["height"]
    right = _add(case, inputs)["c"].astype(np.float64)
    if stride == w:
        raise ValueError("the same as the answer")
    got = np.full(right.size, np.nan)
    ys, xs = np.mgrid[0:h, 0:w]
    k = (ys * stride + xs).ravel()
    k = k[k < right.size]
    got[k] = right[k]
    return {"c": got}


def _cases() -> tuple[Case, ...]:
    rows = [(16, 8, 16, 1), (33, 17, 1, 16), (100, 60, 8, 4), (7, 5, 1, 1), (1, 1, 8, 8),
            (40, 3, 2, 2), (5, 129, 4, 8), (13, 11, 16, 16), (640, 480, 32, 8),
            (1001, 999, 16, 16)]
    return tuple(two_d_case(w, h, (lx, ly), {"width": w, "height": h})
                 for w, h, lx, ly in rows)


def _extremes(limits) -> tuple[Case, ...]:
    return square_and_flat(limits, lambda w, h, loc: Case(
        (-(-w // loc[0]) * loc[0], -(-h // loc[1]) * loc[1]), loc,
        {"width": w, "height": h}, values="wide"))


register(Exercise(
    name="matrix_add",
    args=(
        Buffer("a", np.float32, "in", _size, shape=_shape),
        Buffer("b", np.float32, "in", _size, shape=_shape),
        Buffer("c", np.float32, "out", _size, shape=_shape),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_add,
    contract=("row-major height x width; 2-D range, dimension 0 = column; `c = a + b`; global "
              "size may exceed both dimensions"),
    teaching=Teaching(
        title="Add two matrices: a 2-D range, guarded in both dimensions",
        notebook="02-work-groups",
        hints=(
            "Dimension 0 runs along a row (the column `x`), dimension 1 down the columns (the row "
            "`y`); each is rounded up to a multiple of the work-group size, independently.",
            "Row-major: row `y` comes after `y` rows of `width` elements each. The row's length is "
            "the matrix's width, not the range's, which may be rounded up past it.",
            "A work-item past the last column or below the last row must do nothing. Both conditions "
            "are needed; either one alone lets work-items of the rounded-up range through.",
        ),
        mistakes=(
            Mistake("global width stride", lambda c, i: _written_at(c, i, c.global_size[0]),
                    "elements were stored at y * get_global_size(0) + x: the row stride is the "
                    "matrix's width ({width}), not the range's width ({range_width}), which is "
                    "rounded up past it", details=lambda c: {"range_width": c.global_size[0]},
                    hint=2),
            Mistake("height stride", lambda c, i: _written_at(c, i, c["height"]),
                    "elements were stored at y * height + x: in a row-major matrix a row holds "
                    "width ({width}) elements, so the row stride is the width", hint=2),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_write", "a write past the end of c: guard both the column and "
                        "the row (x < width and y < height), and step from row to row by the "
                        "matrix's width", "global", hint=3),
            FindingHint("out_of_bounds_read", "a read past the end of a or b: guard both the column "
                        "and the row (x < width and y < height), and step from row to row by the "
                        "matrix's width", "global", hint=3),
        ),
        place=(2, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=_extremes, inputs=_wide),
))
