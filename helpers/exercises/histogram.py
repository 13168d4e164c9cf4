"""histogram (notebook 15, advanced OpenCL): counting with atomics, privatized in local memory; a
performance exercise like transpose, timed beside the one-global-atomic-per-element kernel it
starts from (``histogram_global`` of kernels/studies/advanced.cl)."""

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
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    Teaching,
    register,
    study_record,
)

MAX_BINS = 256


def _counts(case: Case, inputs: Inputs, upto: int | None = None) -> np.ndarray:
    n = case["n"] if upto is None else min(upto, case["n"])
    return np.bincount(inputs["data"][:n].astype(np.int64), minlength=case["nbins"])


def _added(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """bins as they arrived plus the counts of data[0..upto) (all of data by default)."""
    total = inputs["bins"].astype(np.int64) + _counts(case, inputs, upto)
    return {"bins": total}


def _stored_over(case: Case, inputs: Inputs) -> Outputs:
    return {"bins": _counts(case, inputs)}


def _local_stride(case: Case, inputs: Inputs) -> Outputs:
    """bins when work-item g counts data[g], data[g + L], ... (L the local size, not the global
    one): element j is counted once by every work-item g = j - kL in the range."""
    n, size, step = case["n"], case.work_items, case.local_size[0]
    j = np.arange(n)
    times = j // step - np.maximum(0, -(-(j - size + 1) // step)) + 1
    counts = np.bincount(inputs["data"][:n].astype(np.int64), weights=times,
                         minlength=case["nbins"])
    return {"bins": inputs["bins"].astype(np.int64) + np.rint(counts).astype(np.int64)}


def _merged_once(case: Case, inputs: Inputs) -> Outputs:
    """bins when each work-item merges only bin get_local_id(0): bins from the local size on never
    get their counts."""
    right = _added(case, inputs)["bins"]
    keep = np.arange(case["nbins"]) >= case.local_size[0]
    return {"bins": np.where(keep, inputs["bins"].astype(np.int64), right)}


def _histogram_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    """Values in [0, nbins), half of them on a few favourite bins (contention, as in real data),
    and bins already holding counts (a kernel that overwrites them, or assumes zeros, fails)."""
    n, nbins = case["n"], case["nbins"]
    data = rng.integers(0, nbins, n)
    favourite = rng.integers(0, nbins, max(1, nbins // 16))
    hot = rng.random(n) < 0.5
    data[hot] = favourite[rng.integers(0, favourite.size, int(hot.sum()))]
    return {"data": data.astype(np.uint32),
            "bins": rng.integers(1, 100000, nbins).astype(np.uint32)}


def _histogram_wide(case: Case, rng: np.random.Generator) -> Inputs:
    """The extremes of the contract: every value the same one, the last bin (nbins - 1), and bins
    near the top of uint's range, so that counts kept in a narrower type are caught."""
    n, nbins = case["n"], case["nbins"]
    data = np.full(n, nbins - 1, dtype=np.uint32)
    data[: n // 4] = rng.integers(0, nbins, n // 4)
    top = np.iinfo(np.uint32).max - 4 * n
    return {"data": data, "bins": rng.integers(top // 2, top, nbins).astype(np.uint32)}


def _cases() -> tuple[Case, ...]:
    rows = [  # n, nbins, global size, local size
        (1000, 16, 256, 64),      # fewer work-items than elements
        (4096, 256, 4096, 256),   # one each
        (777, 7, 1024, 128),      # more work-items than elements
        (3000, 200, 96, 16),      # more bins than work-items in a group
        (10, 1, 64, 64),          # one bin
        (1, 3, 1, 1),
        (2000, 37, 72, 24),       # a work-group that is not a power of two
        (999, 5, 15, 3),
        (7, 256, 2, 2),
        (50000, 256, 512, 32),
        (100003, 100, 8192, 256),
        (200003, 4, 64, 64),      # one work-group counts over 65535 of one value
        ((1 << 20) + 5, 256, 16384, 128),
    ]
    return tuple(Case((g,), (loc,), {"n": n, "nbins": b}, small=n <= 5000 and g <= 4096)
                 for n, b, g, loc in rows)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    """At the device's largest power-of-two work-group, with all 256 bins: fewer elements than one
    work-group, fewer work-items than elements, and values across the whole range."""
    local = limits.widest_1d(0, 4 * MAX_BINS)
    return (Case((local,), (local,), {"n": local // 2 + 3, "nbins": MAX_BINS}),
            Case((2 * local,), (local,), {"n": 5 * local + 3, "nbins": MAX_BINS}),
            replace(Case((local,), (local,), {"n": 3 * local + 1, "nbins": 3}), values="wide"))


CASES = _cases()


def _perf(n: int, items: int, local: int) -> Case:
    return Case((items,), (local,), {"n": n, "nbins": MAX_BINS})


# a line that updates memory without an atomic: v++, ++v, v += 1, v = v + 1
_PLAIN_UPDATE = r"^(?!.*atomic).*(\+\+|\+=|\[[^\]]*\]\s*=\s*[^=;]*\[[^\]]*\]\s*\+)"
# a compare-and-swap loop, or the plain read (old = *p) that seeds one
_PLAIN_SEED = r"cmpxchg|=\s*\*\s*\w+\s*[,;]"
_PLAIN_STORE = r"^(?!.*atomic)(?!.*(\+\+|\+=)).*bins\s*\[[^\]]*\]\s*=[^=]"

register(Exercise(
    name="histogram",
    args=(
        Buffer("data", np.uint32, "in", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Buffer("bins", np.uint32, "inout", lambda c: c["nbins"]),
        Scalar("nbins", np.uint32, lambda c: c["nbins"]),
        LocalMem("local_bins", np.uint32, lambda c: c["nbins"]),
    ),
    cases=CASES,
    make_inputs=_histogram_inputs,
    reference=_added,
    performance=Performance(_perf(1 << 24, 1 << 18, 256), _perf(1 << 20, 1 << 14, 64),
                            given=("advanced.cl", "histogram_global")),
    contract=("every `data[i] < nbins`, `nbins <= 256`; **adds** to `bins[b]` the count of `b` "
              "among `data[0..n)` (bins arrive holding arbitrary counts); 1-D range of any size, "
              "possibly far fewer work-items than n, work-groups of any size; `local_bins` holds "
              "nbins uints"),
    teaching=Teaching(
        title="Histogram: count with atomics, privatized in local memory",
        notebook="15-advanced",
        hints=(
            "Counts lost: every increment of a shared bin must be atomic, in local and in global memory. "
            "Wrong where `bins` held counts: it arrives holding them, so add, never store. Too many: "
            "each element is counted once, by the grid stride while below `n`.",
            "Wrong counts with `local_bins`: they start out holding anything, so all are zeroed before any "
            "increment, with a barrier between, and another before the merge.",
            "Counts lost or doubled in the merge: each bin is added by one work-item of the group, with "
            "`atomic_add`; zeros may be skipped.",
        ),
        mistakes=(
            Mistake("counts stored over bins", _stored_over,
                    "bins holds this run's counts only: it arrived holding counts, and the kernel "
                    "must add to them (atomic_add(&bins[b], count)), not store over them", hint=3),
            Mistake("no stride", lambda c, i: _added(c, i, c.work_items),
                    "only the first {global_} elements of data were counted: the range has fewer "
                    "work-items than n = {n} elements, so each work-item must count several "
                    "(i += get_global_size(0) while i < n)", hint=1),
            Mistake("local stride", _local_stride,
                    "elements were counted several times: the loop steps by the work-group's size "
                    "({local}), and work-items of other groups count the same elements; step by the "
                    "whole range, i += get_global_size(0) ({global_})", hint=1),
            Mistake("one bin each", _merged_once,
                    "only the first {local} bins got their counts: there are more bins (nbins = "
                    "{nbins}) than work-items in a group, so each work-item must add several "
                    "(b += get_local_size(0) while b < nbins)", hint=3),
        ),
        finding_hints=(
            FindingHint("race", "an update of bins is not atomic: two work-items that add to the "
                        "same bin at once both read the old count, and one addition is lost; use "
                        "atomic_inc(&bins[v]) or atomic_add(&bins[b], count)", "global",
                        _PLAIN_UPDATE, hint=1),
            FindingHint("race", "counts stored over bins: several work-groups write the same bin, "
                        "each replacing what the others wrote; add with atomic_add(&bins[b], count)",
                        "global", _PLAIN_STORE, hint=3),
            FindingHint("race", "the local increment is not atomic: work-items of a group that meet "
                        "the same value lose counts; use atomic_inc(&local_bins[v])", "local",
                        _PLAIN_UPDATE, hint=2),
            FindingHint("race", "a plain read of a counter races with other work-items' atomics "
                        "(the read that seeds a compare-and-swap loop, say): every access of a shared "
                        "counter while others count must be atomic; seed the loop with a guess of 0",
                        None, _PLAIN_SEED, hint=1),
            FindingHint("race", "a barrier is missing: one between zeroing local_bins and counting "
                        "in it, and one between counting and adding the counts to bins (a "
                        "work-item read a counter that others were still changing)", "local",
                        r"^(?!.*(\+\+|\+=|cmpxchg|=\s*\*)).*|^(?!.*cmpxchg).*atomic", hint=2),
            FindingHint("uninitialized", "local_bins was not zeroed before counting: it starts out "
                        "holding anything; zero all nbins of them (b = get_local_id(0), "
                        "b += get_local_size(0) while b < nbins, as there may be more bins than "
                        "work-items), then barrier", hint=2),
            FindingHint("divergent_barrier", "a barrier sits inside a branch or a loop that not every "
                        "work-item of the group takes (inside the counting loop, or after an early "
                        "return): put the two barriers where every work-item reaches them", hint=2),
            FindingHint("out_of_bounds_write", "local_bins was written past its end: it holds nbins "
                        "counters, which may be fewer than the work-items of a group (guard b < nbins "
                        "where you zero it), and a value read from past the end of data can be any "
                        "index (guard i < n)", "local", hint=2),
            FindingHint("out_of_bounds_read", "local_bins was read past its end: it holds nbins "
                        "counters, fewer than the work-items of a group at times; guard b < nbins",
                        "local", hint=3),
            FindingHint("out_of_bounds_read", "data was read past its end: guard every read with "
                        "i < n", "global", hint=1),
            FindingHint("out_of_bounds_write", "bins was written past its end: it holds nbins "
                        "counters; guard b < nbins", "global", hint=3),
        ),
        shown="global atomics",
        guard="",  # a bin is no work-item's own: a store past nbins is a wrong bin, not a guard
        place=(15, 1),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
    extremes=Extremes(cases=_extremes, inputs=_histogram_wide),
))

# The kernel the exercise starts from, checked by the same engine.
study_record("histogram", "histogram_global", "advanced.cl",
             tuple(c for c in CASES if c.small))
