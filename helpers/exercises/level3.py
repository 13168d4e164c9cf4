"""Level 3 (notebooks 06-08): the performance exercises (transpose, strided_fix, divergence_fix),
parallel_sum and mat_vec_mul, and the study kernels of their ladders, which the same engine checks."""

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
    Performance,
    Scalar,
    beyond_the_data,
    grid_stride_details,
    random_floats,
    random_ints,
    register,
    rounded_up,
    short_of_the_data,
    study_record,
    two_d_case,
    wide_floats,
)

# Level 3: parallel_sum (notebook 07) and mat_vec_mul (notebook 08), and the study kernels of their
# ladders, which the same engine checks (Oclgrind included) with cases that fit each one.

def _grid_stride_partials(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """Partial sums when element i belongs to work-item i % global size (a grid-stride loop);
    only the view (their total) is compared, so any other split passes as well."""
    g, loc = case.global_size[0], case.local_size[0]
    src = inputs["src"][: case["n"] if upto is None else min(upto, case["n"])].astype(np.int64)
    owner = (np.arange(src.size) % g) // loc
    sums = np.bincount(owner, weights=src, minlength=case.num_groups[0])
    return {"partial": np.rint(sums).astype(np.int64)}


def _total(case: Case, partial: np.ndarray) -> np.ndarray:
    return np.array([np.asarray(partial, dtype=np.float64).sum()])


def _sum_cases(rows: list[tuple[int, int, int]]) -> tuple[Case, ...]:
    return tuple(Case((loc * groups,), (loc,), {"n": n}, small=n <= 5000 and loc * groups <= 5000)
                 for n, loc, groups in rows)


def _sum_extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's largest power-of-two work-group: fewer elements than one work-group, the
    range past the data by less than one work-group and by several, and fewer work-items than
    elements."""
    local = limits.widest_1d(4)
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n})) + (
        Case((2 * local,), (local,), {"n": 5 * local + 3}),)


_SUM_ARGS_3 = (
    Buffer("src", np.int32, "in", lambda c: c["n"]),
    Buffer("partial", np.int32, "out", lambda c: c.num_groups[0]),
    Scalar("n", np.uint32, lambda c: c["n"]),
    LocalMem("scratch", np.int32, lambda c: c.local_size[0]),
)

_SUM_HINTS = (
    "Two stages: each work-item first adds up its own elements in a private `int`; then the "
    "work-group adds its work-items' sums in `scratch`, and work-item 0 writes the group's sum "
    "to `partial[get_group_id(0)]`.",
    "A work-item's own elements: start at `i = get_global_id(0)` and step by "
    "`get_global_size(0)` while `i < n` (the range may be smaller or larger than `n`).",
    "The tree: each work-item stores its sum at `scratch[get_local_id(0)]`, then a barrier; at "
    "each step `s` = half the local size, a quarter, ..., 1, the work-items below `s` add the "
    "element `s` places above their own onto it, with a barrier after each step. The lower half "
    "adding the upper half keeps the working work-items packed together.",
    "Every work-item must reach every barrier: keep the barriers out of `if (i < n)` and out of "
    "`if (lid < s)`, and let every work-item run the tree's loop the same number of times.",
)

_SUM_FINDINGS = (
    FindingHint("race", "a barrier is missing: work-items read scratch before the others "
                "have finished writing it (one barrier after the stores, one after each step)",
                "local", hint=3),
    FindingHint("divergent_barrier", "a barrier sits inside a branch or a loop that not every "
                "work-item of the group takes (an if (i < n), an if (lid < s), or a loop whose "
                "count differs): move the barrier out, and let every work-item loop alike",
                hint=4),
    FindingHint("out_of_bounds_read", "src was read past its end: guard every read with i < n",
                "global", hint=2),
)

register(Exercise(
    name="parallel_sum",
    title="Sum an array: a partial sum per work-group, reduced in local memory",
    notebook="07-parallel-sum",
    args=_SUM_ARGS_3,
    cases=_sum_cases([(1000, 64, 4), (4096, 256, 16), (10007, 128, 8), (50, 32, 4),
                      (1, 1, 1), (777, 16, 100), (3, 2, 1), (100000, 256, 30),
                      ((1 << 20) + 3, 256, 120), (4099, 64, 64), (40, 32, 2)]),
    make_inputs=lambda case, rng: {"src": random_ints(rng, case["n"], 1000)},
    reference=_grid_stride_partials,
    view=_total,
    view_label="the sum of the partial sums",
    rtol=0.0,
    atol=0.0,
    hints=_SUM_HINTS,
    mistakes=(
        Mistake("one element each", lambda c, i: _grid_stride_partials(c, i, c.work_items),
                "only the first {global_} elements were added: the range has fewer work-items "
                "than n = {n} elements, so each work-item must add several (a loop with "
                "i += get_global_size(0))", hint=2),
    ),
    finding_hints=_SUM_FINDINGS,
    widest=_sum_extremes,
    tiled=True,
))


def _mat_vec(case: Case, inputs: Inputs, rows: int | None = None, lanes: int | None = None,
             first_only: bool = False) -> Outputs:
    """w = m . v in double precision; with ``rows`` only the first rows written; with ``lanes``
    only the first ``lanes`` columns used (no stride loop); ``first_only``: work-item 0's share
    alone (no reduction)."""
    width, height = case["width"], case["height"]
    m = inputs["m"].reshape(height, width).astype(np.float64)
    v = inputs["v"].astype(np.float64)
    if lanes is not None:
        m, v = m[:, :lanes], v[:lanes]
    if first_only:
        step = case.local_size[0]
        m, v = m[:, ::step], v[::step]
    w = m @ v
    if rows is not None:
        w = np.where(np.arange(height) < rows, w, np.nan)
    return {"w": w}


def _mat_vec_cases(rows: list[tuple[int, int, int, int]]) -> tuple[Case, ...]:
    return tuple(Case((loc * groups,), (loc,), {"width": w, "height": h},
                      small=w * h <= 20000 and loc * groups <= 4096)
                 for w, h, loc, groups in rows)


_MAT_VEC_ARGS = (
    Buffer("m", np.float32, "in", lambda c: c["width"] * c["height"],
           shape=lambda c: (c["height"], c["width"])),
    Buffer("v", np.float32, "in", lambda c: c["width"]),
    Scalar("width", np.uint32, lambda c: c["width"]),
    Scalar("height", np.uint32, lambda c: c["height"]),
    Buffer("w", np.float32, "out", lambda c: c["height"]),
    LocalMem("partial", np.float32, lambda c: c.local_size[0]),
)


def _mat_vec_extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's largest power-of-two work-group: rows shorter than one work-group (two
    rows for each of two work-groups: the smallest of these, the one Oclgrind runs, where it
    simulates each work-group on one thread and two rows take two thirds of the time three did),
    rows longer than it by less than one, and fewer work-groups than rows."""
    local = limits.widest_1d(4)
    return tuple(Case((local * groups,), (local,), {"width": w, "height": h})
                 for w, h, groups in ((local // 2 + 3, 4, 2), (2 * local + 5, 3, 3),
                                      (local + 7, 20, 7)))


def _mat_vec_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"m": random_floats(rng, case["width"] * case["height"], -1.0, 1.0),
            "v": random_floats(rng, case["width"], -1.0, 1.0)}


register(Exercise(
    name="mat_vec_mul",
    title="Matrix times vector: a work-group per row, a tree in local memory",
    notebook="08-matvec-ladder",
    args=_MAT_VEC_ARGS,
    cases=_mat_vec_cases([(1100, 50, 256, 60), (1100, 300, 256, 60), (37, 20, 32, 5),
                          (1, 7, 1, 3), (513, 129, 64, 129), (64, 1000, 128, 17),
                          (2000, 3, 16, 1), (100, 100, 2, 100), (300, 41, 8, 41)]),
    make_inputs=_mat_vec_inputs,
    reference=_mat_vec,
    rtol=1e-4,
    atol=1e-4,
    hints=(
        "A work-group per row: the group takes the rows `y = get_group_id(0)`, then "
        "`y += get_num_groups(0)` while `y < height` (there may be fewer work-groups than rows). "
        "Every work-item of the group runs this loop the same number of times, so the barriers "
        "inside it are reached by all.",
        "For a row, work-item `lid` adds up the products of the row's elements and `v`'s at the "
        "columns `x = lid`, `lid + get_local_size(0)`, ... below `width`: neighbouring "
        "work-items read neighbouring floats (coalesced).",
        "Then the tree of `parallel_sum`, on `partial`: each work-item stores its sum at "
        "`partial[lid]`, a barrier, then the upper half is added onto the lower half, step by "
        "step, with a barrier after each step where every work-item reaches it (not inside the "
        "`if` that picks the lower half). Work-item 0 then writes `partial[0]` to `w[y]`.",
    ),
    mistakes=(
        Mistake("one row per group", lambda c, i: _mat_vec(c, i, rows=c.num_groups[0]),
                "only the first {groups} rows were computed: there are fewer work-groups than "
                "rows, so each work-group must loop over rows (y += get_num_groups(0))", hint=1),
        Mistake("no stride", lambda c, i: _mat_vec(c, i, lanes=c.local_size[0]),
                "only the first {local} columns were used: each work-item must loop over the row "
                "with x += get_local_size(0)", hint=2),
        Mistake("no reduction", lambda c, i: _mat_vec(c, i, first_only=True),
                "w holds work-item 0's share of each row only: the work-group's partial sums "
                "must all be added (the tree in local memory)", hint=3),
    ),
    finding_hints=(
        FindingHint("race", "a barrier is missing: one after the stores to partial and "
                    "one after each step of the tree", "local", hint=3),
        replace(_SUM_FINDINGS[1], hint=3),
        FindingHint("out_of_bounds_read", "m or v was read past its end: guard x < width and "
                    "y < height", "global", hint=2),
    ),
    widest=_mat_vec_extremes,
    tiled=True,
))



def _ladder_sum_cases(per: int) -> tuple[Case, ...]:
    out = []
    for n, loc in [(1000, 64), (4096, 256), (777, 128), (5000, 64)]:
        g = rounded_up(-(-n // per), loc) if per else loc * 3
        out.append(Case((g,), (loc,), {"n": n}, small=True))
    return tuple(out)


# sum_global adds in place in src, which the checker's contract forbids: the study checks it.
for _fn, _per in [("sum_local", 1), ("sum_local_two", 2), ("sum_sequential", 2), ("sum_four", 4),
                  ("sum_warp_unrolled", 4), ("sum_modern", 0), ("sum_chunks", 0)]:
    study_record("parallel_sum", _fn, "reduction.cl", _ladder_sum_cases(_per))

_LADDER_MV = _mat_vec_cases([(1100, 40, 256, 7), (37, 70, 64, 9), (300, 41, 128, 41),
                             (64, 33, 64, 2)])
for _fn in ["mv_item_rows", "mv_group_serial", "mv_group_interleaved", "mv_group_sequential",
            "mv_group_warp", "mv_slices"]:
    study_record("mat_vec_mul", _fn, "matvec.cl", _LADDER_MV)
study_record("mat_vec_mul", "mv_item_per_row", "matvec.cl",
              _mat_vec_cases([(1100, 40, 64, 1), (37, 70, 32, 3), (300, 41, 16, 3)]))


# ---------------------------------------------------------------------------------------------------
# Level 3 performance exercises (notebook 06): correct is the start, the check also times them.

def _transpose(case: Case, inputs: Inputs) -> Outputs:
    m = inputs["in"].reshape(case["height"], case["width"])
    return {"out": m.T.ravel().copy()}


def _transpose_cases() -> tuple[Case, ...]:
    rows = [(16, 16, 4), (37, 23, 8), (100, 64, 16), (64, 1, 8), (1, 50, 4), (33, 33, 16),
            (500, 300, 16), (1024, 768, 16), (129, 257, 8)]
    return tuple(two_d_case(w, h, (t, t), {"width": w, "height": h}) for w, h, t in rows)


def _transpose_extremes(limits: Limits) -> tuple[Case, ...]:
    """The largest T x T work-group whose T x (T + 1) tile fits, over matrices that are not
    multiples of T, one narrower than a tile; values across the float range."""
    t = limits.widest_square(lambda t: 4 * t * (t + 1))
    return tuple(replace(two_d_case(w, h, (t, t), {"width": w, "height": h}, small_up_to=0),
                         values="wide")
                 for w, h in ((2 * t + 5, t + 3), (t // 2 + 1, 3 * t + 1)))


def _transposed_as_copy(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"].copy()}


def _transpose_perf(side: int, t: int = 16) -> Case:
    return two_d_case(side, side, (t, t), {"width": side, "height": side}, small_up_to=0)


register(Exercise(
    name="transpose",
    title="Transpose a matrix through a tile in local memory",
    notebook="06-memory-access",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Buffer("out", np.float32, "out", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["width"], c["height"])),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] * (c.local_size[0] + 1)),
    ),
    cases=_transpose_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["width"] * case["height"])},
    reference=_transpose,
    rtol=0.0,
    atol=0.0,
    hints=(
        "Element `(x, y)` of `in` goes to `out[x * height + y]`. Written straight from `in` to "
        "`out`, the values are right but the writes are strided, and the check fails a kernel "
        "that never uses the tile. Through the tile: the work-group reads a `T x T` block of "
        "`in` into `tile` (neighbours reading neighbouring floats of a row), waits at a "
        "barrier, then writes the block's transpose to `out` from `tile` (neighbours writing "
        "neighbouring floats of a row of `out`).",
        "The block starts at column `get_group_id(0) * T` and row `get_group_id(1) * T` of `in` "
        "(`T = get_local_size(0)`). Work-item `(lx, ly)` loads the block's element at column "
        "`lx`, row `ly` into row `ly`, column `lx` of the tile, whose rows are `T + 1` floats "
        "long.",
        "The block's transpose starts at row `get_group_id(0) * T` and column "
        "`get_group_id(1) * T` of `out`. Work-item `(lx, ly)` writes row `block column + ly`, "
        "column `block row + lx` of `out`, taking the tile's element at row `lx`, column `ly`: "
        "the roles of `lx` and `ly` swap in the tile, not in `out`, so the writes stay "
        "coalesced.",
        "Guard the load (`x < width`, `y < height`) and the store (a row of `out` below "
        "`width`, a column below `height`), never the barrier: every work-item must reach it, "
        "also those outside the matrix, so none returns before it.",
    ),
    mistakes=(
        Mistake("copied", _transposed_as_copy,
                "out holds a copy of in, not its transpose: element (x, y) of in, "
                "in[y * width + x], goes to out[x * height + y]", hint=1),
    ),
    finding_hints=(
        FindingHint("race", "a barrier(CLK_LOCAL_MEM_FENCE) is missing between the loads into "
                    "tile and the reads of it: a work-item reads what another one wrote",
                    "local", hint=1),
        FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it, "
                    "or a barrier inside an if): guard the load and the store instead", hint=4),
        FindingHint("out_of_bounds_read", "in was read past its end: guard x < width and "
                    "y < height before loading", "global", hint=4),
        FindingHint("out_of_bounds_write", "out was written past its end: its rows are height "
                    "floats long and there are width of them; guard the store", "global", hint=4),
        FindingHint("out_of_bounds_read", "tile was read past its end: it holds T * (T + 1) "
                    "floats, rows of T + 1", "local", hint=2),
    ),
    performance=Performance(_transpose_perf(2048), _transpose_perf(512)),
    widest=_transpose_extremes,
    tiled=True,
    wide_inputs=lambda case, rng: {"in": wide_floats(rng, case["width"] * case["height"])},
))


