"""dot_partials (notebook 05): the partial sums of a dot product, one per work-item, from a
grid-stride loop: fewer work-items than elements, each keeping its sum in a register while its
loads of x and y stay coalesced."""

from __future__ import annotations

import numpy as np

from .common import coalesced
from .model import (
    Buffer,
    Case,
    Exercise,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Scalar,
    grid_stride_details,
    random_floats,
    register,
    short_of_the_data,
)


def _items(c: Case) -> int:
    return c.global_size[0]


def _strided(case: Case, inputs: Inputs, steps: int | None = None) -> np.ndarray:
    """partial[g] = sum of x[i] y[i] over i = g, g + G, ... (``steps`` of them at most), float64."""
    n, g = case["n"], _items(case)
    prod = inputs["x"].astype(np.float64) * inputs["y"].astype(np.float64)
    rounds = -(-n // g) if steps is None else steps
    padded = np.zeros(rounds * g)
    k = min(n, rounds * g)
    padded[:k] = prod[:k]
    return padded.reshape(rounds, g).sum(axis=0)


def _dot_partials(case: Case, inputs: Inputs) -> Outputs:
    return {"partial": _strided(case, inputs).astype(np.float32)}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["n"], -1.0, 1.0),
            "y": random_floats(rng, case["n"], -1.0, 1.0)}


def _one_each(case: Case, inputs: Inputs) -> Outputs:
    return {"partial": _strided(case, inputs, steps=1)}


def _leftover(case: Case, inputs: Inputs) -> Outputs:
    if case["n"] % _items(case) == 0:
        raise ValueError("no leftover in this case")
    return {"partial": _strided(case, inputs, steps=case["n"] // _items(case))}


def _chunks(case: Case, inputs: Inputs) -> Outputs:
    """partial[g] = the sum over a chunk of ceil(n / G) neighbouring elements."""
    n, g = case["n"], _items(case)
    per = -(-n // g)
    prod = inputs["x"].astype(np.float64) * inputs["y"].astype(np.float64)
    padded = np.zeros(per * g)
    padded[:n] = prod
    return {"partial": padded.reshape(g, per).sum(axis=1)}


def _cases() -> tuple[Case, ...]:
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (9, 2, 2), (2047, 2, 1), (333, 21, 7), (1 << 20, 4096, 256),
            ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n}, small=n <= 4096) for n, g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return short_of_the_data(local, lambda n, g: Case((g,), (local,), {"n": n}))


register(Exercise(
    name="dot_partials",
    title="The partial sums of a dot product: a grid-stride loop, summed in a register",
    notebook="05-occupancy-and-latency",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "in", lambda c: c["n"]),
        Buffer("partial", np.float32, "out", _items),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_dot_partials,
    # sums of up to a thousand products of magnitude below 1, in any order, fused or not: the
    # rounding errors of float32 stay below 1e-4 (a missing or extra product is far larger)
    rtol=1e-4,
    atol=1e-3,
    hints=(
        "There are fewer work-items than elements: each one loops, adding its products in a "
        "private variable, and stores `partial[g]` once, at the end.",
        "Work-item `g` visits `g`, `g + G`, `g + 2G`... with `G` the global size: at every step "
        "neighbouring work-items read neighbouring elements.",
        "`n` need not be a multiple of `G`: loop while the index is below `n` rather than "
        "counting steps. The sizes are `get_global_id(0)` and `get_global_size(0)`.",
    ),
    mistakes=(
        Mistake("one product each", _one_each,
                "each partial holds one product, x[g] * y[g]: there are fewer work-items "
                "({global_}) than elements ({n}), so each one loops over g, g + {global_}, ... "
                "while the index is below n", hint=1),
        Mistake("leftover", _leftover,
                "the last {leftover} elements were left out of the sums: n = {n} is not a "
                "multiple of the global size {global_}; loop while the index is below n instead "
                "of counting steps", details=grid_stride_details, hint=3),
        Mistake("chunks", _chunks,
                "each partial is the sum over a chunk of neighbouring elements: partial[g] sums "
                "g, g + {global_}, g + 2 * {global_}, ... (a grid-stride loop), which keeps "
                "neighbouring work-items on neighbouring elements at every step", hint=2),
    ),
    widest=_extremes,
    technique=coalesced,
    contract=("fewer work-items than n; `partial[g]` = the sum of `x[i] * y[i]` over i = g, "
              "g + G, g + 2G, ... < n (G the global size); coalesced reads"),
    place=(5, 0),
))
