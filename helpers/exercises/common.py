"""What several exercises share, named by what it is rather than by an exercise: the extremes of a
guarded 1-D kernel and of a 2-D one, the sum of two lists of ints, and the minimum over a window
(a 1-D one with its cases, extremes and mistakes). Each exercise's module imports what it uses
from here; this module names no exercise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .model import (
    Buffer,
    Case,
    FindingHint,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Scalar,
    beyond_the_data,
    extreme_floats,
    random_floats,
    random_ints,
    rounded_up,
    wide_ints,
)

# ---------------------------------------------------------------------------------------------------
# The extremes of a launch.


def guarded_extremes(limits: Limits) -> tuple[Case, ...]:
    """One element per work-item, at the device's largest work-group: the data shorter than one
    work-group, the range past it by less than one work-group and by several; values across the
    whole range."""
    local = limits.widest_1d()
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide"))


def square_and_flat(limits: Limits, make: Callable[[int, int, tuple[int, int]], Case]
                    ) -> tuple[Case, ...]:
    """2-D extremes: the largest square work-group, and the largest one a single row long, each
    over a grid that is not a multiple of it and spills past it by less than one work-group.
    ``make(width, height, local)`` builds the case."""
    t, row = limits.widest_square(), limits.widest_1d()
    return (make(2 * t + 5, t + 3, (t, t)), make(t // 2 + 1, 3 * t + 1, (t, t)),
            make(row + 9, 3, (row, 1)))


# ---------------------------------------------------------------------------------------------------
# c[i] = a[i] + b[i] on ints.

PAIR_SUM_ARGS = (
    Buffer("a", np.int32, "in", lambda c: c["n"]),
    Buffer("b", np.int32, "in", lambda c: c["n"]),
    Buffer("c", np.int32, "out", lambda c: c["n"]),
    Scalar("n", np.uint32, lambda c: c["n"]),
)


def pair_sum(case: Case, inputs: Inputs) -> Outputs:
    return {"c": inputs["a"] + inputs["b"]}


def pair_sum_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"a": random_ints(rng, case["n"]), "b": random_ints(rng, case["n"])}


def wide_pair_sum_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    a, b = wide_ints(rng, case["n"])
    return {"a": a, "b": b}


# ---------------------------------------------------------------------------------------------------
# y = a x + y on floats (saxpy_guard, strided_fix, saxpy4).

SAXPY_ARGS = (
    Buffer("x", np.float32, "in", lambda c: c["n"]),
    Buffer("y", np.float32, "inout", lambda c: c["n"]),
    Scalar("a", np.float32, lambda c: c["a"]),
    Scalar("n", np.uint32, lambda c: c["n"]),
)


def saxpy(case: Case, inputs: Inputs) -> Outputs:
    return {"y": (np.float32(case["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}


def saxpy_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["n"]), "y": random_floats(rng, case["n"])}


def wide_saxpy_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    """Both signs, magnitudes from 1e-18 to 1e18 (a * x + y stays finite for a = 2.5); y has x's
    sign, so that no sum cancels (a fused multiply-add and two roundings then agree closely)."""
    n = case["n"]
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    x = sign * 10.0 ** rng.uniform(-18, 18, n)
    y = sign * 10.0 ** rng.uniform(-18, 18, n)
    return {"x": x.astype(np.float32), "y": y.astype(np.float32)}


# ---------------------------------------------------------------------------------------------------
# The minimum over a window (an erosion), in 1-D and along the axes of an image.

def window_min(x: np.ndarray, radius: int, hi: int | None = None, axis: int = -1) -> np.ndarray:
    """Minimum over the window [i - radius, i + hi] along ``axis``, clipped to the data (hi
    defaults to radius), in float64. Minimums over spans of 1, 2, 4, ... first, then two
    overlapping spans per window: a few passes over the data where one per element of the window
    took a tenth of a second on a million floats."""
    hi = radius if hi is None else hi
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    n, width = x.shape[-1], radius + hi + 1
    m = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(radius, radius)], constant_values=np.inf)
    span = 1
    while 2 * span <= width:
        m = np.minimum(m[..., :-span], m[..., span:])
        span *= 2
    out = np.minimum(m[..., :n], m[..., width - span:width - span + n])
    return np.moveaxis(out, -1, axis)


def _window_1d(x: np.ndarray, radius: int, hi: int | None = None) -> np.ndarray:
    return window_min(x, radius, hi).astype(np.float32)


def window_1d(case: Case, inputs: Inputs) -> Outputs:
    """``out[i]``: the minimum of ``in`` over i - radius .. i + radius, clipped to the data."""
    return {"out": _window_1d(inputs["in"], case["radius"])}


def _borders_skipped_1d(case: Case, inputs: Inputs) -> Outputs:
    n, r = case["n"], case["radius"]
    got = window_1d(case, inputs)["out"].astype(np.float64)
    got[:min(r, n)] = np.nan
    got[max(n - r, 0):] = np.nan
    return {"out": got}


def _window_short(case: Case, inputs: Inputs) -> Outputs:
    if case["radius"] == 0:
        raise ValueError("no window to shorten")
    return {"out": _window_1d(inputs["in"], case["radius"], hi=case["radius"] - 1)}


CLIPPING = ("the window is not clipped at the borders: j must stay within 0 .. n - 1. Careful with "
            "i - radius on a uint: below 0 it wraps around to a huge index")


def clipping_finding(hint: int, where: str = "0 .. n - 1") -> FindingHint:
    """An out-of-bounds read of global memory in a window kernel: the window is not clipped to
    ``where`` (``hint``: the exercise's hint about clipping)."""
    return FindingHint("out_of_bounds_read", CLIPPING.replace("0 .. n - 1", where), "global",
                       hint=hint)


def window_1d_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 1), (100, 32, 0), (1000, 256, 3), (4096, 64, 7), (777, 128, 2), (5, 1, 4),
            (300, 16, 20), (1 << 20, 256, 5), ((1 << 20) + 3, 128, 16)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "radius": r}, small=n <= 4096)
                 for n, loc, r in rows)


