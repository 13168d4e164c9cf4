"""Issue 57 point 2: the verdict and its diagnosis tested from recorded passes, without any OpenCL
device (as kernel_tuner replays its cache). tools/record_verdicts.py checked each kernel for real
and kept what the verdict was given and what it said; the same passes given again must give the
same verdict, word for word. A change to the verdict or the diagnosis shows here on any machine;
record again after a change to the passes' own records."""

from __future__ import annotations

import pickle
from dataclasses import replace

import pytest

from helpers.exercises import get
from helpers.paths import ROOT

RECORDED = ROOT / "tests" / "recorded" / "verdicts.pickle"
RECORDS = pickle.loads(RECORDED.read_bytes())


def test_the_recording_covers_the_common_verdicts():
    about = {r["about"] for r in RECORDS}
    assert {"a right kernel", "a named mistake: the local id", "a data race in local memory",
            "a write past the end, seen by Oclgrind", "a divergent barrier"} <= about
    assert {r["passed"] for r in RECORDS} == {True, False}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["kernel"].split("/", 1)[1])
def test_recorded_passes_give_the_same_verdict_without_a_device(record, monkeypatch):
    import pyopencl as cl

    from helpers import workers
    from helpers.checking.verdict import verdict

    def no_device(*args, **kw):
        raise AssertionError("the replay asked for an OpenCL device or a worker")
    for name in ("get_platforms", "Context", "CommandQueue"):
        monkeypatch.setattr(cl, name, no_device)
    monkeypatch.setattr(workers, "Child", no_device)
    # the kernel where this clone has it (the recording's path is the recording machine's)
    chk = record["check"]
    chk = replace(chk, ex=get(record["exercise"]),
                  submission=replace(chk.submission, path=ROOT / record["kernel"]))
    report = verdict(chk, record["passes"], record["where"])
    assert report.passed == record["passed"]
    assert report.message == record["message"]
