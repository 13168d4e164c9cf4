"""count_matches (notebook 15): add to a counter how many elements equal a key; the lesson is the
atomic update (the skeleton's plain count[0]++ loses counts when work-items meet at once)."""

from __future__ import annotations

from dataclasses import replace

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
    Mistake,
    Outputs,
    Scalar,
    Teaching,
    register,
)

KEY = 3


def _matches(case: Case, inputs: Inputs, upto: int | None = None) -> int:
    n = case["n"] if upto is None else min(upto, case["n"])
    return int(np.count_nonzero(inputs["data"][:n] == case["key"]))


def _added(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """count as it arrived plus the matches among data[0..upto), modulo 2^32 as a uint wraps."""
    total = (int(inputs["count"][0]) + _matches(case, inputs, upto)) % (1 << 32)
    return {"count": np.array([total], dtype=np.int64)}


def _stored_over(case: Case, inputs: Inputs) -> Outputs:
    return {"count": np.array([_matches(case, inputs)], dtype=np.int64)}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    """Values near the key, a fifth of them equal to it (many work-items match at once: a plain
    increment loses counts), and a counter that already holds a count."""
    data = rng.integers(case["key"] - 2, case["key"] + 3, case["n"]).astype(np.int32)
    return {"data": data, "count": rng.integers(1, 1_000_000, 1).astype(np.uint32)}


def _wide(case: Case, rng: np.random.Generator) -> Inputs:
    """ints across the whole int32 range with the key (the smallest int) at a third of the
    places, and a counter near the top of uint's range, which the count wraps past."""
    n, info = case["n"], np.iinfo(np.int32)
    data = rng.integers(info.min, info.max, n, endpoint=True).astype(np.int32)
    data[rng.random(n) < 1 / 3] = case["key"]
    top = np.iinfo(np.uint32).max - n // 6
    return {"data": data, "count": np.array([top], dtype=np.uint32)}


def _cases() -> tuple[Case, ...]:
    rows = [  # n, global size, local size
        (1000, 256, 64),      # fewer work-items than elements
        (4096, 4096, 256),    # one each
        (777, 1024, 128),     # more work-items than elements
        (1, 1, 1),
        (9, 2, 2),
        (999, 15, 3),
        (2000, 72, 24),
        (5000, 5000, 1),
        (100003, 8192, 256),
        ((1 << 20) + 5, 16384, 128),
    ]
    return tuple(Case((g,), (loc,), {"n": n, "key": KEY}, small=n <= 5000 and g <= 5000)
                 for n, g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """The device's largest work-group: fewer elements than work-items, fewer work-items than
    elements, and values across the int range with a counter that wraps."""
    local = limits.widest_1d()
    key = int(np.iinfo(np.int32).min)
    return (Case((local,), (local,), {"n": local // 2 + 3, "key": KEY}),
            Case((2 * local,), (local,), {"n": 5 * local + 3, "key": KEY}),
            replace(Case((local,), (local,), {"n": 3 * local + 1, "key": key}), values="wide"))


# a line that updates the counter without an atomic: count[0]++, count[0] += ..., *count = ... + 1
_PLAIN_UPDATE = r"^(?!.*atomic).*(\+\+|\+=|=[^=;]*\+)"
_PLAIN_STORE = r"^(?!.*atomic)(?!.*(\+\+|\+=)).*(count\s*\[[^\]]*\]|\*\s*count)\s*=[^=]"

register(Exercise(
    name="count_matches",
    args=(
        Buffer("data", np.int32, "in", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("key", np.int32, lambda c: c["key"]),
        Buffer("count", np.uint32, "inout", lambda c: 1),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_added,
    contract=("**adds** to `count[0]` the number of `i < n` with `data[i] == key` (count arrives "
              "holding any value; the sum wraps modulo 2^32); 1-D range of any size, possibly "
              "fewer work-items than n"),
    teaching=Teaching(
        title="Count the elements equal to a key: an atomic add",
        notebook="15-advanced",
        hints=(
            'An increment reads, adds and writes back: two work-items at once both read the old value, '
            'and one addition is lost. An atomic does the three steps as one.',
            "The built-ins are `atomic_inc` and `atomic_add`, taking the counter's address. `count` "
            'arrives holding a count: add to it, never store over it.',
            'Faster: count your matches in a private variable over a grid-stride loop, then add that '
            'count once with one atomic.',
        ),
        mistakes=(
            Mistake("stored over", _stored_over,
                    "count holds this run's matches only: it arrived holding a count, and the kernel "
                    "must add to it (atomic_add), not store over it", hint=2),
            Mistake("no stride", lambda c, i: _added(c, i, c.work_items),
                    "only the first {global_} elements of data were looked at: the range has fewer "
                    "work-items than n = {n} elements, so each work-item must look at several "
                    "(i += get_global_size(0) while i < n)", hint=3),
        ),
        finding_hints=(
            FindingHint("race", "the update of count is not atomic: two work-items that add to it "
                        "at once both read the old count, and one addition is lost; use "
                        "atomic_inc(count) or atomic_add(count, ...)", "global", _PLAIN_UPDATE,
                        hint=1),
            FindingHint("race", "the count is stored over count: several work-items write it, each "
                        "replacing what the others wrote; add with atomic_add", "global",
                        _PLAIN_STORE, hint=2),
            FindingHint("out_of_bounds_read", "data was read past its end: guard every read with "
                        "i < n", "global", hint=3),
        ),
        place=(15, 0),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=_extremes, inputs=_wide),
))