def window_1d_extremes(limits: Limits, tile: bool = False) -> tuple[Case, ...]:
    """At the device's largest work-group (whose tile of local size + 2 * radius floats still
    fits): the data shorter than one work-group, past it by less than one and by several, with a
    halo wider than half a work-group in the last; values across the float range."""
    local = limits.widest_1d(4 if tile else 0, 8 * 300 if tile else 0)
    radii = (5, 3, min(local // 2 + 1, 300))
    cases = beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}, values="wide"))
    return tuple(replace(c, params={**c.params, "radius": r})
                 for c, r in zip(cases, radii, strict=True))


def window_1d_bench_cases() -> tuple[Case, Case]:
    """The launches the bench times a 1-D erosion on (``Exercise.bench_cases``): 2^24 floats, 2^18
    with small sizes, radius 8, work-groups of 256; the same for both, which it times side by
    side."""
    return tuple(Case((rounded_up(n, 256),), (256,), {"n": n, "radius": 8})
                 for n in (1 << 24, 1 << 18))


def wide_1d(case: Case, rng: np.random.Generator) -> Inputs:
    """A window's minimum over any finite values: the largest floats in whole windows too."""
    return {"in": extreme_floats(rng, case["n"])}


def window_1d_mistakes(borders: int, window: int) -> tuple[Mistake, ...]:
    """The mistakes of a 1-D window minimum, with the numbers of the exercise's hints about the
    borders and about the window."""
    return (
        Mistake("borders skipped", _borders_skipped_1d,
                "the elements within {radius} of each end were not written: near the borders the "
                "window must be clipped to the data (j from max(i, radius) - radius to "
                "min(i + radius, n - 1): on a uint, i - radius wraps around below 0), not "
                "skipped", hint=borders),
        Mistake("window one short", _window_short,
                "the window stops one element short: it covers i - radius .. i + radius - 1, but "
                "both ends belong to it (2 * radius + 1 elements: j <= i + radius)", hint=window),
    )


# ---------------------------------------------------------------------------------------------------
# A tree in local memory.

def divergent_tree_barrier(hint: int) -> FindingHint:
    """A barrier of a tree reduction that not every work-item reaches."""
    return FindingHint("divergent_barrier", "a barrier sits inside a branch or a loop that not "
                       "every work-item of the group takes (an if (i < n), an if (lid < s), or a "
                       "loop whose count differs): move the barrier out, and let every work-item "
                       "loop alike", hint=hint)


# --------------------------------------------------------------------------------------------------
# The technique exercises' rules on the warp model's counters (helpers.checking.counters)

def _at(facts: dict, family: str) -> str:
    line = (facts.get("worst") or {}).get(family, {}).get("line")
    return f" (the worst at line {line})" if line else ""


def _per_request(facts: dict, what: str) -> tuple[float | None, float | None]:
    """(units per request, ideal units per request) of one access kind (``"global load"``...)."""
    c = (facts.get("counts") or {}).get(what, {})
    req = c.get("requests", 0)
    return (c.get("units", 0) / req, c.get("ideal", 0) / req) if req else (None, None)


