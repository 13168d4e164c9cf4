"""softmax_group (notebook 17, the capstone's second rung): the softmax of each row, one
work-group per row; its work-items stride across the row (coalesced, as in 08-coalescing) and
combine their maximums, then their sums, with a tree in local memory (as in 12-parallel-sum)."""

from __future__ import annotations

import numpy as np

from .common import (
    SOFTMAX_ARGS,
    coalesced,
    divergent_tree_barrier,
    softmax,
    softmax_cases,
    softmax_inputs,
    softmax_mistakes,
)
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Limits,
    LocalMem,
    Performance,
    Teaching,
    Technique,
    Tile,
    register,
)

GROUP_CASES = [(20, 1000, 64), (7, 300, 32), (1, 1, 1), (9, 5, 16), (50, 129, 128), (33, 64, 2),
               (100, 37, 8), (5, 17, 4), (6, 700, 256), (1000, 1000, 128), (300, 4099, 256)]


def group_extremes(limits: Limits, bytes_per_item: int) -> tuple[Case, ...]:
    """At the device's largest power-of-two work-group whose local memory fits: rows shorter
    than the work-group, and longer than it by less than one work-group."""
    local = limits.widest_1d(bytes_per_item)
    return softmax_cases([(5, local // 2 + 3, local), (3, 2 * local + 5, local)], "group",
                         small_up_to=0)


def group_perf(rows: int, cols: int) -> Case:
    return softmax_cases([(rows, cols, 256)], "group", small_up_to=0)[0]


def group_findings(arrays: str) -> tuple[FindingHint, ...]:
    """What Oclgrind's reports mean in a work-group-per-row softmax (``arrays``: the local
    arrays, as the messages name them)."""
    return (
        FindingHint("race", f"a barrier is missing: work-items read {arrays} before the others "
                    "have finished writing it (one barrier after the stores, one after each step "
                    "of the tree, and one after everyone has read the result in slot 0 and "
                    "before the next stores overwrite it)", "local", hint=1),
        divergent_tree_barrier(hint=2),
        FindingHint("out_of_bounds_read", "x was read past its row: each work-item's columns "
                    "stop below cols", "global", hint=1),
        FindingHint("uninitialized", f"the tree read a slot of {arrays} that no work-item "
                    "wrote: every work-item stores, even one with no column", hint=3),
    )


register(Exercise(
    name="softmax_group",
    args=SOFTMAX_ARGS + (LocalMem("scratch", np.float32, lambda c: c.local_size[0]),),
    cases=softmax_cases(GROUP_CASES, "group"),
    make_inputs=softmax_inputs,
    reference=softmax,
    performance=Performance(group_perf(4096, 4096), group_perf(1024, 1024)),
    contract=("as `softmax_rows`; one work-group per row (the range holds rows work-groups, a "
              "power of two each); `scratch` holds one float per work-item; coalesced reads and "
              "writes; timed"),
    teaching=Teaching(
        title="Softmax of each row: one work-group per row, trees in local memory",
        notebook="17-capstone-softmax",
        hints=(
            "Wrong only where `cols` exceeds the local size: the stride is the local size. A race "
            "on `scratch`: the sum's stores may overwrite slot 0 before all have read the maximum.",
            "The trees are `group_max`'s and `parallel_sum`'s; no work-item returns before a "
            "barrier.",
            "A work-item with no column still stores `-INFINITY` for the maximum and 0 for the sum.",
        ),
        mistakes=softmax_mistakes(zero_hint=3, per_group=True, stride_hint=1),
        finding_hints=group_findings("scratch"),
        guard="",  # a row a work-group: a store past the data is a wrong row, not a guard
        place=(17, 1),
    ),
    compare=Compare(rtol=1e-4, atol=1e-6),
    extremes=Extremes(cases=lambda limits: group_extremes(limits, 4)),
    technique=Technique(judge=coalesced),
    tile=Tile(),
))
