"""transpose (notebook 09), a performance exercise: transpose a matrix through a tile in local
memory; correct is the start, the check also times it."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .common import coalesced, conflict_free_reads, tile_passes_allowed
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
    Performance,
    Scalar,
    Teaching,
    Technique,
    Tile,
    random_floats,
    register,
    two_d_case,
    wide_floats,
)


def _transpose(case: Case, inputs: Inputs) -> Outputs:
    m = inputs["in"].reshape(case["height"], case["width"])
    return {"out": m.T.ravel().copy()}


def _transpose_cases() -> tuple[Case, ...]:
    rows = [(16, 16, 4), (37, 23, 8), (100, 64, 16), (64, 1, 8), (1, 50, 4), (33, 33, 16),
            (500, 300, 16), (1024, 768, 16), (129, 257, 8),
            (5, 3, 1), (9, 6, 2)]   # the smallest T the contract allows: 1 and 2
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
    performance=Performance(_transpose_perf(2048), _transpose_perf(512)),
    contract=("`in` row-major height x width, `out` row-major width x height, `out[x * height + y] "
              "= in[y * width + x]`; 2-D range, dimension 0 = column x of `in`; square work-groups "
              "T x T (T a power of two); `tile` holds T * (T + 1) floats and is used (the block "
              "passes through it); reads and writes of global memory coalesced; a warp's reads of "
              "the tile fall in different banks (padded or skewed); global size may exceed the "
              "matrix; timed against the copy bandwidth"),
    teaching=Teaching(
        title="Transpose a matrix through a tile in local memory",
        notebook="09-bank-conflicts",
        hints=(
            "Right values, but the check says the writes are not coalesced or the tile unused: swap in "
            "the tile (read `tile[lx][ly]`), not in the index into `out`. A race: a barrier is missing "
            "between filling the tile and reading it.",
            "Wrong values at the right or bottom edge: `width` and `height` need not be multiples of T; "
            "guard the load by `in`'s bounds and the store by `out`'s.",
            "A hang, or a barrier some work-items skip: guard the load and the store, never the barrier.",
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
                        "or a barrier inside an if): guard the load and the store instead", hint=3),
            FindingHint("out_of_bounds_read", "in was read past its end: guard x < width and "
                        "y < height before loading", "global", hint=3),
            FindingHint("out_of_bounds_write", "out was written past its end: its rows are height "
                        "floats long and there are width of them; guard the store", "global", hint=3),
            FindingHint("out_of_bounds_read", "tile was read past its end: it holds T * (T + 1) "
                        "floats, rows of T + 1", "local", hint=2),
        ),
        guard="if (ox < height && oy < width), ox and oy the column and row of out it stores",
        place=(9, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=_transpose_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, case["width"] * case["height"])},
    ),
    technique=Technique(
        # the counters' case has 16x16 work-groups: a warp spans two rows of the tile, and the T + 1
        # padding leaves those two rows 2-way in conflict (an unpadded tile: 8-way)
        judge=lambda facts: coalesced(facts, 1.5) or conflict_free_reads(
            facts, tile_passes_allowed(facts)),
        # tiles of 32 x 33 too: a warp is one row of the tile, 1 wavefront a read (rows of 32: 32)
        cases=(two_d_case(64, 48, (32, 32), {"width": 64, "height": 48}),),
    ),
    tile=Tile(reads=0.75),
))
