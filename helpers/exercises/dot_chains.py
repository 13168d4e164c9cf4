"""dot_chains (notebook 05): the partial sums of a dot product, four independent chains per
work-item. With G work-items, chain k of work-item g sums x[i] y[i] over i = g + kG, g + kG + 4G,
... below n into partial[4g + k]: each step of a work-item issues four loads and four multiply-adds
that depend on none of the others (instruction- and memory-level parallelism), while at every load
neighbouring work-items read neighbouring floats. The contract's layout is what forces the four
chains, so the check's plain comparison with numpy proves the technique; the warp model judges the
reads' coalescing (the four stores of a work-item lie side by side, 4 floats apart across a warp,
and are not judged)."""

from __future__ import annotations

import numpy as np

from .common import coalesced
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
    Scalar,
    Teaching,
    Technique,
    random_floats,
    register,
)

CHAINS = 4


def _items(c: Case) -> int:
    return c.global_size[0]


def _products(case: Case, inputs: Inputs, width: int) -> np.ndarray:
    """x[i] y[i] in float64, zero-padded to whole rows of ``width`` elements, as rows."""
    n = case["n"]
    prod = inputs["x"].astype(np.float64) * inputs["y"].astype(np.float64)
    rows = max(1, -(-n // width))
    padded = np.zeros(rows * width)
    padded[:n] = prod
    return padded.reshape(rows, width)


def _chains(case: Case, inputs: Inputs) -> np.ndarray:
    """chain[k, g] = the sum of x[i] y[i] over i = g + kG + 4Gj < n (float64), shape (4, G)."""
    g = _items(case)
    return _products(case, inputs, CHAINS * g).reshape(-1, CHAINS, g).sum(axis=0)


def _dot_chains(case: Case, inputs: Inputs) -> Outputs:
    return {"partial": _chains(case, inputs).T.ravel().astype(np.float32)}


def _inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["n"], -1.0, 1.0),
            "y": random_floats(rng, case["n"], -1.0, 1.0)}


def _details(case: Case) -> dict:
    return {"four_g": CHAINS * _items(case)}


# ---------------------------------------------------------------------------------------------------
# Likely mistakes, each as the outputs its kernel leaves (NaN: never written).


def _one_chain(case: Case, inputs: Inputs) -> Outputs:
    """The whole grid-stride sum (g, g + G, g + 2G, ...) in partial[4g], the other three 0."""
    out = np.zeros(CHAINS * _items(case))
    out[::CHAINS] = _products(case, inputs, _items(case)).sum(axis=0)
    return {"partial": out}


def _interleaved(case: Case, inputs: Inputs) -> Outputs:
    """partial[m] = the sum over i = m, m + 4G, m + 8G, ...: what a kernel leaves whose chain k of
    work-item g reads i = 4g + k, 4g + k + 4G, ... (four neighbouring floats a step), and also one
    that reads right but stores chain k of work-item g at partial[kG + g]. The outputs of the two
    are the same: only the warp model would tell them apart (the first's reads are not
    coalesced)."""
    return {"partial": _products(case, inputs, CHAINS * _items(case)).sum(axis=0)}


def _stride_g(case: Case, inputs: Inputs) -> Outputs:
    """Chain k over i = g + kG, g + (k + 1)G, ...: each chain steps by G, so the chains overlap."""
    rows = _products(case, inputs, _items(case))
    from_row = np.cumsum(rows[::-1], axis=0)[::-1]          # from_row[r, g]: rows r, r + 1, ...
    chains = np.zeros((CHAINS, _items(case)))
    chains[:min(CHAINS, len(rows))] = from_row[:CHAINS]
    return {"partial": chains.T.ravel()}


def _last_step_dropped(case: Case, inputs: Inputs) -> Outputs:
    """Only the whole steps (all four indices below n) are summed: the loop ran while
    i + 3G < n and nothing finished the last step."""
    n, g = case["n"], _items(case)
    if (CHAINS - 1) * g >= n:
        raise ValueError("no whole step: the loop would not run at all")
    steps = _products(case, inputs, CHAINS * g).reshape(-1, CHAINS, g)
    start = np.arange(steps.shape[0])[:, None] * CHAINS * g + np.arange(g)[None, :]
    whole = (start + (CHAINS - 1) * g < n)[:, None, :]
    return {"partial": (steps * whole).sum(axis=0).T.ravel()}


def _empty_chains_unwritten(case: Case, inputs: Inputs) -> Outputs:
    """The right sums, but nothing stored for the chains whose first index g + kG is not below n."""
    g = _items(case)
    empty = (np.arange(g)[None, :] + np.arange(CHAINS)[:, None] * g >= case["n"])
    if not empty.any():
        raise ValueError("every chain has an element in this case")
    return {"partial": np.where(empty, np.nan, _chains(case, inputs)).T.ravel()}


