"""padded_tile (notebook 09): out = in + in^T through a tile whose rows are padded to T + 1
floats. The skeleton is correct with rows of T floats: reading the tile down a column, the lanes
of a warp then hit the same bank (T = 32: a 32-way conflict); the only change is the padding."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .common import coalesced, conflict_free_reads
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
    random_floats,
    register,
    two_d_case,
    wide_floats,
)


def _size(c: Case) -> int:
    return c["n"] * c["n"]


def _matrix(case: Case, inputs: Inputs) -> np.ndarray:
    return inputs["in"].reshape(case["n"], case["n"])


def _symmetric(case: Case, inputs: Inputs) -> Outputs:
    m = _matrix(case, inputs)
    return {"out": (m + m.T).ravel()}


def _transposed_only(case: Case, inputs: Inputs) -> Outputs:
    return {"out": _matrix(case, inputs).T.ravel().astype(np.float64)}


def _doubled(case: Case, inputs: Inputs) -> Outputs:
    m = _matrix(case, inputs)
    return {"out": (m + m).ravel().astype(np.float64)}


def _case(n: int, t: int, small_up_to: int = 8192) -> Case:
    return two_d_case(n, n, (t, t), {"n": n}, small_up_to=small_up_to)


def _cases() -> tuple[Case, ...]:
    rows = [(16, 4), (37, 8), (64, 16), (33, 16), (5, 1), (9, 2), (40, 32), (100, 16),
            (129, 8), (1000, 16), (777, 32)]
    return tuple(_case(n, t) for n, t in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """The largest T x T work-group whose T x (T + 1) tile fits, over matrices that are not
    multiples of T, one smaller than a tile; values across the float range."""
    t = limits.widest_square(lambda t: 4 * t * (t + 1))
    return tuple(replace(_case(n, t, small_up_to=0), values="wide") for n in (2 * t + 5, t // 2 + 1))


_TILE = "tile holds T * (T + 1) floats: rows of T + 1, row r at tile[r * (T + 1)]"

register(Exercise(
    name="padded_tile",
    title="Pad a local tile: in + in transposed without bank conflicts",
    notebook="09-bank-conflicts",
    args=(
        Buffer("in", np.float32, "in", _size, shape=lambda c: (c["n"], c["n"])),
        Buffer("out", np.float32, "out", _size, shape=lambda c: (c["n"], c["n"])),
        Scalar("n", np.uint32, lambda c: c["n"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] * (c.local_size[0] + 1)),
    ),
    cases=_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, _size(case))},
    reference=_symmetric,
    rtol=0.0,
    atol=0.0,
    hints=(
        "Float `w` of local memory lies in bank `w % 32`. Read down a column, a warp's floats are a"
        ' row apart: with rows of 32 floats, all in one bank.',
        'Give every row one float more, `T + 1`: row `r` then starts in bank `r % 32`, and a column'
        ' spreads over all banks. The padding is never used.',
        'The row length appears twice, where the tile is filled and where it is read: both must use'
        ' `T + 1`. The guards and the barrier stay.',
    ),
    mistakes=(
        Mistake("transposed only", _transposed_only,
                "out holds the transpose of in only: out[y * n + x] is in[y * n + x] plus the "
                "mirrored in[x * n + y]", hint=3),
        Mistake("doubled", _doubled,
                "out holds in + in: the tile holds the mirrored block, and work-item (lx, ly) "
                "reads its row lx, column ly (the roles of lx and ly swap in the read)", hint=3),
    ),
    finding_hints=(
        FindingHint("race", "a barrier(CLK_LOCAL_MEM_FENCE) is missing between filling the tile "
                    "and reading it: a work-item reads what another one wrote", "local", hint=3),
        FindingHint("uninitialized", "a read of the tile found a float that no work-item wrote: "
                    "the read must find what the store wrote there (rows of T + 1 in both; the "
                    "mirrored block loaded, its row from get_group_id(0), its column from "
                    "get_group_id(1)), never the padding float", hint=3),
        FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it, "
                    "or a barrier inside an if): guard the load and the store instead", hint=3),
        FindingHint("out_of_bounds_read", f"the tile was read past its end: {_TILE}", "local",
                    hint=2),
        FindingHint("out_of_bounds_write", f"the tile was written past its end: {_TILE}",
                    "local", hint=2),
    ),
    widest=_extremes,
    tiled=True,
    tile_reads=0.4,
    wide_inputs=lambda case, rng: {"in": wide_floats(rng, _size(case))},
    # 16 x 16 work-groups: a warp spans two rows of the work-group and the T + 1 padding leaves
    # one pair of its reads in one bank (2 wavefronts; rows of T floats: 8); at T = 32, 1 and 32.
    # The mirrored block passes through the tile: every read of global memory is coalesced (one
    # down a column of `in` is the tile skipped)
    technique=lambda facts: coalesced(facts, 1.5) or conflict_free_reads(facts, 2.0),
    technique_cases=(_case(64, 32),),       # tiles of 32 x 33: 1 wavefront a read (rows of 32: 32)
    contract=("`in`, `out` row-major n x n; `out[y * n + x] = in[y * n + x] + in[x * n + y]`; "
              "2-D range, dimension 0 = column x; square work-groups T x T (T a power of two); "
              "`tile` holds T * (T + 1) floats and the mirrored block passes through it; reads and "
              "writes of global memory coalesced; a warp's reads of the tile fall in different "
              "banks (rows of T + 1); global size may exceed n"),
    place=(9, 2),
))
