"""Level 2 (notebooks 02-04): query_work_space, the erosions (global memory, a tile in local
memory, 2-D) and matrix_vector."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .model import (
    Buffer,
    Case,
    Exercise,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Scalar,
    beyond_the_data,
    random_floats,
    register,
    rounded_up,
    two_d_case,
    wide_floats,
)
from .query_work_space import QUERIES, query_values

# Level 2: query_work_space (2-D).

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
    shapes = [((16, 8), (4, 2)), ((12, 20), (4, 5)), ((32, 24), (8, 8)), ((7, 3), (7, 1))]
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
    title="Write what each query function returns, for every work-item of a 2-D range",
    notebook="02-work-groups",
    args=(
        Buffer("out", np.int32, "out", lambda c: c.work_items,
               shape=lambda c: (c.global_size[1], c.global_size[0])),
        Scalar("query", np.int32, lambda c: c["query"]),
    ),
    cases=_query_cases(),
    make_inputs=lambda case, rng: {},
    reference=lambda case, inputs: {"out": _query_grid(case, case["query"]).ravel()},
    rtol=0.0,
    atol=0.0,
    hints=(
        "A `switch (query)` (or a chain of `if`s) with one `case` per number picks the value, in "
        "the order of the table of the query functions: 0 is `get_global_id(0)`, 1 "
        "`get_global_id(1)`, 2 `get_global_size(0)`, and so on to 12, `get_work_dim()`.",
        "Each work-item stores its one value at its own place in `out`. Dimension 0 runs along a "
        "row: a row is `get_global_size(0)` long, so the row index `get_global_id(1)` is "
        "multiplied by `get_global_size(0)`, and the column `get_global_id(0)` is added.",
    ),
    mistakes=_query_mistakes(),
    widest=lambda limits: tuple(
        Case(c.global_size, c.local_size, {"query": q})
        for c in square_and_flat(limits, lambda w, h, loc: two_d_case(w, h, loc, {}))
        for q in range(13)),
))


# ---------------------------------------------------------------------------------------------------
# Level 2: erosion, in 1-D (global memory, then a tile in local memory) and in 2-D.

def _erode(x: np.ndarray, radius: int, hi: int | None = None, axis: int = -1) -> np.ndarray:
    """Minimum over the window [i - radius, i + hi] along ``axis``, clipped to the data (hi
    defaults to radius), in float64. Minimums over spans of 1, 2, 4, ... first, then two
    overlapping spans per window: a few passes over the data where one per element of the window
    took a tenth of a second on a million floats."""
    hi = radius if hi is None else hi
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    n, width = x.shape[-1], radius + hi + 1
    m = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(radius, radius)], constant_values=np.inf)
    span = 1
    while 2 * span <= width:
        m = np.minimum(m[..., :-span], m[..., span:])
        span *= 2
    out = np.minimum(m[..., :n], m[..., width - span:width - span + n])
    return np.moveaxis(out, -1, axis)


def _erode_1d(x: np.ndarray, radius: int, hi: int | None = None) -> np.ndarray:
    return _erode(x, radius, hi).astype(np.float32)


def _erosion_1d(case: Case, inputs: Inputs) -> Outputs:
    return {"out": _erode_1d(inputs["in"], case["radius"])}


def _borders_skipped_1d(case: Case, inputs: Inputs) -> Outputs:
    n, r = case["n"], case["radius"]
    got = _erosion_1d(case, inputs)["out"].astype(np.float64)
    got[:min(r, n)] = np.nan
    got[max(n - r, 0):] = np.nan
    return {"out": got}


def _window_short(case: Case, inputs: Inputs) -> Outputs:
    if case["radius"] == 0:
        raise ValueError("no window to shorten")
    return {"out": _erode_1d(inputs["in"], case["radius"], hi=case["radius"] - 1)}


def _near_group_edges(case: Case, bad: np.ndarray) -> bool:
    """Every wrong element lies within radius of its work-group's block edge (halo not loaded)."""
    loc, r = case.local_size[0], case["radius"]
    # The pattern only says something when a group has an interior (loc > 2r) that holds data.
    if bad.size == 0 or loc <= 2 * r or r == 0 or case["n"] <= r:
        return False
    pos = bad % loc
    return bool(np.all((pos < r) | (pos >= loc - r)))


