"""skewed_tile (notebook 09): out = in + in^T through a tile of exactly T x T floats whose rows
are skewed: element (r, c) at ``tile[r * T + (c + r) % T]``. The skeleton is correct with the plain
``tile[r * T + c]``: reading the tile down a column, the lanes of a warp then hit the same bank
(T = 32: a 32-way conflict); there is no room to pad, and the only change is the skew."""


from __future__ import annotations

from dataclasses import replace

import numpy as np

from .common import coalesced, conflict_free_reads
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
    Technique,
    Tile,
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
    """The largest T x T work-group whose T x T tile fits, over matrices that are not multiples
    of T, one smaller than a tile; values across the float range."""
    t = limits.widest_square(lambda t: 4 * t * t)
    return tuple(replace(_case(n, t, small_up_to=0), values="wide") for n in (2 * t + 5, t // 2 + 1))


def _conflicts(facts: dict) -> str | None:
    """The tile's reads in conflict: there is no room to pad here, so the verdict says skew, and
    names the hint about it."""
    found = conflict_free_reads(facts)
    return found and (found.replace("Pad or skew the tile", "Skew the tile's rows")
                      + " (Hint 3 is about this.)")


_TILE = ("the tile holds exactly T * T floats, row r at tile[r * T]: no room for a padding "
         "float; a skewed column index stays inside its row with % T (not % 32)")

register(Exercise(
    name="skewed_tile",
    args=(
        Buffer("in", np.float32, "in", _size, shape=lambda c: (c["n"], c["n"])),
        Buffer("out", np.float32, "out", _size, shape=lambda c: (c["n"], c["n"])),
        Scalar("n", np.uint32, lambda c: c["n"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] * c.local_size[0]),
    ),
    cases=_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, _size(case))},
    reference=_symmetric,
    contract=("`in`, `out` row-major n x n; `out[y * n + x] = in[y * n + x] + in[x * n + y]`; "
              "2-D range, dimension 0 = column x; square work-groups T x T (T a power of two); "
              "`tile` holds exactly T * T floats (no room to pad) and the mirrored block passes "
              "through it; reads and writes of global memory coalesced; a warp's reads of the "
              "tile fall in different banks (rows skewed); global size may exceed n"),
    teaching=Teaching(
        title="Skew a local tile: in + in transposed without bank conflicts, with no room to pad",
        notebook="09-bank-conflicts",
        hints=(
            "Wrong values, or a float nobody wrote: the read must find what the store put there. Name"
            " each access's row and column in the tile (store: `ly`, `lx`; read: `lx`, `ly`) and send"
            " both through one mapping.",
            "Past the tile's end: it holds exactly T*T floats, no room to pad; with T < 32, `% 32`"
            " overruns a row.",
            "Still a conflict: the shift must differ from row to row, at every T the check tries.",
        ),
        mistakes=(
            Mistake("transposed only", _transposed_only,
                    "out holds the transpose of in only: out[y * n + x] is in[y * n + x] plus the "
                    "mirrored in[x * n + y]", hint=1),
            Mistake("doubled", _doubled,
                    "out holds in + in: each work-item met its own element again; the tile must hold "
                    "the mirrored block (its row from get_group_id(0), its column from "
                    "get_group_id(1)), and work-item (lx, ly) reads its row lx, column ly (the roles "
                    "of lx and ly swap in the read)", hint=1),
        ),
        finding_hints=(
            FindingHint("race", "a barrier(CLK_LOCAL_MEM_FENCE) is missing between filling the tile "
                        "and reading it: a work-item reads what another one wrote", "local"),
            FindingHint("uninitialized", "a read of the tile found a float that no work-item wrote: "
                        "the read must find what the store wrote there (the same skew in both; the "
                        "mirrored block loaded, its row from get_group_id(0), its column from "
                        "get_group_id(1))", hint=1),
            FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it, "
                        "or a barrier inside an if): guard the load and the store instead"),
            FindingHint("out_of_bounds_read", f"the tile was read past its end: {_TILE}", "local",
                        hint=2),
            FindingHint("out_of_bounds_write", f"the tile was written past its end: {_TILE}",
                        "local", hint=2),
        ),
        place=(9, 2),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, _size(case))},
    ),
    technique=Technique(
        # 16 x 16 work-groups: a warp spans two rows of the work-group, and the skew puts its 32
        # reads in 32 banks (1 wavefront; rows of T floats unskewed: 8); at T = 32, 1 and 32.
        # The mirrored block passes through the tile: every read of global memory is coalesced (one
        # down a column of `in` is the tile skipped)
        judge=lambda facts: coalesced(facts, 1.5) or _conflicts(facts),
        cases=(_case(64, 32),),  # tiles of 32 x 32: 1 wavefront a read (unskewed: 32)
    ),
    tile=Tile(reads=0.4),
))
