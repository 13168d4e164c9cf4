"""softmax_online (notebook 17, the capstone's third rung): softmax_group with the maximum and
the sum found in one pass over the row (the online softmax: a running maximum and a running sum
rescaled whenever the maximum grows), merged across the work-group with the same rescaling: two
passes over global memory instead of three."""

from __future__ import annotations

import numpy as np

from .common import (
    SOFTMAX_ARGS,
    coalesced,
    softmax,
    softmax_cases,
    softmax_inputs,
    softmax_mistakes,
)
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    Inputs,
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Teaching,
    Technique,
    Tile,
    register,
)
from .softmax_group import GROUP_CASES, group_extremes, group_findings, group_perf


def _pairs(case: Case, inputs: Inputs, loop_rescales: bool = True,
           merge_rescales: bool = True) -> Outputs:
    """y after work-item j of a group of L kept the pair (m_j, s_j) over columns j, j + L, ...
    and the group merged the pairs: with ``loop_rescales`` False, each term of s_j taken against
    the maximum so far and never rescaled; with ``merge_rescales`` False, the s_j added as they
    are (each against its own m_j)."""
    rows, cols, local = case["rows"], case["cols"], case.local_size[0]
    x = inputs["x"].astype(np.float64).reshape(rows, cols)
    top = x.max(axis=1, keepdims=True)
    total = np.zeros((rows, 1))
    for j in range(min(local, cols)):
        part = x[:, j::local]
        running = np.maximum.accumulate(part, axis=1) if not loop_rescales else \
            np.broadcast_to(part.max(axis=1, keepdims=True), part.shape)
        s = np.exp(part - running).sum(axis=1, keepdims=True)
        total += s * np.exp(running[:, -1:] - top) if merge_rescales else s
    return {"y": (np.exp(x - top) / total).ravel()}


def one_pass_then_write(facts: dict) -> str | None:
    """Coalesced, and x read at most about twice for each element of y written (lane accesses
    to global memory: the maximum and the sum in one pass, the quotients in the other)."""
    missing = coalesced(facts)
    if missing is not None:
        return missing
    counts = facts.get("counts") or {}
    loads = counts.get("global load", {}).get("lanes", 0)
    stores = counts.get("global store", {}).get("lanes", 0)
    if stores and loads > 2.2 * stores:
        return (f"is right, but it reads x {loads / stores:.1f} times for each element of y it "
                f"writes, where the online softmax reads it twice: one pass that keeps the "
                f"running maximum and the running sum together, one that writes y.")
    return None


register(Exercise(
    name="softmax_online",
    args=SOFTMAX_ARGS + (LocalMem("maxes", np.float32, lambda c: c.local_size[0]),
                         LocalMem("sums", np.float32, lambda c: c.local_size[0])),
    cases=softmax_cases(GROUP_CASES, "group"),
    make_inputs=softmax_inputs,
    reference=softmax,
    performance=Performance(group_perf(4096, 4096), group_perf(1024, 1024)),
    contract=("as `softmax_group`, `maxes` and `sums` one float per work-item each; x read "
              "twice (the maximum and the sum in one pass); coalesced; timed"),
    teaching=Teaching(
        title="Softmax of each row in two passes: the online maximum and sum",
        notebook="17-capstone-softmax",
        hints=(
            "NaN in rows shorter than the work-group: two empty work-items merge `-INFINITY - "
            "-INFINITY`; where both maximums are `-INFINITY`, the merged sum is 0.",
            "Sums too large: when the maximum grows from `m` to `m2`, the sum so far is multiplied "
            "by `exp(m - m2)`, in the loop and in every merge.",
            "Each slot holds a pair, `maxes` and `sums`; each step merges the pair `s` slots up "
            "into the lower one, a barrier after each.",
        ),
        mistakes=softmax_mistakes(per_group=True) + (
            Mistake("sum not rescaled", lambda c, i: _pairs(c, i, loop_rescales=False),
                    "each work-item's running sum was not rescaled when its running maximum grew: "
                    "a term exp(x - m) taken against a smaller maximum m stays too large; multiply "
                    "the sum so far by exp(m - m2) when the maximum grows from m to m2", hint=2),
            Mistake("merge without rescaling", lambda c, i: _pairs(c, i, merge_rescales=False),
                    "the tree added the work-items' sums as they were, each taken against its own "
                    "maximum: before adding, rescale each sum to the merged maximum m2, "
                    "sum * exp(m - m2)", hint=2),
        ),
        finding_hints=group_findings("maxes or sums"),
        guard="",
        place=(17, 2),
    ),
    compare=Compare(rtol=1e-4, atol=1e-6),
    extremes=Extremes(cases=lambda limits: group_extremes(limits, 8)),
    technique=Technique(judge=one_pass_then_write),
    tile=Tile(),
))
