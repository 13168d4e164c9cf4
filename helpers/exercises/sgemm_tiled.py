"""sgemm_tiled (notebook 14, portability and auto-tuning): the matrix product through tiles in
local memory, the rung of the SGEMM ladder the learner writes."""

from __future__ import annotations

import numpy as np

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
    Tile,
    register,
    rounded_up,
    study_record,
)


def _sgemm_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    m, n, k = case["m"], case["n"], case["k"]
    return {"a": rng.uniform(-1, 1, m * k).astype(np.float32),
            "b": rng.uniform(-1, 1, k * n).astype(np.float32)}


def _matrices(case: Case, inputs: Inputs) -> tuple[np.ndarray, np.ndarray]:
    m, n, k = case["m"], case["n"], case["k"]
    return (inputs["a"].reshape(m, k).astype(np.float64),
            inputs["b"].reshape(k, n).astype(np.float64))


def _product(case: Case, inputs: Inputs) -> Outputs:
    a, b = _matrices(case, inputs)
    return {"c": (a @ b).ravel()}


def _last_tile_dropped(case: Case, inputs: Inputs) -> Outputs:
    """c when the tile loop stops before the last, partial step along k (k0 + T <= k)."""
    a, b = _matrices(case, inputs)
    whole = case["k"] // case.local_size[0] * case.local_size[0]
    return {"c": (a[:, :whole] @ b[:whole, :]).ravel()}


