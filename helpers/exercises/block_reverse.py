"""block_reverse (notebook 02): each work-group reverses its own block of the data; the lesson is
the local id, the group id and the local size (the skeleton uses the global id for everything)."""

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
    Mistake,
    Outputs,
    Teaching,
    random_floats,
    register,
    wide_floats,
)


def _block_reverse(case: Case, inputs: Inputs) -> Outputs:
    return {"out": group_blocks(case, inputs["in"])[:, ::-1].ravel().copy()}


def _copied(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"].astype(np.float64)}


def _whole(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"][::-1].astype(np.float64)}


def _first_block_everywhere(case: Case, inputs: Inputs) -> Outputs:
    """Every block of out holds the first block of in, reversed (the input's offset left out)."""
    first = group_blocks(case, inputs["in"])[0, ::-1]
    return {"out": np.tile(first, case.num_groups[0]).astype(np.float64)}



def _cases() -> tuple[Case, ...]:
    rows = [(5, 1), (7, 2), (1, 64), (16, 64), (3, 97), (11, 13), (4, 256), (9, 100),
            (4096, 256), (1031, 128)]
    return tuple(whole_groups_case(g, loc) for g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """The device's largest work-group: one block, and several."""
    local = limits.widest_1d()
    return whole_groups_extremes(local)


register(Exercise(
    name="block_reverse",
    args=(
        Buffer("in", np.float32, "in", range_length),
        Buffer("out", np.float32, "out", range_length),
    ),
    cases=_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, range_length(case))},
    reference=_block_reverse,
    contract=("1-D range whose global size equals the data length, a multiple of the local size "
              "L; `out[g*L + (L-1-l)] = in[g*L + l]` (g the group id, l the local id)"),
    teaching=Teaching(
        title="Reverse each work-group's block: local id, group id, local size",
        notebook="02-work-groups",
        hints=(
            "Think of the data as blocks of `get_local_size(0)` elements, one per work-group. Where "
            "does block number `get_group_id(0)` start?",
            "Inside its block, a work-item is number `get_local_id(0)`; the mirrored position counts "
            "from the block's other end, so it depends on the local size, not the global size.",
            "Each work-item reads the element at its own place (block start plus local id) and writes "
            "it at the mirrored place of the same block.",
        ),
        mistakes=(
            Mistake("copied", _copied,
                    "out holds a copy of in: the global id gives a work-item its element, but its "
                    "place in the reversed block comes from its local id, mirrored inside the block",
                    hint=2),
            Mistake("whole reversed", _whole,
                    "the whole list was reversed, not each work-group's block of {local}: mirror the "
                    "local id inside the block (with the local size), and keep the block where it is",
                    hint=2),
            Mistake("first block everywhere", _first_block_everywhere,
                    "every block of out holds the first block of in, reversed: the elements read "
                    "must come from the work-group's own block, which starts at the group id times "
                    "the local size", hint=1),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_write", "a write past the end of out: the mirrored place "
                        "must stay inside the work-group's block, from its start + L - 1 down to its "
                        "start (L the local size)", "global", hint=2),
        ),
        place=(2, 2),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, range_length(case))},
    ),
))
