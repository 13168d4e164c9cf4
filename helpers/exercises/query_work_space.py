"""query_work_space (notebook 02): the NDRange's query functions, and what each work-item gets
from them, computed in Python (the exercise's reference; the explorer in :mod:`helpers.ndrange` shows it)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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