def _padded_blocks(case: Case, inputs: Inputs) -> tuple[np.ndarray, np.ndarray]:
    """a and b padded with zeros to whole tiles, as blocks: a[R, y, t, x] is row R*T+y, column
    t*T+x of a; b[t, y, C, x] is row t*T+y, column C*T+x of b."""
    t = case.local_size[0]
    m, n, k = case["m"], case["n"], case["k"]
    a, b = _matrices(case, inputs)
    ap = np.zeros((rounded_up(m, t), rounded_up(k, t)))
    bp = np.zeros((rounded_up(k, t), rounded_up(n, t)))
    ap[:m, :k], bp[:k, :n] = a, b
    return (ap.reshape(ap.shape[0] // t, t, ap.shape[1] // t, t),
            bp.reshape(bp.shape[0] // t, t, bp.shape[1] // t, t))


def _read_transposed(which: str):
    """c when the kernel reads tile element [j][ly] of a (``which`` "a"), [lx][j] of b ("b") or
    both, where [ly][j] and [j][lx] were meant (the tiles were filled the right way)."""
    pattern = {"a": "rjtl,tjcx->rlcx", "b": "rltj,txcj->rlcx", "both": "rjtl,txcj->rlcx"}[which]

    def model(case: Case, inputs: Inputs) -> Outputs:
        a4, b4 = _padded_blocks(case, inputs)
        c4 = np.einsum(pattern, a4, b4, optimize=True)   # through BLAS: 10x the plain loops
        c = c4.reshape(c4.shape[0] * c4.shape[1], c4.shape[2] * c4.shape[3])
        return {"c": c[:case["m"], :case["n"]].ravel()}

    return model


def sgemm_case(m: int, n: int, k: int, t: int, small_up_to: int = 40_000) -> Case:
    """The 2-D launch over c (dimension 0 its columns) with T x T work-groups."""
    return Case((rounded_up(n, t), rounded_up(m, t)), (t, t), {"m": m, "n": n, "k": k},
                small=m * n * k <= small_up_to)


def _sgemm_cases() -> tuple[Case, ...]:
    rows = [(16, 16, 16, 4), (32, 32, 32, 8), (23, 17, 29, 8), (40, 24, 20, 8), (1, 37, 5, 4),
            (33, 1, 64, 16), (64, 64, 64, 16), (100, 70, 90, 16), (17, 19, 3, 4),
            (256, 256, 256, 16), (300, 200, 130, 16), (512, 384, 200, 8),
            (3, 5, 7, 1), (9, 6, 5, 2)]   # the smallest T the contract allows: 1 and 2
    return tuple(sgemm_case(m, n, k, t) for m, n, k, t in rows)


def _sgemm_extremes(limits: Limits) -> tuple[Case, ...]:
    """The largest T x T work-group whose two T x T tiles fit, with m, n and k no multiples of T
    (one of them smaller than a tile)."""
    t = limits.widest_square(lambda t: 8 * t * t)
    return (sgemm_case(t + 3, 2 * t + 1, 2 * t + 7, t, small_up_to=0),
            sgemm_case(t // 2 + 1, t + 5, t - 3 if t > 4 else 3, t, small_up_to=0))


def _perf(side: int, t: int = 16) -> Case:
    return sgemm_case(side, side, side, t, small_up_to=0)


_TILE_LAYOUT = "each tile holds T * T floats, row ly at [ly * T]"

register(Exercise(
    name="sgemm_tiled",
    args=(
        Buffer("a", np.float32, "in", lambda c: c["m"] * c["k"], shape=lambda c: (c["m"], c["k"])),
        Buffer("b", np.float32, "in", lambda c: c["k"] * c["n"], shape=lambda c: (c["k"], c["n"])),
        Buffer("c", np.float32, "out", lambda c: c["m"] * c["n"], shape=lambda c: (c["m"], c["n"])),
        Scalar("m", np.uint32, lambda c: c["m"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("k", np.uint32, lambda c: c["k"]),
        LocalMem("a_tile", np.float32, lambda c: c.local_size[0] ** 2),
        LocalMem("b_tile", np.float32, lambda c: c.local_size[0] ** 2),
    ),
    cases=_sgemm_cases(),
    make_inputs=_sgemm_inputs,
    reference=_product,
    performance=Performance(_perf(512), _perf(256), peak="compute",
                            flops=lambda c: 2.0 * c["m"] * c["n"] * c["k"]),
    contract=("row-major `c (m x n) = a (m x k) . b (k x n)`; 2-D range, dimension 0 = column of c,"
              " dimension 1 = row; square work-groups T x T, T the local size (a power of two); "
              "each tile holds T*T floats and is used; global size may exceed m and n"),
    teaching=Teaching(
        title="Multiply matrices through tiles in local memory",
        notebook="14-portability-and-tuning",
        hints=(
            "Compare with the plain product first: `c[row][col]` sums `a[row][j] * b[j][col]` over "
            "every `j < k`. Right for T = 1 but wrong for larger tiles: the tiles' indices are "
            "mixed up (T is `get_local_size(0)`, a tile holds T x T floats, row `ly` at "
            "`ly * T`).",
            "Each step, work-item `(lx, ly)` fills row `ly`, column `lx` of each tile: from `a` row "
            "`row`, column `k0 + lx`; from `b` row `k0 + ly`, column `col`; outside `a` or `b`, "
            "`0.0f`.",
            "A barrier after the copies; the inner loop takes row `ly` of `a`'s tile times column "
            "`lx` of `b`'s; a barrier before the next copies. Never return early: guard only the "
            "loads and the store.",
        ),
        mistakes=(
            Mistake("last tile dropped", _last_tile_dropped,
                    "the last {k_left} values along k were left out: k = {k} is not a multiple of "
                    "the tile width {t}, so the last step's tiles are only partly inside a and b. "
                    "Loop while k0 < k and load 0.0f for the parts outside",
                    details=lambda c: {"k_left": c["k"] % c.local_size[0], "t": c.local_size[0]},
                    hint=2),
            Mistake("tiles transposed", _read_transposed("both"),
                    "both tiles are read transposed: the sum needs row ly of a's tile "
                    "(a_tile[ly * T + j]) and column lx of b's (b_tile[j * T + lx])", hint=3),
            Mistake("a tile transposed", _read_transposed("a"),
                    "a's tile is read transposed: the sum needs row ly of it, a_tile[ly * T + j], "
                    "which holds a[row][k0 + j]", hint=3),
            Mistake("b tile transposed", _read_transposed("b"),
                    "b's tile is read transposed: the sum needs column lx of it, b_tile[j * T + lx], "
                    "which holds b[k0 + j][col]", hint=3),
        ),
        finding_hints=(
            FindingHint("race", "a barrier is missing: one after filling the tiles (before anyone "
                        "reads them) and one after the multiply-adds (before the next step "
                        "overwrites them); Oclgrind's line shows which access raced", "local",
                        hint=3),
            FindingHint("divergent_barrier", "some work-items skip a barrier (a return before it, or a "
                        "barrier inside if (row < m && col < n)): guard the loads and the store instead",
                        hint=3),
            FindingHint("out_of_bounds_read", "a or b was read past its end: guard the loads with "
                        "row < m, k0 + lx < k (a) and k0 + ly < k, col < n (b)", "global", hint=2),
            FindingHint("out_of_bounds_write", "c was written past its end: store only when row < m "
                        "and col < n", "global", hint=3),
            FindingHint("out_of_bounds_read", f"a tile was read past its end: {_TILE_LAYOUT}", "local",
                        hint=2),
            FindingHint("out_of_bounds_write", f"a tile was written past its end: {_TILE_LAYOUT}",
                        "local", hint=2),
        ),
        place=(14, 0),
    ),
    compare=Compare(rtol=1e-4, atol=1e-4),
    extremes=Extremes(cases=_sgemm_extremes),
    tile=Tile(reads=2.0),
))

# the kernel the exercise starts from: the plain product with the exercise's arguments (notebook
# 14 counts and times it beside the learner's on the same launches)
study_record("sgemm_tiled", "sgemm_plain", "sgemm.cl",
             tuple(sgemm_case(m, n, k, t) for m, n, k, t in
                   [(16, 16, 16, 4), (23, 17, 29, 8), (33, 1, 64, 16), (1, 37, 5, 4),
                    (64, 64, 64, 16), (100, 70, 90, 16), (3, 5, 7, 1)]))
