"""mat_vec_mul (notebook 13): matrix times vector, a work-group per row and a tree in local
memory; and the study kernels of the matrix-vector ladder, checked by the same engine."""

from __future__ import annotations

import numpy as np

from .common import divergent_tree_barrier
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    Tile,
    random_floats,
    register,
    study_record,
)


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
    args=_MAT_VEC_ARGS,
    cases=_mat_vec_cases([(1100, 50, 256, 60), (1100, 300, 256, 60), (37, 20, 32, 5),
                          (1, 7, 1, 3), (513, 129, 64, 129), (64, 1000, 128, 17),
                          (2000, 3, 16, 1), (100, 100, 2, 100), (300, 41, 8, 41)]),
    make_inputs=_mat_vec_inputs,
    reference=_mat_vec,
    contract=("`w = m . v`, `m` row-major height x width; `partial` holds one float per work-item; "
              "one work-group per row at a time, coalesced reads (the whitepaper's step); there may"
              " be fewer work-groups than rows"),
    teaching=Teaching(
        title="Matrix times vector: a work-group per row, a tree in local memory",
        notebook="13-matvec-ladder",
        hints=(
            "Only the first rows right: there are fewer work-groups than rows, so a group goes on to "
            "row `y + get_num_groups(0)` while `y < height`. A hang or a divergent barrier there: "
            "the loop's condition must be the same for all the group's work-items (it depends on "
            "the group, never on `lid`).",
            "For a row, work-item `lid` adds the products at columns `lid`, `lid + "
            "get_local_size(0)`, ... below `width`: neighbouring work-items read neighbouring floats "
            "(coalesced).",
            "Then the tree of `parallel_sum` on `partial`, with a barrier after the stores and after "
            "each step, outside the `if` that picks the lower half. Work-item 0 writes `partial[0]` "
            "to `w[y]`.",
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
            divergent_tree_barrier(hint=3),
            FindingHint("out_of_bounds_read", "m or v was read past its end: guard x < width and "
                        "y < height", "global", hint=2),
        ),
        guard="",  # a row a work-group: a store past height is a wrong row, not a guard
        place=(13, 0),
    ),
    compare=Compare(rtol=1e-4, atol=1e-4),
    extremes=Extremes(cases=_mat_vec_extremes),
    tile=Tile(),
))


_LADDER_MV = _mat_vec_cases([(1100, 40, 256, 7), (37, 70, 64, 9), (300, 41, 128, 41),
                             (64, 33, 64, 2)])
for _fn in ["mv_item_rows", "mv_group_serial", "mv_group_interleaved", "mv_group_sequential",
            "mv_group_warp", "mv_slices"]:
    study_record("mat_vec_mul", _fn, "matvec.cl", _LADDER_MV)
study_record("mat_vec_mul", "mv_item_per_row", "matvec.cl",
              _mat_vec_cases([(1100, 40, 64, 1), (37, 70, 32, 3), (300, 41, 16, 3)]))
