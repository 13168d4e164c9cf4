"""to_half (notebook 07): store floats as half floats, rounded to the nearest (ties to even), so
that half the bytes cross the bus; compared bit for bit with numpy's float16."""

from __future__ import annotations

import numpy as np

from .common import guarded_extremes
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    one_d_cases,
    register,
    wide_floats,
)

HALF_MAX = 65504.0


def _half(x: np.ndarray) -> np.ndarray:
    """float32 to float16, rounded to the nearest, ties to even; beyond the range, infinity."""
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float32).astype(np.float16)


def _to_half(case: Case, inputs: Inputs) -> Outputs:
    return {"out": _half(inputs["in"])}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    """A third spread over magnitudes from 1e-9 to 1e6 (below half's smallest subnormal, its
    subnormals, its normals and past its largest, 65504), a third exactly halfway between two
    neighbouring halves (where the tie goes to the even one), a third ordinary values; both
    signs, never zero."""
    n = case["n"]
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    spread = 10.0 ** rng.uniform(-9, 6, n)
    ordinary = rng.uniform(0.001, 1000.0, n)
    # halfway points: a finite half's bits, plus half a unit in its last place (as a float32)
    h = rng.integers(1, 0x7BFF, n, dtype=np.uint16).view(np.float16).astype(np.float32)
    lsb = np.abs(np.nextafter(h.astype(np.float16), np.float16(np.inf)).astype(np.float32) - h)
    ties = h + lsb / 2
    pick = rng.integers(0, 3, n)
    x = np.where(pick == 0, spread, np.where(pick == 1, ties, ordinary)) * sign
    return {"in": x.astype(np.float32)}


def _rounded_toward_zero(case: Case, inputs: Inputs) -> Outputs:
    """vstore_half_rtz: where rounding to the nearest went up in magnitude, one half less."""
    x = inputs["in"]
    h = _half(x)
    up = np.abs(h.astype(np.float64)) > np.abs(x.astype(np.float64))
    bits = h.view(np.uint16).copy()
    bits[up] -= 1
    return {"out": bits.view(np.float16).astype(np.float64)}


def _saturated(case: Case, inputs: Inputs) -> Outputs:
    """The input clamped to half's largest finite value first: beyond it, +-65504, not infinity."""
    x = np.clip(inputs["in"], -HALF_MAX, HALF_MAX)
    return {"out": _half(x).astype(np.float64)}


register(Exercise(
    name="to_half",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float16, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1), (9, 2),
                       (333, 7), (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=_inputs,
    reference=_to_half,
    contract=("`out[i]` = `in[i]` rounded to half precision, to the nearest, ties to even "
              "(`vstore_half`), for `i < n`; beyond half's range infinity; global size may exceed "
              "n"),
    teaching=Teaching(
        title="Store floats as half floats: half the bytes to transfer",
        notebook="07-transfers",
        hints=(
            "A half has 1 sign, 5 exponent and 10 fraction bits, so most floats round: to the nearest "
            "half, ties to even; from 65520 up to infinity (65504 is the largest half), below about 3e-8 to"
            " zero.",
            "Without `cl_khr_fp16` a kernel may hold a pointer to `half` but not read or write "
            "through it: one built-in converts and stores, taking the float, an index and the "
            "pointer.",
            "The built-in is `vstore_half` (nearest even; `vstore_half_rtz` and the others round "
            "other ways). One work-item per element, guarded by `i < n`.",
        ),
        mistakes=(
            Mistake("rounded toward zero", _rounded_toward_zero,
                    "the values were rounded toward zero (vstore_half_rtz?), where the contract asks "
                    "for the nearest half, ties to even: the default vstore_half", hint=1),
            Mistake("saturated", _saturated,
                    "values beyond half's range became +-65504, its largest finite value, where the "
                    "nearest half is infinity: convert the float as it is, without clamping it",
                    hint=1),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_write", "a write past the end of out: vstore_half's index "
                        "counts halves, not bytes, and the work-items past n must not store", "global",
                        hint=3),
        ),
        place=(7, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=guarded_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, case["n"])},
    ),
))