def _saxpy(case: Case, inputs: Inputs) -> Outputs:
    return {"y": (np.float32(case["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}


def _saxpy_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["n"]), "y": random_floats(rng, case["n"])}


def _saxpy_extremes(limits: Limits) -> tuple[Case, ...]:
    """Fewer work-items than elements at the device's largest work-group."""
    local = limits.widest_1d()
    return short_of_the_data(local, lambda n, g: Case((g,), (local,), {"n": n, "a": 2.5}))


def _saxpy_cases() -> tuple[Case, ...]:
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n, "a": 2.5}, small=n <= 4096) for n, g, loc in rows)


def _saxpy_first(count: Callable[[Case], int]) -> Callable[[Case, Inputs], Outputs]:
    """y after a kernel that updates only its first ``count(case)`` elements (the rest unchanged)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        got = inputs["y"].astype(np.float64)
        k = min(count(case), got.size)
        got[:k] = _saxpy(case, inputs)["y"][:k]
        return {"y": got}
    return model


def _saxpy_perf(n: int, g: int) -> Case:
    return Case((g,), (256,), {"n": n, "a": 2.5})


register(Exercise(
    name="strided_fix",
    title="y = a x + y with neighbouring work-items on neighbouring elements",
    notebook="06-memory-access",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "inout", lambda c: c["n"]),
        Scalar("a", np.float32, lambda c: c["a"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=_saxpy_cases(),
    make_inputs=_saxpy_inputs,
    reference=_saxpy,
    rtol=1e-6,
    atol=1e-4,  # a * x + y may be one fused multiply-add or two roundings
    hints=(
        "The chunks are the trouble: at every step of the loop, neighbouring work-items are a "
        "whole chunk apart. Keep a loop in every work-item, but change which elements it visits, "
        "so that at every step the work-items together cover `get_global_size(0)` neighbouring "
        "elements.",
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
    performance=Performance(_saxpy_perf(1 << 24, 1 << 16), _saxpy_perf(1 << 20, 1 << 13),
                            given=("level3.cl", "saxpy_chunks")),
    widest=_saxpy_extremes,
))


def _even_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.9) * v + np.float32(0.1)).astype(np.float32)


def _odd_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.25) * v * v - np.float32(0.5)).astype(np.float32)


def _woven(case: Case, inputs: Inputs) -> Outputs:
    v = inputs["x"].astype(np.float32)
    even, odd = v[0::2].copy(), v[1::2].copy()   # each half takes its own step every round
    scratch = np.empty_like(odd)
    for _ in range(case["rounds"]):   # _even_step and _odd_step, in place (the same roundings)
        even *= np.float32(0.9)
        even += np.float32(0.1)
        np.multiply(odd, np.float32(0.25), out=scratch)
        scratch *= odd
        np.subtract(scratch, np.float32(0.5), out=odd)
    v[0::2], v[1::2] = even, odd
    return {"y": v}


def _woven_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    # |x| <= 1: the odd step then stays bounded (it settles near 2 - sqrt(6))
    return {"x": random_floats(rng, case["n"], -1.0, 1.0)}


def _one_branch(parity: int) -> Callable[[Case, Inputs], Outputs]:
    """y when every element took the step of ``parity`` (the branch's condition lost)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        v = inputs["x"].copy()
        for _ in range(case["rounds"]):
            v = _even_step(v) if parity == 0 else _odd_step(v)
        return {"y": v}
    return model


def _woven_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 3), (100, 32, 8), (1000, 256, 16), (4096, 64, 5), (777, 128, 32),
            (5, 1, 2), (1 << 18, 256, 16), ((1 << 18) + 3, 128, 7)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "rounds": r}, small=n <= 4096)
                 for n, loc, r in rows)