_CLIPPING = ("the window is not clipped at the borders: j must stay within 0 .. n - 1. Careful with "
             "i - radius on a uint: below 0 it wraps around to a huge index")

_EROSION_1D_HINTS = (
    "Each output element `out[i]` is the minimum of the input over the window `i - radius` .. "
    "`i + radius`: `2 * radius + 1` elements, both ends included. Work-items with `i >= n` have "
    "no element.",
    "Clip the window to the data: it starts at `i - radius` or at 0, whichever is larger, and "
    "ends at `i + radius` or at `n - 1`, whichever is smaller (OpenCL's `max` and `min`). On a "
    "`uint`, `i - radius` wraps around to a huge number when `radius > i`: compare before "
    "subtracting, or subtract `radius` from the larger of `i` and `radius`. (A conditional "
    "expression that gives 0 when `radius > i` is right too, but the compiler turns it into a "
    "saturating subtraction that Oclgrind cannot simulate; the check then says so.)",
    "Start the minimum at the window's first element, or at `INFINITY`, never at a large "
    "constant (the inputs may be of any magnitude), and take it with `fmin`.",
)


def _erosion_1d_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 1), (100, 32, 0), (1000, 256, 3), (4096, 64, 7), (777, 128, 2), (5, 1, 4),
            (300, 16, 20), (1 << 20, 256, 5), ((1 << 20) + 3, 128, 16)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "radius": r}, small=n <= 4096)
                 for n, loc, r in rows)