def _past_the_data_unwritten(case: Case, inputs: Inputs) -> Outputs:
    """The right sums, but the work-items past the data (g >= n) returned without storing."""
    g = _items(case)
    if g <= case["n"]:
        raise ValueError("no work-item past the data in this case")
    out = _chains(case, inputs).T.copy()
    out[case["n"]:] = np.nan
    return {"partial": out.ravel()}


def _cases() -> tuple[Case, ...]:
    # (n, G, local): several steps with a partial last one; G past n / 4 (whole chains empty) and
    # past n (work-items with no element); one and two work-items
    rows = [(1000, 64, 16), (4096, 256, 64), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (30, 64, 16), (5, 1, 1), (9, 2, 2), (2047, 2, 1), (333, 21, 7), (1 << 20, 4096, 256),
            ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n}, small=n <= 4096) for n, g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's widest work-group: two whole steps and a partial one; fewer elements than
    chains (4G > n); fewer elements than work-items."""
    local = limits.widest_1d()
    return tuple(Case((g,), (local,), {"n": n}) for n, g in
                 ((9 * local + 5, local), (7 * local + 3, 2 * local), (local // 2 + 1, local)))


register(Exercise(
    name="dot_chains",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "in", lambda c: c["n"]),
        Buffer("partial", np.float32, "out", lambda c: CHAINS * _items(c)),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=_cases(),
    make_inputs=_inputs,
    reference=_dot_chains,
    contract=("`partial[4g + k]` (k = 0..3) = the sum of `x[i] * y[i]` over i = g + kG, "
              "g + kG + 4G, g + kG + 8G, ... < n (G the global size, any size, possibly past "
              "n / 4 or n: a chain with no element stores 0); coalesced reads"),
    teaching=Teaching(
        title="The partial sums of a dot product: four independent chains per work-item",
        notebook="05-occupancy-and-latency",
        hints=(
            "By hand, n = 10 and G = 2: `partial[0]` adds the products at 0 and 8, `partial[5]` "
            "only the one at 3.",
            "Four private sums, one index stepping by 4G; chain k reads at that index plus kG.",
            "Guard each chain's load by its own index: the last step may be partial. A chain with "
            "no element stores 0.",
        ),
        mistakes=(
            Mistake("one chain", _one_chain,
                    "only the first of each work-item's four partial sums holds a value, the sum over "
                    "g, g + {global_}, g + 2 * {global_}, ... (the other three are 0): four chains "
                    "share those elements, chain k of work-item g starting at g + k * {global_} and "
                    "stepping by 4G = {four_g}", details=_details, hint=2),
            Mistake("chains in the wrong places", _interleaved,
                    "partial[m] holds the sum over m, m + 4G, m + 8G, ... (4G = {four_g}): either "
                    "each work-item's chains read four neighbouring elements (chain k of work-item g "
                    "from 4g + k), or the sums were stored chain by chain (at partial[k * {global_} + "
                    "g]). Chain k of work-item g starts at g + k * {global_}, so that at every load "
                    "neighbouring work-items read neighbouring floats, and is stored at "
                    "partial[4g + k]", details=_details, hint=2),
            Mistake("stride G", _stride_g,
                    "the chains step by G = {global_}, so they overlap and count elements several "
                    "times: the four chains together cover 4G = {four_g} elements a step, so each "
                    "steps by 4G", details=_details, hint=2),
            Mistake("last step dropped", _last_step_dropped,
                    "the elements of the last, incomplete step were left out: n = {n} is not a "
                    "multiple of 4G = {four_g}, so after the whole steps each chain still adds its "
                    "element if its index is below n", details=_details, hint=3),
            Mistake("empty chains unwritten", _empty_chains_unwritten,
                    "the partial sums of the chains with no element were not written: with n = {n} "
                    "and G = {global_}, chain k of work-item g has none when g + k * {global_} >= n, "
                    "and its partial[4g + k] must still be stored, as 0", hint=3),
            Mistake("past the data unwritten", _past_the_data_unwritten,
                    "the work-items past the data (g >= n = {n}, of G = {global_}) stored nothing: "
                    "each still owns four partial sums, partial[4g] to partial[4g + 3], and must "
                    "store them as 0", hint=3),
        ),
        place=(5, 0),
    ),
    compare=Compare(
        # sums of up to a thousand products of magnitude below 1, in any order, fused or not: the
        # rounding errors of float32 stay below 1e-4 (a missing or extra product is far larger)
        rtol=1e-4,
        atol=1e-3,
    ),
    extremes=Extremes(cases=_extremes),
    technique=Technique(judge=lambda facts: coalesced(facts, stores=False)),
))
