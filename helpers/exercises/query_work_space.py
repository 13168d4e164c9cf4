"""query_work_space (notebook 02): write what each query function returns, for every work-item of
a 2-D range. The query functions and what each work-item gets from them, computed in Python, are
the exercise's reference; the explorer in :mod:`helpers.ndrange` shows them too."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
    register,
    two_d_case,
)

# The query functions, numbered as in the query_work_space contract (docs/design.md, section 4).
QUERIES = (
    "get_global_id(0)", "get_global_id(1)", "get_global_size(0)", "get_global_size(1)",
    "get_group_id(0)", "get_group_id(1)", "get_local_id(0)", "get_local_id(1)",
    "get_local_size(0)", "get_local_size(1)", "get_num_groups(0)", "get_num_groups(1)",
    "get_work_dim()",
)


def as_2d(size: int | Sequence[int]) -> tuple[int, int]:
    """A 1-D or 2-D size as (dimension 0, dimension 1); a 1-D range has dimension 1 of size 1."""
    if isinstance(size, (int, np.integer)):
        return int(size), 1
    size = tuple(int(x) for x in size)
    return (size[0], 1) if len(size) == 1 else (size[0], size[1])


def query_values(global_size: Sequence[int] | int, local_size: Sequence[int] | int,
                 query: int | str) -> np.ndarray:
    """What every work-item gets from query function ``query`` (its number or its name).

    The result has one row per value of dimension 1 and one column per value of dimension 0, as the
    kernel stores it: ``out[get_global_id(1) * get_global_size(0) + get_global_id(0)]``.
    """
    q = QUERIES.index(query) if isinstance(query, str) else int(query)
    dims = 1 if isinstance(global_size, (int, np.integer)) or len(global_size) == 1 else 2
    (gx, gy), (lx, ly) = as_2d(global_size), as_2d(local_size)
    y, x = np.mgrid[0:gy, 0:gx]
    name = QUERIES[q]
    d = 0 if name.endswith("(0)") else 1
    idx, glob, loc = (x, gx, lx) if d == 0 else (y, gy, ly)
    values = {
        "get_global_id": idx,
        "get_global_size": np.full_like(idx, glob),
        "get_group_id": idx // loc,
        "get_local_id": idx % loc,
        "get_local_size": np.full_like(idx, loc),
        "get_num_groups": np.full_like(idx, glob // loc),
        "get_work_dim": np.full_like(idx, dims),
    }[name.split("(")[0]]
    return values.astype(np.int32)


def _query_grid(case: Case, query: int) -> np.ndarray:
    return query_values(case.global_size, case.local_size, query)


def _returned(k: int) -> Callable[[Case, Inputs], Outputs]:
    return lambda case, inputs: {"out": _query_grid(case, k).ravel()}


def _transposed(case: Case, inputs: Inputs) -> Outputs:
    # out[get_global_id(0) * get_global_size(1) + get_global_id(1)]: the grid stored column by column
    return {"out": _query_grid(case, case["query"]).T.ravel()}


def _query_details(case: Case) -> dict:
    return {"asked": QUERIES[case["query"]]}


def _query_cases() -> tuple[Case, ...]:
    # work-groups of 1 and 2 work-items too: the smallest the contract allows
    shapes = [((16, 8), (4, 2)), ((12, 20), (4, 5)), ((32, 24), (8, 8)), ((7, 3), (7, 1)),
              ((3, 2), (1, 1)), ((6, 4), (2, 1))]
    return tuple(Case(g, loc, {"query": q}, small=True) for q in range(13) for g, loc in shapes)


def _query_mistakes() -> tuple[Mistake, ...]:
    returned = tuple(
        Mistake(f"returned {name}", _returned(k),
                f"you returned {name} where {{asked}} was asked (query number {{query}}): check "
                f"which function each query number maps to", details=_query_details, hint=1)
        for k, name in enumerate(QUERIES)
    )
    return returned + (Mistake(
        "transposed", _transposed,
        "the values are right but stored transposed: out[get_global_id(0) * get_global_size(1) + "
        "get_global_id(1)] was written where out[get_global_id(1) * get_global_size(0) + "
        "get_global_id(0)] is asked (dimension 0 is the column, so rows are get_global_size(0) "
        "long)", hint=2),)


register(Exercise(
    name="query_work_space",
    args=(
        Buffer("out", np.int32, "out", lambda c: c.work_items,
               shape=lambda c: (c.global_size[1], c.global_size[0])),
        Scalar("query", np.int32, lambda c: c["query"]),
    ),
    cases=_query_cases(),
    make_inputs=lambda case, rng: {},
    reference=lambda case, inputs: {"out": _query_grid(case, case["query"]).ravel()},
    contract=("2-D range; each work-item writes, at `out[get_global_id(1) * get_global_size(0) + "
              "get_global_id(0)]`, the value of query function number `query`: 0 "
              "`get_global_id(0)`, 1 `get_global_id(1)`, 2 `get_global_size(0)`, 3 "
              "`get_global_size(1)`, 4 `get_group_id(0)`, 5 `get_group_id(1)`, 6 `get_local_id(0)`,"
              " 7 `get_local_id(1)`, 8 `get_local_size(0)`, 9 `get_local_size(1)`, 10 "
              "`get_num_groups(0)`, 11 `get_num_groups(1)`, 12 `get_work_dim()`"),
    teaching=Teaching(
        title="Write what each query function returns, for every work-item of a 2-D range",
        notebook="02-work-groups",
        hints=(
            "A `switch` (or a chain of `if`s) picks the value, one `case` per query number, in the "
            "order of the table of query functions: 0 is `get_global_id(0)`, ..., 12 "
            "`get_work_dim()`.",
            "Each work-item stores its one value at its own place in `out`. Dimension 0 runs along a "
            "row: row `get_global_id(1)`, rows `get_global_size(0)` long, column `get_global_id(0)`.",
        ),
        mistakes=_query_mistakes(),
        place=(2, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=lambda limits: tuple(
            Case(c.global_size, c.local_size, {"query": q})
            for c in square_and_flat(limits, lambda w, h, loc: two_d_case(w, h, loc, {}))
            for q in range(13)),
    ),
))
