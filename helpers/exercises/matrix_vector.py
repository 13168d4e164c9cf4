"""matrix_vector (notebook 04): update every element of a matrix with a vector, repeat times;
the exercise behind the throughput-versus-work study."""

from __future__ import annotations

import numpy as np

from .common import square_and_flat
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    random_floats,
    register,
    two_d_case,
)


def _matrix_vector(case: Case, inputs: Inputs, times: int | None = None,
                   by_row: bool = False) -> Outputs:
    rows, cols = case["rows"], case["cols"]
    a = inputs["a"].reshape(rows, cols).copy()
    b = inputs["b"][:rows, None] if by_row else inputs["b"][None, :]
    if by_row and rows > cols:
        raise ValueError("b has no element for every row")
    for _ in range(case["repeat"] if times is None else times):
        a = a + a * b  # float32 throughout, as on the device
    return {"a": a.ravel()}


def _matrix_vector_cases() -> tuple[Case, ...]:
    rows = [(4, 8, 8, 4, 1), (33, 50, 16, 4, 3), (100, 7, 8, 8, 2), (1, 1, 1, 1, 5),
            (64, 64, 32, 1, 0), (20, 200, 64, 2, 4), (1000, 1100, 32, 8, 4), (257, 513, 16, 16, 10)]
    return tuple(two_d_case(cols, r, (lx, ly), {"rows": r, "cols": cols, "repeat": rep})
                 for r, cols, lx, ly, rep in rows)


register(Exercise(
    name="matrix_vector",
    args=(
        Buffer("a", np.float32, "inout", lambda c: c["rows"] * c["cols"],
               shape=lambda c: (c["rows"], c["cols"])),
        Buffer("b", np.float32, "in", lambda c: c["cols"]),
        Scalar("rows", np.uint32, lambda c: c["rows"]),
        Scalar("cols", np.uint32, lambda c: c["cols"]),
        Scalar("repeat", np.uint32, lambda c: c["repeat"]),
    ),
    cases=_matrix_vector_cases(),
    make_inputs=lambda case, rng: {
        "a": random_floats(rng, case["rows"] * case["cols"], -10.0, 10.0),
        # (1 + b) stays near 1: a thousand rounds neither overflow nor sink into subnormal
        # numbers, which a CPU computes many times slower (and would spoil the sweep)
        "b": random_floats(rng, case["cols"], -0.01, 0.01),
    },
    reference=_matrix_vector,
    contract=("2-D range, dimension 0 = column j, dimension 1 = row i; for every element of "
              "row-major `a`, `repeat` times: `a[i][j] = a[i][j] + a[i][j] * b[j]` (in place)"),
    teaching=Teaching(
        title="Update every element of a matrix with a vector, repeat times",
        notebook="04-matrix-vector",
        hints=(
            "`get_global_id(0)` is the column j, `get_global_id(1)` the row i, and the element is "
            "`a[i * cols + j]`. The range is rounded up: guard `i < rows && j < cols`.",
            "The update is applied `repeat` times, so the kernel loops; `b`'s index is the column "
            "`j`, the same for every row.",
            "Read `a[i][j]` and `b[j]` once into private variables, loop on the copies, and store "
            "once at the end: global memory is then touched twice per element whatever `repeat` is.",
        ),
        mistakes=(
            Mistake("applied once", lambda c, i: _matrix_vector(c, i, times=1),
                    "a was updated once: the update must be applied repeat = {repeat} times (a loop "
                    "in the kernel)", hint=2),
            Mistake("b by row", lambda c, i: _matrix_vector(c, i, by_row=True),
                    "b was indexed by the row: in a[i][j] += a[i][j] * b[j], b's index is the column "
                    "j = get_global_id(0)", hint=2),
        ),
        place=(4, 0),
    ),
    compare=Compare(rtol=2e-5, atol=1e-5),
    extremes=Extremes(
        cases=lambda limits: square_and_flat(limits, lambda w, h, loc: two_d_case(
            w, h, loc, {"rows": h, "cols": w, "repeat": 3}, small_up_to=0)),
    ),
))
