"""saxpy4 (notebook 16): y = a x + y with four consecutive floats per work-item, read and written as
float4s (``vload4``/``vstore4``), and the tail of n that is no multiple of 4 done one float at a
time. On NVIDIA's scalar lanes the float4s are for convenience; a CPU or a VLIW GPU gains from the
four independent operations of one work-item (notebook 16, section 1)."""

from __future__ import annotations

import numpy as np

from ..wording import plural
from .common import SAXPY_ARGS, saxpy, saxpy_inputs
from .model import (
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    Mistake,
    Outputs,
    Teaching,
    register,
    rounded_up,
)

A = 2.5


def _quads(n: int) -> int:
    return -(-n // 4)






def _case(n: int, local: int, extra_groups: int = 0, **kw) -> Case:
    return Case((rounded_up(_quads(n), local) + extra_groups * local,), (local,),
                {"n": n, "a": A}, **kw)


def _cases() -> tuple[Case, ...]:
    rows = [(1, 32), (3, 32), (4, 32), (5, 64), (100, 32), (1001, 64), (1002, 128), (1003, 256),
            (4096, 64), (777, 16), (6, 1), (1 << 20, 256), ((1 << 20) + 3, 128)]
    return tuple(_case(n, loc, small=n <= 4096) for n, loc in rows) + (_case(1003, 32, 2, small=True),)


def _extremes(limits: Limits) -> tuple[Case, ...]:
    local = limits.widest_1d()
    return (_case(4 * local + 2, local), _case(4 * local * 3 - 1, local, 1))


def _whole(case: Case) -> int:
    """The floats of y in whole float4s."""
    return case["n"] // 4 * 4


def _only_the_tail_wrong(skip: int):
    """The wrong elements are the tail past the last whole float4 (less its first ``skip``), and
    some whole float4 was done: a kernel that did nothing is not this mistake."""
    def wrong_at(case: Case, bad: np.ndarray) -> bool:
        whole, n = _whole(case), case["n"]
        return whole > 0 and n - whole > skip and set(bad.tolist()) == set(range(whole + skip, n))
    return wrong_at


def _tail(case: Case) -> dict:
    return {"tail": plural(case["n"] - _whole(case), "float")}


def _first_quarter(case: Case, inputs: Inputs) -> Outputs:
    """One float per work-item: y[i] for i below the work-item count (and n), the rest as it came."""
    got = inputs["y"].astype(np.float64).copy()
    done = min(case["n"], case.global_size[0])
    got[:done] = (np.float32(case["a"]) * inputs["x"][:done] + inputs["y"][:done])
    return {"y": got}


register(Exercise(
    name="saxpy4",
    args=SAXPY_ARGS,
    cases=_cases(),
    make_inputs=saxpy_inputs,
    reference=saxpy,
    contract="`y[j] = a * x[j] + y[j]` for `j < n`, work-item `i` doing `j = 4i` to `4i + 3`; "
             "global size at least n / 4 rounded up, may exceed it",
    teaching=Teaching(
        title="y = a x + y, four floats a work-item as float4s, the tail one float at a time",
        notebook="16-then-and-now",
        hints=(
            "Work-item `i` owns floats `4i` to `4i + 3`. Where all four are below `n`, one `vload4` of "
            "`x`, one of `y` and one `vstore4` do the work; the offset of `vload4` and `vstore4` "
            "counts float4s, not floats.",
            "When `n` is no multiple of 4, one work-item's four floats cross `n`: a float4 there "
            "would read and write past the end. That work-item takes its floats below `n` one at a "
            "time; the work-items past it do nothing. Careful: `n - 4i` wraps around on a `uint` "
            "once `4i` passes `n`.",
            "A float4 is safe where `4i + 3 < n`; otherwise loop over the floats from `4i` while "
            "below `n`.",
        ),
        mistakes=(
            Mistake("tail left out", None,
                    "only whole float4s were done: the tail of y past the last of them ({tail}; n = {n} "
                    "is no multiple of 4) was not updated", wrong_at=_only_the_tail_wrong(0),
                    details=_tail, hint=2),
            Mistake("one float of the tail", None,
                    "of the tail of y past its last whole float4 ({tail}) only the first float was "
                    "updated: the work-item that crosses n must do each of its floats below n",
                    wrong_at=_only_the_tail_wrong(1), details=_tail, hint=2),
            Mistake("a float per work-item", _first_quarter,
                    "only the first {global_} floats of y were updated, one per work-item: each "
                    "work-item owns four", hint=1),
        ),
        finding_hints=(
            FindingHint("out_of_bounds_read", "reads past the end of x or y: the offset of vload4 "
                        "counts float4s (vload4(i, x) reads x[4i] to x[4i + 3]), and the work-item "
                        "whose four floats cross n may not read a whole float4", "global", hint=1),
            FindingHint("out_of_bounds_write", "writes past the end of y: the offset of vstore4 "
                        "counts float4s too (vstore4(v, i, y) writes y[4i] to y[4i + 3]), and the "
                        "work-item whose four floats cross n may not store a whole float4", "global",
                        hint=2),
        ),
        past_the_end="a work-item stored floats past n: the one whose four floats cross n stores only "
                     "those below n (a float4 only where 4i + 3 < n), and work-items with no float "
                     "store nothing",
        place=(16, 1),
    ),
    compare=Compare(
        rtol=1e-6,
        atol=1e-4,  # a * x + y may be one fused multiply-add or two roundings
    ),
    extremes=Extremes(cases=_extremes),
))