def _erosion_1d_extremes(limits: Limits, tile: bool = False) -> tuple[Case, ...]:
    """At the device's largest work-group (whose tile of local size + 2 * radius floats still
    fits): the data shorter than one work-group, past it by less than one and by several, with a
    halo wider than half a work-group in the last; values across the float range."""
    local = limits.widest_1d(4 if tile else 0, 8 * 300 if tile else 0)
    radii = (5, 3, min(local // 2 + 1, 300))
    cases = beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide"))
    return tuple(replace(c, params={**c.params, "radius": r})
                 for c, r in zip(cases, radii, strict=True))


def _wide_1d(case: Case, rng: np.random.Generator) -> Inputs:
    return {"in": wide_floats(rng, case["n"])}


def _erosion_1d_mistakes(borders: int, window: int) -> tuple[Mistake, ...]:
    """The mistakes both 1-D erosions share, with the numbers of the hints about the borders and
    about the window."""
    return (
        Mistake("borders skipped", _borders_skipped_1d,
                "the elements within {radius} of each end were not written: near the borders the "
                "window must be clipped to the data (j from max(i, radius) - radius to "
                "min(i + radius, n - 1): on a uint, i - radius wraps around below 0), not "
                "skipped", hint=borders),
        Mistake("window one short", _window_short,
                "the window stops one element short: it covers i - radius .. i + radius - 1, but "
                "both ends belong to it (2 * radius + 1 elements: j <= i + radius)", hint=window),
    )

register(Exercise(
    name="erosion_1d",
    title="Erosion of a list: the minimum over a window, in global memory",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=_erosion_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=_erosion_1d,
    rtol=0.0,
    atol=0.0,
    hints=_EROSION_1D_HINTS,
    mistakes=_erosion_1d_mistakes(borders=2, window=1),
    finding_hints=(FindingHint("out_of_bounds_read", _CLIPPING, "global", hint=2),),
    widest=_erosion_1d_extremes,
    wide_inputs=_wide_1d,
))

register(Exercise(
    name="erosion_1d_local",
    title="Erosion of a list with a tile in local memory",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] + 2 * c["radius"]),
    ),
    cases=_erosion_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=_erosion_1d,
    rtol=0.0,
    atol=0.0,
    hints=(
        "The work-group's block of `get_local_size(0)` elements needs `radius` more on each side, "
        "the halo: `tile[k]` holds `in[block start - radius + k]`, for `k` from 0 to "
        "`get_local_size(0) + 2 * radius - 1`. The block starts at "
        "`get_group_id(0) * get_local_size(0)`; for the first work-group, block start - radius "
        "is below 0, so compute that index in a signed type (`long`), not in a `uint`.",
        "Load the whole tile, halo included, with a loop whose `k` starts at `get_local_id(0)` "
        "and steps by `get_local_size(0)`: it covers the tile whatever the radius, even one "
        "larger than the work-group. Read `in` only where the index lies inside the data; "
        "outside it store `INFINITY`, which never wins a minimum and so clips the window for "
        "free.",
        "Between loading the tile and reading it, `barrier(CLK_LOCAL_MEM_FENCE)`: no work-item "
        "may read the tile before all of them have written their part. Every work-item must "
        "reach it, including those past `n`: keep it outside any `if`, and let no work-item "
        "return before it.",
        "After the barrier, each work-item with `i < n` takes the minimum of the "
        "`2 * radius + 1` tile elements that start at its own `tile[get_local_id(0)]`: its "
        "window, `i - radius` .. `i + radius`, both ends included.",
    ),
    mistakes=_erosion_1d_mistakes(borders=2, window=4) + (
        Mistake("halo not loaded", None,
                "every wrong element lies within {radius} of its work-group's edge: the halo (the "
                "radius elements on each side of the group's block) was not loaded into the tile",
                wrong_at=_near_group_edges, hint=2),
    ),
    finding_hints=(
        FindingHint("race", "barrier missing: work-items read the tile before the others have "
                    "finished writing it; put barrier(CLK_LOCAL_MEM_FENCE) between loading the "
                    "tile and reading it", "local", hint=3),
        FindingHint("uninitialized", "the window reads tile elements that no work-item wrote: is "
                    "the halo loaded, on both sides?", hint=2),
        FindingHint("divergent_barrier", "the barrier is inside a branch (if (i < n) ...?): every "
                    "work-item of the group must reach it, so keep it outside any condition",
                    hint=3),
        FindingHint("out_of_bounds_read", _CLIPPING, "global", hint=2),
        FindingHint("out_of_bounds_write", "the tile holds local size + 2 * radius floats: an index "
                    "into it went past that", "local", hint=1),
    ),
    widest=lambda limits: _erosion_1d_extremes(limits, tile=True),
    tiled=True,
    wide_inputs=_wide_1d,
))


def _erosion_2d(case: Case, inputs: Inputs) -> Outputs:
    """The square window's minimum: along the rows, then along the columns of that."""
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w)
    return {"out": _erode(_erode(img, r, axis=1), r, axis=0).astype(np.float32).ravel()}


def _rows_only(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w)
    return {"out": _erode(img, r, axis=1).astype(np.float32).ravel()}