def _woven_extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n, "rounds": 5}))


def _woven_perf(n: int, rounds: int) -> Case:
    return Case((n,), (256,), {"n": n, "rounds": rounds})


register(Exercise(
    name="divergence_fix",
    title="The same result without divergent branches",
    notebook="06-memory-access",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("rounds", np.uint32, lambda c: c["rounds"]),
    ),
    cases=_woven_cases(),
    make_inputs=_woven_inputs,
    reference=_woven,
    rtol=1e-5,
    atol=1e-5,
    hints=(
        "The step still depends on the parity of the element `i`, not of the work-item: even "
        "elements go through `0.9 v + 0.1`, odd ones through `0.25 v v - 0.5`, `rounds` times. A "
        "warp splits only when its work-items disagree on a branch. Two remedies keep the result: "
        "give each warp elements of one parity (static reordering), or replace the branch by "
        "arithmetic (a lookup table).",
        "Static reordering: the first `ceil(n / 2)` work-items take the even elements and the "
        "rest the odd ones, work-item `g` taking element `2 g` while `g < ceil(n / 2)` and "
        "element `2 (g - ceil(n / 2)) + 1` after that. Only the warp at the seam then splits; "
        "work-items with `g >= n` have no element.",
        "A lookup table: both steps are `v = (a v + b) v + c` for some `a`, `b`, `c` (even: 0, "
        "0.9, 0.1; odd: 0.25, 0, -0.5). Read them from a `__constant` table indexed by the "
        "parity of `i`, and every work-item runs the same loop. Which is faster, the table or "
        "the reordering, and why? (Count the operations a warp runs per round.)",
        "A `__constant float3` table is correct OpenCL, but NVIDIA's driver reads it with the "
        "wrong stride (`results/history/float3-constant-nvidia-h100.json`): the check then says so. "
        "`float4` avoids it.",
    ),
    mistakes=(
        Mistake("even step everywhere", _one_branch(0),
                "every element went through the even step (0.9 v + 0.1): the odd elements "
                "(i % 2 == 1) take 0.25 v v - 0.5", hint=1),
        Mistake("odd step everywhere", _one_branch(1),
                "every element went through the odd step (0.25 v v - 0.5): the even elements "
                "(i % 2 == 0) take 0.9 v + 0.1", hint=1),
    ),
    performance=Performance(_woven_perf(1 << 22, 256), _woven_perf(1 << 18, 64), peak="compute",
                            # 2 flops a round on even elements, 3 on odd ones
                            flops=lambda c: 2.5 * c["n"] * c["rounds"],
                            given=("level3.cl", "branches_woven"),
                            # the table remedy runs 2 flops a round everywhere where the reordered
                            # solution averages 1.5: it is a remedy too, at about 75%
                            target=0.7),
    widest=_woven_extremes,
))

# The slow kernels the exercises start from are checked against the same contracts.
study_record("strided_fix", "saxpy_chunks", "level3.cl", _saxpy_cases())
study_record("divergence_fix", "branches_woven", "level3.cl", _woven_cases())
