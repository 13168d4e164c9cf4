"""reverse (notebook 01): write a list backwards, one work-item per element; the lesson is the
index (the skeleton copies element i to i)."""

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
    random_floats,
    register,
    wide_floats,
)


def _reverse(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"][::-1].copy()}


def _copied(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"].astype(np.float64)}


def _half(case: Case, inputs: Inputs) -> Outputs:
    """The second half of out still the first half of in mirrored, the first half copied: out[i]
    = in[n - 1 - i] only where i >= n / 2, else in[i] (a swap of the two halves done in place)."""
    n = case["n"]
    got = inputs["in"].astype(np.float64)
    got[n // 2:] = inputs["in"][::-1][n // 2:]
    return {"out": got}


register(Exercise(
    name="reverse",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (6, 2), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (9, 2), (333, 7), (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=_reverse,
    contract="`out[i] = in[n - 1 - i]` for `i < n`; global size may exceed n",
    teaching=Teaching(
        title="Reverse a list: each work-item reads from the other end",
        notebook="01-parallel-execution",
        hints=(
            "Work-item `i` still writes `out[i]`; only where it reads from changes. For a list of "
            "five elements: which element of `in` lands in `out[0]`, in `out[1]`, in `out[4]`?",
            "The last element of `in` has index `n - 1`, not `n` and not the global size, which may "
            "be rounded up past the data.",
            "The read index falls by one as `i` rises by one, and is `n - 1` when `i` is 0.",
        ),
        mistakes=(
            Mistake("copied", _copied,
                    "out holds a copy of in: out[i] must come from the other end of the list, so the "
                    "index into in falls as i rises", hint=1),
            Mistake("half", _half,
                    "only the second half of out is reversed, the first half is a copy: each "
                    "work-item writes its own out[i] from the other end; it does not swap", hint=1),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_read", "a read past the end of in: the list's last element "
                        "is in[n - 1] (n - i and get_global_size(0) - 1 - i reach past it)", "global",
                        hint=2),
        ),
        place=(1, 3),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(
        cases=guarded_extremes,
        inputs=lambda case, rng: {"in": wide_floats(rng, case["n"])},
    ),
))
