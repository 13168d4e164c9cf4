"""leaky_relu (notebook 10): y = x where x > 0, 0.01 x elsewhere, without a branch that splits a
warp (the skeleton branches on the sign, on which the lanes of nearly every warp disagree; the
check counts branches in an unoptimized build, where a GPU compiler might have made a select)."""

from __future__ import annotations

import numpy as np

from .common import guarded_extremes, undivided
from .model import (
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    Technique,
    extreme_floats,
    one_d_cases,
    random_floats,
    register,
)

LEAK = np.float32(0.01)


def _leaky(case: Case, inputs: Inputs) -> Outputs:
    x = inputs["x"]
    return {"y": np.where(x > 0, x, LEAK * x).astype(np.float32)}


def _relu(case: Case, inputs: Inputs) -> Outputs:
    x = inputs["x"].astype(np.float64)
    return {"y": np.maximum(x, 0.0)}


def _leak_everywhere(case: Case, inputs: Inputs) -> Outputs:
    """The positive values got the leak added too: fmax(x, 0) + 0.01 x."""
    x = inputs["x"].astype(np.float64)
    return {"y": np.maximum(x, 0.0) + 0.01 * x}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    # random signs: the lanes of nearly every warp disagree on the sign
    return {"x": random_floats(rng, case["n"])}


register(Exercise(
    name="leaky_relu",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (9, 2), (333, 7), (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=_inputs,
    reference=_leaky,
    contract=("`y[i] = x[i] > 0 ? x[i] : 0.01f * x[i]` for `i < n`, x finite (any magnitude); "
              "global size may exceed n; without a warp-splitting branch (a `?:` counts as one; "
              "the bounds guard does not)"),
    teaching=Teaching(
        title="Leaky ReLU without a branch that splits a warp",
        notebook="10-divergence",
        hints=(
            'Still divergent: which `if` has a condition that differs between neighbouring lanes?',
            '`?:` with expressions on both sides counts as a branch too: the check judges an '
            'unoptimized build (a GPU compiler usually makes it a select).',
            'Use the built-in `select`, which picks a value without a jump, or `fmax`: the larger of '
            '`x` and `0.01f * x` is the answer whatever the sign.',
        ),
        mistakes=(
            Mistake("relu", _relu,
                    "the negative values became 0 (a plain ReLU): they must leak, y = 0.01 x where "
                    "x <= 0", hint=3),
            Mistake("leak everywhere", _leak_everywhere,
                    "the positive values got 0.01 x added too (fmax(x, 0) + 0.01 x): where x > 0, "
                    "y is x itself", hint=3),
        ),
        place=(10, 1),
    ),
    compare=Compare(
        # one multiplication by 0.01f, or by 0.01 in double then rounded: a unit in the last place
        rtol=1e-6,
        atol=0.0,
    ),
    extremes=Extremes(
        cases=guarded_extremes,
        inputs=lambda case, rng: {"x": extreme_floats(rng, case["n"])},
    ),
    technique=Technique(judge=undivided, build=("-cl-opt-disable",)),
))
