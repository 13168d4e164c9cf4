"""parallel_sum (notebook 12): a partial sum per work-group, reduced in local memory; and the
study kernels of the reduction ladder, which the same engine checks (Oclgrind included) with
cases that fit each one."""

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
    beyond_the_data,
    random_ints,
    register,
    rounded_up,
    study_record,
)


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
    "Look at the case the check names: a work-group of one work-item has no tree, and a group "
    "past the data still writes its `0`.",
    "Too large a sum: an element counted twice (the stride is the global size, not the "
    "local one) or read at or past `n`.",
    "A race or a hang: a barrier missing after the stores or after a step, or one inside the "
    "`if` that picks the lower half.",
)

_SUM_FINDINGS = (
    FindingHint("race", "a barrier is missing: work-items read scratch before the others "
                "have finished writing it (one barrier after the stores, one after each step)",
                "local", hint=3),
    divergent_tree_barrier(hint=3),
    FindingHint("out_of_bounds_read", "src was read past its end: guard every read with i < n",
                "global", hint=2),
)

register(Exercise(
    name="parallel_sum",
    args=_SUM_ARGS_3,
    cases=_sum_cases([(1000, 64, 4), (4096, 256, 16), (10007, 128, 8), (50, 32, 4),
                      (1, 1, 1), (777, 16, 100), (3, 2, 1), (100000, 256, 30),
                      ((1 << 20) + 3, 256, 120), (4099, 64, 64), (40, 32, 2)]),
    make_inputs=lambda case, rng: {"src": random_ints(rng, case["n"], 1000)},
    reference=_grid_stride_partials,
    contract=("`partial[get_group_id(0)]` = the sum of the elements this work-group covers; the "
              "host adds the partials; global size may be smaller or larger than n"),
    teaching=Teaching(
        title="Sum an array: a partial sum per work-group, reduced in local memory",
        notebook="12-parallel-sum",
        hints=_SUM_HINTS,
        mistakes=(
            Mistake("one element each", lambda c, i: _grid_stride_partials(c, i, c.work_items),
                    "only the first {global_} elements were added: the range has fewer work-items "
                    "than n = {n} elements, so each work-item must add several (a loop with "
                    "i += get_global_size(0))", hint=2),
        ),
        finding_hints=_SUM_FINDINGS,
        place=(12, 0),
    ),
    compare=Compare(view=_total, label="the sum of the partial sums", rtol=0.0, atol=0.0),
    extremes=Extremes(cases=_sum_extremes),
    tile=Tile(),
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
