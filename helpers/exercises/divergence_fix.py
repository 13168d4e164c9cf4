"""divergence_fix (notebook 10), a performance exercise: the same result as branches_woven
(checked by the same engine) without its warp-splitting branch."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .common import undivided
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    Teaching,
    Technique,
    beyond_the_data,
    random_floats,
    register,
    rounded_up,
    study_record,
    wide_floats,
)


def _even_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.9) * v + np.float32(0.1)).astype(np.float32)


def _odd_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.25) * v * v - np.float32(0.5)).astype(np.float32)


def _woven(case: Case, inputs: Inputs) -> Outputs:
    with np.errstate(over="ignore", invalid="ignore"):   # the odd recurrence may reach infinity
        return _woven_rounds(case, inputs)


def _woven_rounds(case: Case, inputs: Inputs) -> Outputs:
    v = inputs["x"].astype(np.float32)
    even, odd = v[0::2].copy(), v[1::2].copy()   # each half takes its own step every round
    scratch = np.empty_like(odd)
    for _ in range(case["rounds"]):   # _even_step and _odd_step, in place (the same roundings)
        even *= np.float32(0.9)
        even += np.float32(0.1)
        np.multiply(odd, np.float32(0.25), out=scratch)
        scratch *= odd
        np.subtract(scratch, np.float32(0.5), out=odd)
    v[0::2], v[1::2] = even, odd
    return {"y": v}


def _woven_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    # |x| <= 1: the odd step then stays bounded (it settles near 2 - sqrt(6))
    return {"x": random_floats(rng, case["n"], -1.0, 1.0)}


def _one_branch(parity: int) -> Callable[[Case, Inputs], Outputs]:
    """y when every element took the step of ``parity`` (the branch's condition lost)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        v = inputs["x"].copy()
        with np.errstate(over="ignore", invalid="ignore"):
            for _ in range(case["rounds"]):
                v = _even_step(v) if parity == 0 else _odd_step(v)
        return {"y": v}
    return model


def _woven_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 3), (100, 32, 8), (1000, 256, 16), (4096, 64, 5), (777, 128, 32),
            (5, 1, 2), (1 << 18, 256, 16), ((1 << 18) + 3, 128, 7)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "rounds": r}, small=n <= 4096)
                 for n, loc, r in rows)


def _woven_extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return beyond_the_data(local, lambda n, g: Case((g,), (local,), {"n": n, "rounds": 5},
                                                    values="wide"))


def _woven_perf(n: int, rounds: int) -> Case:
    return Case((n,), (256,), {"n": n, "rounds": rounds})


register(Exercise(
    name="divergence_fix",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("rounds", np.uint32, lambda c: c["rounds"]),
    ),
    cases=_woven_cases(),
    make_inputs=_woven_inputs,
    reference=_woven,
    performance=Performance(_woven_perf(1 << 22, 256), _woven_perf(1 << 18, 64), peak="compute",
                            # 2 flops a round on even elements, 3 on odd ones
                            flops=lambda c: 2.5 * c["n"] * c["rounds"],
                            given=("level3.cl", "branches_woven"),
                            # the table remedy runs 2 flops a round everywhere where the reordered
                            # solution averages 1.5: it is a remedy too, at about 75%
                            target=0.7),
    contract=("`y[i]` = `x[i]` sent `rounds` times through `v = 0.9 v + 0.1` (even i) or `v = 0.25 "
              "v v - 0.5` (odd i), without a warp-splitting branch; global size may exceed n; timed"),
    teaching=Teaching(
        title="The same result without divergent branches",
        notebook="10-divergence",
        hints=(
            "Still divergent: which `if` or `?:` has a condition that differs between neighbouring "
            "work-items?",
            "Reordered, wrong near the seam: with `n` odd there is one more even element than odd.",
            "Every element took one formula: the coefficients must follow each element's parity. NaN "
            "where the odd step overflows: keep the factored form.",
        ),
        mistakes=(
            Mistake("even step everywhere", _one_branch(0),
                    "every element went through the even step (0.9 v + 0.1): the odd elements "
                    "(i % 2 == 1) take 0.25 v v - 0.5", hint=3),
            Mistake("odd step everywhere", _one_branch(1),
                    "every element went through the odd step (0.25 v v - 0.5): the even elements "
                    "(i % 2 == 0) take 0.9 v + 0.1", hint=3),
        ),
        shown="divergent branches",
        place=(10, 0),
    ),
    compare=Compare(rtol=1e-5, atol=1e-5),
    extremes=Extremes(
        # floats of any finite magnitude: large odd values overflow to infinity, which the result
        # must then be (a table remedy computing 0 * v * v for the even ones gives NaN there)
        inputs=lambda case, rng: {"x": wide_floats(rng, case["n"])},
        cases=_woven_extremes,
    ),
    technique=Technique(judge=undivided, build=("-cl-opt-disable",)),
))

# The slow kernel the exercise starts from is checked against the same contract.
study_record("divergence_fix", "branches_woven", "level3.cl", _woven_cases())