def _frame_skipped(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    got = _erosion_2d(case, inputs)["out"].astype(np.float64).reshape(h, w)
    mask = np.ones((h, w), dtype=bool)
    mask[r:h - r, r:w - r] = False
    got[mask] = np.nan
    return {"out": got.ravel()}


def square_and_flat(limits: Limits, make: Callable[[int, int, tuple[int, int]], Case]
                    ) -> tuple[Case, ...]:
    """2-D extremes: the largest square work-group, and the largest one a single row long, each
    over a grid that is not a multiple of it and spills past it by less than one work-group.
    ``make(width, height, local)`` builds the case."""
    t, row = limits.widest_square(), limits.widest_1d()
    return (make(2 * t + 5, t + 3, (t, t)), make(t // 2 + 1, 3 * t + 1, (t, t)),
            make(row + 9, 3, (row, 1)))


def _erosion_2d_cases() -> tuple[Case, ...]:
    rows = [(16, 8, 4, 4, 1), (33, 17, 8, 4, 2), (100, 60, 16, 16, 3), (7, 5, 1, 1, 2),
            (1, 1, 8, 8, 1), (40, 3, 8, 2, 0), (512, 300, 16, 8, 4), (640, 480, 32, 8, 2)]
    return tuple(two_d_case(w, h, (lx, ly), {"width": w, "height": h, "radius": r})
                 for w, h, lx, ly, r in rows)


register(Exercise(
    name="erosion_2d",
    title="Erosion of an image: the minimum over a square window",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Buffer("out", np.float32, "out", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=_erosion_2d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["width"] * case["height"])},
    reference=_erosion_2d,
    rtol=0.0,
    atol=0.0,
    hints=(
        "`x = get_global_id(0)` is the column, `y = get_global_id(1)` the row, and pixel "
        "`(x, y)` is `in[y * width + x]`. The range is rounded up in both dimensions: work-items "
        "with `x >= width` or `y >= height` have no pixel.",
        "Clip the window in each dimension as in `erosion_1d`: its columns run from `x - radius` "
        "to `x + radius` within 0 .. `width - 1`, its rows from `y - radius` to `y + radius` "
        "within 0 .. `height - 1` (careful with subtraction on a `uint`).",
        "Two nested loops over the clipped window, the outer one over its rows and the inner one "
        "along a row (neighbouring work-items then read neighbouring pixels); the minimum starts "
        "at `INFINITY` or at the window's first pixel and is taken with `fmin`.",
    ),
    mistakes=(
        Mistake("frame skipped", _frame_skipped,
                "the pixels within {radius} of the image's edge were not written: clip the window "
                "to the image instead of skipping the border", hint=2),
        Mistake("rows only", _rows_only,
                "each pixel holds the minimum over its row's window only: erosion takes the "
                "minimum over the whole (2 * radius + 1) x (2 * radius + 1) square, rows above and "
                "below included", hint=3),
    ),
    finding_hints=(FindingHint("out_of_bounds_read", _CLIPPING.replace("0 .. n - 1", "the image"),
                               "global", hint=2),),
    widest=lambda limits: square_and_flat(limits, lambda w, h, loc: two_d_case(
        w, h, loc, {"width": w, "height": h, "radius": 2}, small_up_to=0)),
    wide_inputs=lambda case, rng: {"in": wide_floats(rng, case["width"] * case["height"])},
))


# ---------------------------------------------------------------------------------------------------
# Level 2: matrix_vector, the exercise behind the throughput-versus-work study.

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
    title="Update every element of a matrix with a vector, repeat times",
    notebook="04-matrix-vector",
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
    rtol=2e-5,
    atol=1e-5,
    hints=(
        "`j = get_global_id(0)` is the column, `i = get_global_id(1)` the row, and the element "
        "is `a[i * cols + j]`. The range is rounded up: guard `i < rows && j < cols`.",
        "The update is applied `repeat` times, so the kernel loops; `b`'s index is the column "
        "`j`, the same for every row.",
        "Read `a[i][j]` and `b[j]` once into private variables, loop `repeat` times on the "
        "private copy, and store once at the end: global memory is then touched twice per "
        "element whatever `repeat` is.",
    ),
    mistakes=(
        Mistake("applied once", lambda c, i: _matrix_vector(c, i, times=1),
                "a was updated once: the update must be applied repeat = {repeat} times (a loop "
                "in the kernel)", hint=2),
        Mistake("b by row", lambda c, i: _matrix_vector(c, i, by_row=True),
                "b was indexed by the row: in a[i][j] += a[i][j] * b[j], b's index is the column "
                "j = get_global_id(0)", hint=2),
    ),
    widest=lambda limits: square_and_flat(limits, lambda w, h, loc: two_d_case(
        w, h, loc, {"rows": h, "cols": w, "repeat": 3}, small_up_to=0)),
))
