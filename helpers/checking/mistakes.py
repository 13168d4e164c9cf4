"""A check's outcome in a word or a few, for a class's tallies (the grader's matrix and most common
mistake, the hub's class view): no import of the check's run, so that anything may use it."""

from __future__ import annotations

import re


def status_of(report) -> str:
    """passed, crashed, timed out or failed: what the check's device pass says; but a kernel that
    Oclgrind saw reach outside a buffer is failed, whatever the device then did (a write outside a
    buffer crashes a process or not by the heap's layout, so a grade must not rest on it: the same
    submission always gets the same grade)."""
    if report.passed:
        return "passed"
    if getattr(report, "unjudged", None):     # right results, the technique not judged
        return "not judged"
    op = getattr(report, "oclgrind_pass", None)
    if op is not None and any(f.kind in ("out_of_bounds_write", "out_of_bounds_read")
                              for f in op.findings):
        return "failed"
    dp = report.device_pass
    if dp is not None and dp.ending.hung_in is not None:
        return "timed out"
    if dp is not None and dp.ending.crashed_in is not None:
        return "crashed"
    return "failed"


NAMED_MISTAKE = re.compile(r"likely mistake: ([^.:;]+)")

# Oclgrind's finding kinds (oclgrind.KINDS) as a class's tally names them
_FINDING = {"out_of_bounds_write": "write outside a buffer", "out_of_bounds_read":
            "read outside a buffer", "race": "data race", "divergent_barrier": "divergent barrier",
            "divergence": "work-group divergence", "uninitialized": "uninitialized value"}


def likely_mistake(report) -> str:
    """A failed check's mistake in a few words, for a class's tally (the grader's most common
    mistake, the class view): the diagnosis's named likely mistake, else what Oclgrind found first,
    else what the device did (does not compile, timed out, crashed, wrong results)."""
    if report.passed:
        return ""
    if getattr(report, "unjudged", None):
        return "technique not judged"
    named = NAMED_MISTAKE.search(report.message)
    if named:
        return named.group(1).strip()
    op, dp = report.oclgrind_pass, report.device_pass
    found = [f.kind for f in op.findings if f.kind in _FINDING] if op is not None else []
    if found:
        return _FINDING[found[0]]
    if dp is None:
        return ""
    if dp.ending.build_error or dp.ending.no_kernel:
        return "does not compile" if dp.ending.build_error else "kernel not found"
    status = status_of(report)
    if status != "failed":
        return status
    return _buffer_mistake(dp) if dp.failing() else ""


def _buffer_mistake(dp) -> str:
    """What the first failing case did to its first output buffer that went wrong."""
    for b, f in dp.results[dp.failing()[0]].get("buffers", {}).items():
        if f.get("head_changed") or f.get("tail_changed"):
            return f"wrote outside {b}"
        if f.get("input_changed"):
            return f"changed its input {b}"
        if f.get("unwritten") and f["unwritten"] == f.get("length"):
            return f"{b} never written"
        if f.get("unwritten"):
            return f"part of {b} not written"
        if f.get("wrong"):
            return f"wrong values in {b}"
    return "wrong results"
