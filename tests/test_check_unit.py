"""The checker's sentences and verdict rules, on synthetic facts (no device needed)."""

from __future__ import annotations

from pathlib import Path

from helpers.check import PassResult, describe_buffer, signature, verdict
from helpers.device import DeviceSpec
from helpers.exercises import Case, get
from helpers.oclgrind import Finding

CASE = Case((1024,), (256,), {"n": 1000})
POCL = DeviceSpec("Portable Computing Language", "OpenCL 3.0 PoCL 3.0-rc2  Linux", "cpu")
GRIND = DeviceSpec("Oclgrind", "OpenCL 1.2 (Oclgrind 21.10)", "Oclgrind Simulator")
WRONG = {"ok": False, "mistakes": [], "buffers": {"dst": {
    "role": "out", "length": 1000, "unwritten": 0, "wrong": 3, "leaked": 0,
    "wrong_samples": [{"index": 7, "expected": 1.0, "got": 2.0}]}}}
RIGHT = {"ok": True, "mistakes": [], "buffers": {"dst": {
    "role": "out", "length": 1000, "unwritten": 0, "wrong": 0, "leaked": 0}}}


def out(**f):
    return {"role": "out", "length": 1000, "unwritten": 0, "wrong": 0, "leaked": 0, **f}


def test_sentences_name_the_element_and_the_likely_mistake():
    one_past = describe_buffer("dst", out(tail_changed=1, tail_first=0, tail_last=0), CASE)
    assert "wrote dst[1000], one element past the end" in one_past[0]
    many = describe_buffer("dst", out(tail_changed=24, tail_first=0, tail_last=23), CASE)
    assert "up to dst[1023]" in many[0] and "1024 work-items for 1000 elements" in many[0]
    last = describe_buffer("dst", out(unwritten=1, unwritten_first=999, unwritten_is_tail=True),
                           CASE)
    assert "the last element, dst[999], was not written" in last[0]
    never = describe_buffer("dst", out(unwritten=1000, unwritten_first=0), CASE)
    assert "dst was never written" in never[0]
    wrong = describe_buffer("dst", out(wrong=3, wrong_samples=[
        {"index": 7, "expected": 1.0, "got": 2.0}]), CASE)
    assert "3 of 1000 elements of dst are wrong, the first dst[7]: expected 1, got 2" in wrong[0]
    shifted = describe_buffer("dst", out(shift=1), CASE)
    assert "dst[i] holds the value expected at dst[i + 1]" in shifted[0]


def test_signature_is_the_contracts():
    assert signature(get("float_copy")) == (
        "__kernel void float_copy(__global const float *src, __global float *dst, const uint n)")


def _verdict(dp: PassResult, op: PassResult | None):
    return verdict(get("float_copy"), "kernels/float_copy.cl", "cpu", dp, op, 1,
                   Path("kernels/float_copy.cl"), 30, 120)


def _pass(spec, cases, results, findings=()):
    p = PassResult(spec, cases, results=dict(enumerate(results)), built=True, done=True,
                   exit_code=0)
    p.findings = list(findings)
    return p


def test_device_wrong_but_oclgrind_right_on_the_same_case_is_a_miscompile():
    r = _verdict(_pass(POCL, [CASE], [WRONG]), _pass(GRIND, [CASE], [RIGHT]))
    assert r.passed and r.miscompiled
    assert "Your kernel is correct" in r.message and "miscompiled" in r.message


def test_no_miscompile_verdict_when_oclgrind_did_not_run_the_failing_case():
    other = Case((64,), (64,), {"n": 50})
    r = _verdict(_pass(POCL, [CASE], [WRONG]), _pass(GRIND, [other], [RIGHT]))
    assert not r.passed and not r.miscompiled


def test_no_miscompile_verdict_when_oclgrind_reports_a_problem():
    race = Finding("race", "data race", "Read-write data race", 4, 2, "x", None)
    r = _verdict(_pass(POCL, [CASE], [WRONG]), _pass(GRIND, [CASE], [RIGHT], [race]))
    assert not r.passed and "kernels/float_copy.cl:4:2: data race" in r.message


def test_right_values_with_an_oclgrind_report_fail_as_luck():
    race = Finding("race", "data race", "Read-write data race", 4, 2, "x", None)
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), _pass(GRIND, [CASE], [RIGHT], [race]))
    assert not r.passed and "only by luck" in r.message


def test_without_oclgrind_a_pass_says_what_was_not_checked():
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), None)
    assert r.passed and "Oclgrind is not installed here" in r.message
