"""erosion_1d_local (notebook 03): erosion_1d's result, through a tile in local memory with
its halo."""

from __future__ import annotations

import numpy as np

from .common import (
    clipping_finding,
    wide_1d,
    window_1d,
    window_1d_bench_cases,
    window_1d_cases,
    window_1d_extremes,
    window_1d_mistakes,
)
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    LocalMem,
    Mistake,
    Scalar,
    Teaching,
    Tile,
    random_floats,
    register,
)


def _near_group_edges(case: Case, bad: np.ndarray) -> bool:
    """Every wrong element lies within radius of its work-group's block edge (halo not loaded)."""
    loc, r = case.local_size[0], case["radius"]
    # The pattern only says something when a group has an interior (loc > 2r) that holds data.
    if bad.size == 0 or loc <= 2 * r or r == 0 or case["n"] <= r:
        return False
    pos = bad % loc
    return bool(np.all((pos < r) | (pos >= loc - r)))


register(Exercise(
    name="erosion_1d_local",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] + 2 * c["radius"]),
    ),
    cases=window_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=window_1d,
    contract="same result; `tile` holds `local size + 2*radius` floats and is used",
    bench_cases=window_1d_bench_cases(),
    teaching=Teaching(
        title="Erosion of a list with a tile in local memory",
        notebook="03-local-memory",
        hints=(
            "A write outside `tile`: it holds `get_local_size(0) + 2 * radius` floats, so the loading "
            "loop stops below that. Wrong values near the start only: an index below 0 "
            "computed on a `uint` wraps round to a huge one; compute `start + k` as a `long`.",
            "Wrong values within `radius` of a group's edge: the loading loop must fill the whole "
            "tile, both halos included, whatever the radius; outside the data, `INFINITY`.",
            "Then `barrier(CLK_LOCAL_MEM_FENCE)`, reached by every work-item (no early return, not "
            "inside an `if`); after it, each one with `i < n` takes the minimum of the `2 * radius + "
            "1` elements from `tile[get_local_id(0)]`.",
        ),
        mistakes=window_1d_mistakes(borders=2, window=3) + (
            Mistake("halo not loaded", None,
                    "every wrong element lies within {radius} of its work-group's edge: the halo (the "
                    "radius elements on each side of the group's block) was not loaded into the tile",
                    wrong_at=_near_group_edges, hint=2),
        ),
        finding_hints=(
            FindingHint("race", "barrier missing: work-items read the tile before the others have "
                        "finished writing it; put barrier(CLK_LOCAL_MEM_FENCE) between loading the "
                        "tile and reading it", "local", hint=3),
            FindingHint("uninitialized", "the window reads tile elements that no work-item wrote: is "
                        "the halo loaded, on both sides?", hint=2),
            FindingHint("divergent_barrier", "the barrier is inside a branch (if (i < n) ...?): every "
                        "work-item of the group must reach it, so keep it outside any condition",
                        hint=3),
            clipping_finding(hint=2),
            FindingHint("out_of_bounds_write", "the tile holds local size + 2 * radius floats: an index "
                        "into it went past that", "local", hint=1),
        ),
        place=(3, 2),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=lambda limits: window_1d_extremes(limits, tile=True), inputs=wide_1d),
    tile=Tile(reads=1.0),
))
