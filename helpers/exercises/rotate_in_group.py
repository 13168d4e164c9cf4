"""rotate_in_group (notebook 03): each work-group rotates its block by one place through a tile in
local memory; the lesson is the barrier between writing the tile and reading it (the skeleton has
everything but the barrier)."""

from __future__ import annotations

import numpy as np

from .common import group_blocks, range_length, whole_groups_case, whole_groups_extremes
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
    Teaching,
    Tile,
    random_floats,
    register,
    wide_floats,
)


def _rotate(case: Case, inputs: Inputs) -> Outputs:
    return {"out": np.roll(group_blocks(case, inputs["in"]), -1, axis=1).ravel().copy()}


def _other_way(case: Case, inputs: Inputs) -> Outputs:
    return {"out": np.roll(group_blocks(case, inputs["in"]), 1, axis=1).ravel().astype(np.float64)}


def _whole_list(case: Case, inputs: Inputs) -> Outputs:
    """The whole list rotated by one (a kernel that reads in[(i + 1) % n] from global memory)."""
    return {"out": np.roll(inputs["in"], -1).astype(np.float64)}



def _cases() -> tuple[Case, ...]:
    rows = [(3, 64), (5, 1), (7, 2), (1, 64), (16, 64), (3, 97), (11, 13), (4, 256), (9, 100),
            (4096, 256), (1031, 128)]
    return tuple(whole_groups_case(g, loc) for g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """The device's largest work-group whose tile fits: one block, and several."""
    local = limits.widest_1d(4)
    return whole_groups_extremes(local)


BARRIER = ("barrier missing or misplaced: work-items read the tile before the others have "
           "stored their element in it; put barrier(CLK_LOCAL_MEM_FENCE) after the store into "
           "tile and before the read of the neighbour's element")

register(Exercise(
    name="rotate_in_group",
    args=(
        Buffer("in", np.float32, "in", range_length),
        Buffer("out", np.float32, "out", range_length),
        LocalMem("tile", np.float32, lambda c: c.local_size[0]),
    ),
    cases=_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, range_length(case))},
    reference=_rotate,
    contract=("global size == data length, a multiple of the local size L; `tile` holds L "
              "floats; `out[g*L + l]` = the block's `in[g*L + (l + 1) % L]`, read through "
              "`tile`"),
    teaching=Teaching(
        title="Rotate each work-group's block through local memory: a barrier in the right place",
        notebook="03-local-memory",
        hints=(
            "Each work-item reads a tile element that another work-item stored, and a group's "
            "work-items do not run in lock-step: nothing says the neighbour has stored it yet.",
            "A barrier makes the group wait until all its work-items reach it and their local stores "
            "are visible. It belongs between the last store a reader needs and the first read.",
            "The built-in is `barrier(CLK_LOCAL_MEM_FENCE)`; every work-item of the group must reach "
            "it, so keep it outside any condition.",
        ),
        mistakes=(
            Mistake("other way", _other_way,
                    "each block was rotated the other way: out[g*L + l] takes the element of local "
                    "id l + 1 (wrapping round to 0 at the block's end), not l - 1"),
            Mistake("whole list", _whole_list,
                    "the whole list was rotated, not each work-group's block of {local}: the last "
                    "element of a block takes the first element of its own block"),
        ),
        finding_hints=(
            FindingHint("race", BARRIER, "local", hint=2),
            FindingHint("uninitialized", BARRIER, hint=2),
            FindingHint("divergent_barrier", "the barrier is inside a branch: every work-item of the "
                        "group must reach it, so keep it outside any condition", hint=3),
            FindingHint("out_of_bounds_read", "a read outside the tile: it holds get_local_size(0) "
                        "floats, so the neighbour of the last work-item is tile[0] (wrap round with "
                        "% get_local_size(0))", "local", hint=0),
        ),
        place=(3, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, range_length(case))},
    ),
    tile=Tile(reads=0.75),
))