def coalesced(facts: dict, slack: float = 1.25, stores: bool = True) -> str | None:
    """Global loads and stores each touch at most ``slack`` times the 32-byte sectors their bytes
    need (4 a request for floats, 16 for float4 lanes): neighbouring work-items on neighbouring
    elements. ``stores``: judge the stores too (False where the contract fixes an output layout
    that neighbouring work-items cannot store side by side, and only the reads are the lesson)."""
    for what in ("global load", "global store") if stores else ("global load",):
        got, ideal = _per_request(facts, what)
        if got is not None and ideal and got > slack * ideal:
            kind = "read" if what.endswith("load") else "write"
            return (f"is right, but its global memory {kind}s are not coalesced: on a GPU, each "
                    f"request of a warp of {facts['warp_size']} work-items would touch {got:.1f} "
                    f"sectors of 32 bytes where {ideal:.1f} would hold the same bytes{_at(facts, 'global')}. "
                    f"At every step, neighbouring work-items must touch neighbouring elements.")
    return None


def conflict_free_reads(facts: dict, allowed: float = 1.1) -> str | None:
    """A warp's reads of local memory take at most ``allowed`` wavefronts (1: every lane in a bank
    of its own, or reading the same word)."""
    got, ideal = _per_request(facts, "local load")
    if got is not None and got > allowed:
        return (f"is right, but its reads of local memory have bank conflicts: on a GPU, a warp's "
                f"read would take {got:.1f} passes (wavefronts) on average where "
                f"{max(ideal or 1.0, 1.0):.0f} would do{_at(facts, 'local')}: the lanes of a warp "
                f"read different words of the same bank. Pad or skew the tile so that they fall "
                f"in different banks.")
    return None


def copied_through_the_tile(facts: dict) -> str | None:
    """A tile that records pass through: its copy's global reads coalesced (neighbouring
    work-items on neighbouring floats, not each its own record), its reads conflict-free."""
    return coalesced(facts, 1.5) or conflict_free_reads(facts)


def tile_passes_allowed(facts: dict) -> float:
    """The wavefronts a warp's read of a square tile down its columns takes at best: 1 when a row
    of the tile is at least a warp wide, 2 for tiles of 16 (two rows share a warp of 32, and a
    padded row of 17 puts them 2 ways in a bank), warp / T in general; 10% more allowed."""
    launches = facts.get("launches") or []
    tile = launches[0]["local_size"][0] if launches else facts.get("warp_size", 32)
    return 1.1 * max(1.0, facts.get("warp_size", 32) / max(tile, 1))


