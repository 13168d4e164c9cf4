"""What a failed verdict must never say beside what it found (issue 52, point 3: a verdict says only
what is true): the rules every wrong kernel's verdict is held to, by test_corpus and test_exercises.
A guess at the slip behind the outputs must fit the whole evidence."""

from __future__ import annotations

import re

from helpers.exercises import get

# Oclgrind's findings that leave the device's results undefined: no pattern is read in them
UNDEFINED = ("race", "divergent_barrier", "divergence")
SHIFT = "holds the value expected at"
BUG_REPORT = "PLEASE submit a bug report"


def contradictions(name: str, report) -> list[str]:
    """The sentences of ``report`` (a failed check of exercise ``name``) that contradict its own
    evidence, each said in a few words; empty when there are none."""
    msg, op = report.message, report.oclgrind_pass
    out = []
    if op is not None and any(f.kind in UNDEFINED for f in op.findings) and SHIFT in msg:
        out.append("a shift read in the results of a race or a divergent barrier")
    if re.search(r"likely mistake: [^\n]*transposed", msg) and "off by" in msg:
        out.append("a transposed store also told as an index off by k")
    if "where i is meant" in msg:
        out.append("the old guess at the index, which the output cannot tell")
    if len(get(name).cases[0].global_size) == 2 and "if (i < n)" in msg:
        out.append("a 2-D exercise told a 1-D guard")
    lines = msg.splitlines()
    if BUG_REPORT in msg:
        said = next(i for i, x in enumerate(lines) if BUG_REPORT in x)
        label = next((i for i, x in enumerate(lines) if "driver's own crash report" in x), None)
        if said <= 1 or label is None or label > said:
            out.append("the driver's bug-report text not after the verdict, as the driver's")
    return out
