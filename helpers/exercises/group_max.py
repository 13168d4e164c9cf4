"""group_max (notebook 12): the maximum of the elements each work-group covers (a grid-stride
loop, then a tree in local memory), as parallel_sum's partial sums but with max, whose start is
-INFINITY rather than 0."""

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
    extreme_floats,
    random_floats,
    register,
)


def _group_max(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """partial[g]: the maximum over the elements i < n (i < upto) with (i % G) // L == g,
    -inf where there is none."""
    g, loc = case.global_size[0], case.local_size[0]
    n = case["n"] if upto is None else min(upto, case["n"])
    src = inputs["src"][:n].astype(np.float64)
    out = np.full(case.num_groups[0], -np.inf)
    np.maximum.at(out, (np.arange(n) % g) // loc, src)
    return {"partial": out}


def _from_zero(case: Case, inputs: Inputs) -> Outputs:
    return {"partial": np.maximum(_group_max(case, inputs)["partial"], 0.0)}


def _only_empty_groups(case: Case, bad: np.ndarray) -> bool:
    """Whether the wrong partials are exactly those of the work-groups that cover no element
    (group g covers one when g * L < n): a start from the largest negative float, say."""
    groups = np.arange(case.num_groups[0])
    empty = np.flatnonzero(groups * case.local_size[0] >= case["n"])
    return empty.size > 0 and np.array_equal(np.sort(np.asarray(bad)), empty)


def _cases() -> tuple[Case, ...]:
    rows = [(1000, 64, 4), (4096, 256, 16), (10007, 128, 8), (50, 32, 4), (1, 1, 1),
            (777, 16, 100), (3, 2, 1), (5, 2, 7), (100000, 256, 30), ((1 << 20) + 3, 256, 120),
            (4099, 64, 64), (40, 32, 2), (333, 8, 5)]
    return tuple(Case((loc * groups,), (loc,), {"n": n}, small=n <= 5000 and loc * groups <= 5000)
                 for n, loc, groups in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's largest power-of-two work-group: fewer elements than one work-group, the
    range past the data by less than one work-group and by several, and fewer work-items than
    elements; values across the float range."""
    local = limits.widest_1d(4)
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide")) + (
        Case((2 * local,), (local,), {"n": 5 * local + 3}, values="wide"),)


register(Exercise(
    name="group_max",
    args=(
        Buffer("src", np.float32, "in", lambda c: c["n"]),
        Buffer("partial", np.float32, "out", lambda c: c.num_groups[0]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        LocalMem("scratch", np.float32, lambda c: c.local_size[0]),
    ),
    cases=_cases(),
    # all negative: a maximum that starts from 0 is wrong everywhere (the wide values have both
    # signs)
    make_inputs=lambda case, rng: {"src": random_floats(rng, case["n"], -1000.0, -1.0)},
    reference=_group_max,
    contract=("`partial[get_group_id(0)]` = the maximum of `src[i]` over the elements this "
              "work-group covers (i = g, g + G, ... < n for each of its work-items g, G the "
              "global size), -INFINITY where it covers none; local size a power of two; global "
              "size may be smaller or larger than n"),
    teaching=Teaching(
        title="The maximum per work-group: a grid-stride loop, then a tree in local memory",
        notebook="12-parallel-sum",
        hints=(
            'Too small a maximum: some elements were never looked at; the grid-stride loop is '
            '`parallel_sum`\'s.',
            'Wrong where every value is negative: start from `-INFINITY`, not 0.',
            'A race or a hang: the barriers of `parallel_sum`, each outside the `if`.',
        ),
        mistakes=(
            Mistake("from zero", _from_zero,
                    "the maximums that should be negative came out as 0: the maximum started from "
                    "0, which beats every negative value; start from -INFINITY", hint=2),
            Mistake("empty groups", None,
                    "the work-groups that cover no element (the range has more work-items than "
                    "n = {n} elements) must write -INFINITY: start the maximum from -INFINITY, not "
                    "from the largest negative float or the first element", wrong_at=_only_empty_groups,
                    hint=2),
            Mistake("one element each", lambda c, i: _group_max(c, i, c.work_items),
                    "only the first {global_} elements were looked at: the range has fewer "
                    "work-items than n = {n} elements, so each work-item must look at several (a "
                    "loop with i += get_global_size(0))", hint=1),
        ),
        finding_hints=(
            FindingHint("race", "a barrier is missing: work-items read scratch before the others "
                        "have finished writing it (one barrier after the stores, one after each "
                        "step of the tree)", "local", hint=3),
            divergent_tree_barrier(hint=3),
            FindingHint("out_of_bounds_read", "src was read past its end: guard every read with "
                        "i < n", "global", hint=1),
            FindingHint("uninitialized", "the tree read a slot of scratch that no work-item wrote: "
                        "every work-item stores its maximum (-INFINITY if it has no element) before "
                        "the first barrier", hint=2),
        ),
        place=(12, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=_extremes,
        inputs=lambda case, rng: {"src": extreme_floats(rng, case["n"])},
    ),
    tile=Tile(),
))