def warps(facts: dict) -> int:
    """The warps of the counted launches (a work-group's last warp may be cut short)."""
    total = 0
    for launch in facts.get("launches") or []:
        local = 1
        for s in launch["local_size"]:
            local *= s
        total += launch["work_groups"] * -(-local // launch["warp_size"])
    return total


def undivided(facts: dict, share: float = 0.125) -> str | None:
    """At most one warp in 1 / ``share`` splits at a conditional branch (the bounds guard's last
    warp and the warp at a seam do; a branch on the element's parity splits every warp)."""
    total, split = facts.get("branches") or 0, facts.get("divergent_branches") or 0
    most = max(2, int(share * warps(facts)))
    if total and split > most:
        return (f"is right, but its warps split: on a GPU, {split} of {total} conditional branches "
                f"executed by its {warps(facts)} warps would send a warp's work-items different "
                f"ways{_at(facts, 'branch')}, where at most {most} would (the guard's last warp), "
                f"so those warps run both paths. Make the work-items of a warp agree on every "
                f"branch in the loop.")
    return None


def in_registers(facts: dict) -> str | None:
    """No private-memory traffic: what the kernel keeps, it keeps in registers."""
    n = facts.get("private_accesses") or 0
    if n:
        return (f"is right, but it keeps values in private memory that a GPU would spill: "
                f"{n} accesses of the work-items to private memory{_at(facts, 'private')}, where "
                f"none would do (an "
                f"array indexed by a value known only at run time cannot live in registers). "
                f"Keep the values in variables of their own, or index the array only with "
                f"constants: put #pragma unroll before each loop of fixed length over it (a GPU's "
                f"compiler may unroll such a loop by itself, or may not; Oclgrind's did not).")
    return None


# Exercises whose range is the data, a whole number of work-groups (block_reverse, rotate_in_group)

def range_length(c: Case) -> int:
    """The data's length: the global size."""
    return c.global_size[0]


def group_blocks(case: Case, x: np.ndarray) -> np.ndarray:
    """``x`` as one row per work-group."""
    return x.reshape(-1, case.local_size[0])


def whole_groups_case(groups: int, local: int, values: str = "") -> Case:
    """A 1-D launch of ``groups`` work-groups of ``local``, over exactly that many elements."""
    n = groups * local
    return Case((n,), (local,), {"n": n}, small=n <= 4096, values=values)


def whole_groups_extremes(local: int) -> tuple[Case, ...]:
    """The widest work-group: one block, and several."""
    return (whole_groups_case(1, local, "wide"), whole_groups_case(3, local, "wide"))


# ---------------------------------------------------------------------------------------------------
# Softmax by rows (softmax_rows, softmax_group, softmax_online: the capstone's rungs)

SOFTMAX_ARGS = (
    Buffer("x", np.float32, "in", lambda c: c["rows"] * c["cols"],
           shape=lambda c: (c["rows"], c["cols"])),
    Buffer("y", np.float32, "out", lambda c: c["rows"] * c["cols"],
           shape=lambda c: (c["rows"], c["cols"])),
    Scalar("rows", np.uint32, lambda c: c["rows"]),
    Scalar("cols", np.uint32, lambda c: c["cols"]),
)

# The kind of row r, by r % 4: values in [-8, 8]; values in [-100, 100] with one of at least 90
# (exp overflows float above about 88.7); values all in [-200, -120] (exp underflows to 0 below
# about -103): a kernel that skips subtracting the maximum fails the last two kinds, one that
# starts the maximum from 0 the last only.
HOT_ROW, DEEP_ROW = 1, 3


def _rows_of(case: Case, kind: int) -> set[int]:
    return {r for r in range(case["rows"]) if r % 4 == kind}


def softmax_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    rows, cols = case["rows"], case["cols"]
    x = rng.uniform(-8.0, 8.0, (rows, cols))
    for r in sorted(_rows_of(case, HOT_ROW)):
        x[r] = rng.uniform(-100.0, 100.0, cols)
        x[r, rng.integers(cols)] = rng.uniform(90.0, 100.0)
    for r in sorted(_rows_of(case, DEEP_ROW)):
        x[r] = rng.uniform(-200.0, -120.0, cols)
    x = x.astype(np.float32)
    x[x == 0] = 1.0
    return {"x": x.ravel()}


def softmax(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """y row by row, in float64; with ``upto``, each row's softmax over its first ``upto``
    columns alone, the others unwritten (NaN)."""
    x = inputs["x"].astype(np.float64).reshape(case["rows"], case["cols"])
    k = x.shape[1] if upto is None else min(upto, x.shape[1])
    e = np.exp(x[:, :k] - x[:, :k].max(axis=1, keepdims=True))
    y = np.full(x.shape, np.nan)
    y[:, :k] = e / e.sum(axis=1, keepdims=True)
    return {"y": y.ravel()}


def _wrong_rows(kinds: tuple[int, ...]) -> Callable[[Case, np.ndarray], bool]:
    """Whether the wrong elements lie in exactly the rows of these kinds (every one of them)."""
    def wrong_at(case: Case, bad: np.ndarray) -> bool:
        want = set().union(*(_rows_of(case, k) for k in kinds))
        return bool(want) and set((np.asarray(bad) // case["cols"]).tolist()) == want
    return wrong_at


def softmax_mistakes(max_hint: int = 0, zero_hint: int = 0, per_group: bool = False,
                     stride_hint: int = 0) -> tuple[Mistake, ...]:
    """The mistakes of every rung (``max_hint``, ``zero_hint``: the exercise's hints about the
    maximum subtracted and about its start, 0 for none), and with ``per_group`` those of a
    work-group per row (``stride_hint``: its hint about the stride)."""
    out = [
        Mistake("no maximum subtracted", None,
                "exactly the rows whose values reach about 100 and the rows whose values all "
                "lie near -150 are wrong: exp of a float above about 88.7 is infinity and below "
                "about -103 it is 0, so the row's sum and quotient become inf / inf or 0 / 0; "
                "subtract the row's maximum before exp (every exponent is then at most 0, and "
                "the largest term is exp(0) = 1)", wrong_at=_wrong_rows((HOT_ROW, DEEP_ROW)),
                hint=max_hint),
        Mistake("maximum from zero", None,
                "exactly the rows whose values all lie near -150 are wrong: the maximum started "
                "from 0 (or a constant above them), so every exp(x - max) underflowed to 0 and "
                "0 / 0 is NaN; start the maximum from -INFINITY",
                wrong_at=_wrong_rows((DEEP_ROW,)), hint=zero_hint),
    ]
    if per_group:
        out.append(Mistake("no stride", lambda c, i: softmax(c, i, c.local_size[0]),
                           "only the first {local} columns of each row were used and written: "
                           "each work-item must visit columns lid, lid + get_local_size(0), ... "
                           "while below cols = {cols}", hint=stride_hint))
    return tuple(out)


def softmax_cases(rows_cols_local: list[tuple[int, int, int]], per_row: str,
                  small_up_to: int = 20_000) -> tuple[Case, ...]:
    """Cases of a softmax over rows x cols: ``per_row`` "item" (a work-item per row, the range
    rounded up past the rows) or "group" (a work-group of ``local`` per row)."""
    out = []
    for rows, cols, local in rows_cols_local:
        g = rounded_up(rows, local) if per_row == "item" else rows * local
        out.append(Case((g,), (local,), {"rows": rows, "cols": cols},
                        small=rows * cols <= small_up_to and g <= 8192))
    return tuple(out)
