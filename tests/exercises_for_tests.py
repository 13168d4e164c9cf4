"""An exercise registered by a file outside helpers/: a sum per work-group in local memory.

It proves two things: a new exercise is only a record, and the checker's referee path works. PoCL
3.x miscompiles the correct interleaved tree reduction (tests/wrong/block_sum/interleaved.cl), and
only Oclgrind can tell the learner their kernel is right.
"""

from __future__ import annotations

import numpy as np

from helpers.exercises import (
    Buffer,
    Case,
    Compare,
    Exercise,
    LocalMem,
    Scalar,
    Teaching,
    register,
    rounded_up,
)


def _block_sums(case: Case, inputs: dict) -> dict:
    loc, groups = case.local_size[0], case.num_groups[0]
    padded = np.zeros(groups * loc, dtype=np.int64)
    padded[: case["n"]] = inputs["src"]
    return {"partial": padded.reshape(groups, loc).sum(axis=1).astype(np.int32)}


register(Exercise(
    name="block_sum",
    args=(
        Buffer("src", np.int32, "in", lambda c: c["n"]),
        Buffer("partial", np.int32, "out", lambda c: c.num_groups[0]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        LocalMem("scratch", np.int32, lambda c: c.local_size[0]),
    ),
    cases=tuple(
        Case((rounded_up(n, loc),), (loc,), {"n": n}, small=True)
        for n, loc in [(64, 64), (1000, 128), (4096, 256), (300, 32)]
    ),
    make_inputs=lambda case, rng: {"src": rng.integers(1, 100, case["n"]).astype(np.int32)},
    reference=_block_sums,
    teaching=Teaching(
        title="One partial sum per work-group, reduced in local memory",
        notebook="(tests only)",
    ),
    compare=Compare(rtol=0.0, atol=0.0),
))
