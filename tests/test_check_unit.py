"""The checker's sentences and verdict rules, on synthetic facts (no device needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.checking import CheckOptions
from helpers.checking.diagnosis import describe_buffer, signature
from helpers.checking.learner import Submission
from helpers.checking.oclgrind import Finding
from helpers.checking.passes import (
    Check,
    Ending,
    OclgrindResult,
    Passes,
    PassResult,
    SpeedResult,
)
from helpers.checking.verdict import verdict
from helpers.device import DeviceSpec
from helpers.exercises import Case, get

from .conftest import TESTS

pytestmark = pytest.mark.once   # the verdict's rules on synthetic facts: no device

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


def _checked(ex, path: str, seed: int = 1) -> Check:
    """A check of ``path`` as the verdict sees it (no worker: the passes are given)."""
    return Check(ex, Submission(Path(path), ""), seed, CheckOptions(), None)


def _verdict(dp: PassResult, op: PassResult | None):
    return verdict(_checked(get("float_copy"), "kernels/float_copy.cl"), Passes(dp, op), "cpu")


def _pass(spec, cases, results, findings=()):
    """A finished pass: an Oclgrind pass (with ``findings``) on Oclgrind, else the device's."""
    kind = OclgrindResult if spec.is_oclgrind else PassResult
    p = kind(spec, cases, results=dict(enumerate(results)),
             ending=Ending(built=True, done=True, exit_code=0))
    if findings:
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


BIG = Case((1 << 20,), (256,), {"n": 1 << 20})  # more work-items than Oclgrind is given


def test_a_failing_case_too_big_for_oclgrind_is_refereed_by_the_small_ones_that_also_failed():
    # seen on the H100: a __constant float3 table read with the wrong stride, wrong at every size
    r = _verdict(_pass(POCL, [CASE, BIG], [WRONG, WRONG]), _pass(GRIND, [CASE], [RIGHT]))
    assert r.passed and r.miscompiled, r.message
    assert "gave wrong results in 2 of 2 cases (Oclgrind re-ran the 1 of them within its limits" \
        in r.message


def test_a_failing_case_past_oclgrinds_work_group_limit_is_refereed_too(oclgrind_present):
    """Seen on PoCL 3.0-rc2 (work-groups up to 4096): the correct interleaved tree reduction got
    wrong sums from the driver, also with work-groups of 4096, which Oclgrind (1024 at most)
    cannot run; it ran every other failing case right, so the driver is blamed, not the kernel."""
    wide = Case((4096,), (4096,), {"n": 4000})
    r = _verdict(_pass(POCL, [CASE, wide], [WRONG, WRONG]), _pass(GRIND, [CASE], [RIGHT]))
    assert r.passed and r.miscompiled, r.message


def test_a_big_case_alone_is_never_refereed():
    r = _verdict(_pass(POCL, [CASE, BIG], [RIGHT, WRONG]), _pass(GRIND, [CASE], [RIGHT]))
    assert not r.passed and not r.miscompiled


def test_no_miscompile_verdict_when_oclgrind_reports_a_problem():
    race = Finding("race", "data race", "Read-write data race", 4, 2, "x", None)
    r = _verdict(_pass(POCL, [CASE], [WRONG]), _pass(GRIND, [CASE], [RIGHT], [race]))
    assert not r.passed and "kernels/float_copy.cl:4:2: data race" in r.message


def test_right_values_with_an_oclgrind_report_fail_as_luck():
    race = Finding("race", "data race", "Read-write data race", 4, 2, "x", None)
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), _pass(GRIND, [CASE], [RIGHT], [race]))
    assert not r.passed and "only by luck" in r.message


def _past_the_end(n: int, launched: int) -> dict:
    return {"ok": False, "mistakes": [], "buffers": {"dst": out(
        length=n, tail_changed=launched - n, tail_first=0, tail_last=launched - n - 1)}}


def test_a_hang_after_an_access_outside_a_buffer_is_told_as_its_consequence():
    # seen in CI on PoCL: no_guard's write past the end corrupted the process, and the widest case
    # hung where it usually crashes; the verdict blamed an endless loop and said nothing else
    one = Case((64,), (64,), {"n": 1})
    dp = _pass(POCL, [one, CASE], [_past_the_end(1, 64)])
    dp.ending.hung_in = 1
    write = Finding("out_of_bounds_write", "write outside a buffer",
                    "Invalid write of size 4 (global memory)", 5, 12, "dst[i] = src[i];", None)
    r = _verdict(dp, _pass(GRIND, [one], [_past_the_end(1, 64)], [write]))
    assert not r.passed
    lines = r.message.splitlines()
    assert "write outside a buffer" in lines[2], r.message       # Oclgrind's finding first
    assert "endless loop?" not in r.message
    assert "can corrupt the memory of the process running the kernel" in r.message
    assert "wrote past the end of dst" in r.message               # the case that did run
    assert "not run" not in r.message                             # the hung case is told above


def test_a_hang_while_building_is_never_blamed_on_an_access_it_never_made():
    dp = _pass(POCL, [CASE], [])
    dp.ending.hung_in = -1
    write = Finding("out_of_bounds_write", "write outside a buffer",
                    "Invalid write of size 4 (global memory)", 5, 12, "dst[i] = src[i];", None)
    r = _verdict(dp, _pass(GRIND, [CASE], [RIGHT], [write]))
    assert "did not finish while building" in r.message
    assert "can corrupt the memory" not in r.message


def test_a_hang_with_nothing_outside_a_buffer_is_still_asked_about_loops():
    dp = _pass(POCL, [CASE], [])
    dp.ending.hung_in = 0
    r = _verdict(dp, _pass(GRIND, [CASE], [RIGHT]))
    assert not r.passed and "an endless loop?" in r.message


def test_without_oclgrind_a_pass_says_what_was_not_checked():
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), None)
    assert r.passed and "Oclgrind is not installed here, so its pass was skipped" in r.message
    from helpers.platforms import oclgrind_missing
    assert oclgrind_missing() in r.message   # with how to get it on this platform


# The speed verdict of a performance exercise, on made-up timings (the rules, not a device's speed).
class _Dev:
    def __init__(self, gpu: bool):
        import pyopencl as cl
        self.type = cl.device_type.GPU if gpu else cl.device_type.CPU


def _speed_pass(yours: float, solution: float, given: float | None = None) -> PassResult:
    ex = get("transpose")
    case = ex.performance.case.to_json()
    sp = SpeedResult(POCL, [])
    sp.ending.done = True
    sp.peak = {"copy_gb_per_s": 100.0, "gflop_per_s": 1000.0}
    for role, gb in (("yours", yours), ("solution", solution), ("given", given)):
        if gb is not None:
            sp.speed[role] = {"case": case, "seconds": 1.0 / gb, "gb_per_s": gb, "repeats": 10,
                              "rounds": 3}
    return sp


def test_speed_lines_name_the_share_of_the_peak_and_the_solution():
    from helpers.checking.diagnosis import speed_report
    lines, reached = speed_report(get("transpose"), _speed_pass(62.0, 80.0), _Dev(gpu=True))
    text = "\n".join(lines)
    assert "62.0 GB/s, 62% of this device's copy bandwidth (100 GB/s measured)" in text
    assert "the solution reaches 80.0 GB/s (80%)" in text
    assert reached is False and "does not reach the target (80% of the solution's speed)" in text


def test_speed_target_is_a_share_of_the_solution_and_a_cpu_is_told_why_it_may_differ():
    from helpers.checking.diagnosis import speed_report
    ex = get("transpose")
    assert speed_report(ex, _speed_pass(64.0, 80.0), _Dev(gpu=True))[1] is True  # exactly 80%
    lines, reached = speed_report(ex, _speed_pass(10.0, 80.0), _Dev(gpu=False))
    assert reached is False and "on a CPU timings vary from run to run" in lines[-1]


def test_a_speed_pass_that_failed_says_so_and_decides_nothing():
    from helpers.checking.diagnosis import speed_report
    sp = SpeedResult(POCL, [])
    sp.ending.output = "Traceback ...\nRuntimeError: out of resources\n"
    lines, reached = speed_report(get("transpose"), sp, _Dev(gpu=True))
    assert reached is None
    assert lines == ["Speed: not measured (the timing run stopped: RuntimeError: out of "
                     "resources)."]


def test_the_given_kernel_is_named_beside_the_solution():
    from helpers.checking.diagnosis import speed_report
    sp = _speed_pass(50.0, 50.0, given=5.0)
    lines, _ = speed_report(get("strided_fix"), sp, _Dev(gpu=True))
    assert "the kernel the exercise starts from (saxpy_chunks) reaches 5.0 GB/s (5%)" in lines[1]


def test_a_speed_above_the_measured_peak_is_never_a_share_above_100_percent():
    from helpers.checking.diagnosis import speed_report
    lines, _ = speed_report(get("strided_fix"), _speed_pass(177.0, 80.0, given=150.0),
                            _Dev(gpu=False))
    text = "\n".join(lines)
    assert "177.0 GB/s, more than this device's measured copy bandwidth (100 GB/s)" in text
    assert "that yardstick failed here" in text
    assert "(above the peak)" in text and "177%" not in text and "150%" not in text


def test_the_verdict_says_when_yours_and_the_solution_lie_within_the_noise():
    from helpers.checking.diagnosis import speed_report
    sp = _speed_pass(76.0, 80.0)
    sp.speed["yours"]["round_seconds"] = [1 / 76.0, 1 / 60.0, 1 / 70.0]
    sp.speed["solution"]["round_seconds"] = [1 / 80.0, 1 / 62.0, 1 / 75.0]
    lines, reached = speed_report(get("transpose"), sp, _Dev(gpu=True))
    text = "\n".join(lines)
    assert reached is True   # 76 >= 80% of 80
    assert "Yours (" in text and "lie within each other's spread" in text
    sp = _speed_pass(40.0, 80.0)
    sp.speed["yours"]["round_seconds"] = [1 / 40.0, 1 / 30.0, 1 / 35.0]
    sp.speed["solution"]["round_seconds"] = [1 / 80.0, 1 / 78.0, 1 / 79.0]
    lines, reached = speed_report(get("transpose"), sp, _Dev(gpu=True))
    assert "Yours is 2.00x slower than the solution" in "\n".join(lines)
    assert reached is False and "does not reach the target" in lines[-1]
    sp = _speed_pass(62.0, 80.0)   # misses 64 GB/s, but the solution's slow rounds reach 50
    sp.speed["yours"]["round_seconds"] = [1 / 62.0, 1 / 55.0]
    sp.speed["solution"]["round_seconds"] = [1 / 80.0, 1 / 50.0]
    lines, reached = speed_report(get("transpose"), sp, _Dev(gpu=True))
    assert reached is False and "by less than the runs' spread" in lines[-1]


def test_two_timings_are_compared_only_as_far_as_their_spread_allows():
    from helpers.timing import against, apart, compare
    a = {"seconds": 1e-3, "min_seconds": 0.9e-3, "max_seconds": 1.2e-3, "repeats": 10}
    b = {"seconds": 2e-3, "min_seconds": 1.9e-3, "max_seconds": 2.5e-3, "repeats": 10}
    c = {"seconds": 1.1e-3, "min_seconds": 1.0e-3, "max_seconds": 1.3e-3, "repeats": 10}
    assert apart(a, b) and not apart(a, c)
    assert compare("A", a, "B", b) == ("A is 2.00x faster than B (1 ms, 0.9-1.2 over 10 runs, "
                                       "against 2 ms, 1.9-2.5 over 10 runs).")
    assert "cannot tell them apart" in compare("A", a, "C", c)
    assert against(b, a) == "2.00x slower than the row above" and against(c, a).startswith("within")
    assert against(a, b) == "2.00x faster than the row above"


@pytest.mark.parametrize("sequential", ["0", "1"])
def test_the_oclgrind_pass_runs_beside_the_device_pass(sequential, monkeypatch):
    """Two independent child processes, started together (COURSE_CHECK_SEQUENTIAL=1: one after
    the other, as before); the verdict is the same either way."""
    from helpers import run_check
    monkeypatch.setenv("COURSE_CHECK_SEQUENTIAL", sequential)
    report = run_check("float_copy", solutions=True, seed=7)
    assert report.passed, report.message
    dp, op = report.device_pass, report.oclgrind_pass
    device_ended = dp.timing.started + dp.timing.seconds
    if sequential == "1":
        assert op.timing.started >= device_ended
    else:
        assert op.timing.started < device_ended and not op.ending.cancelled
    wrong = run_check("float_copy", TESTS / "wrong" / "float_copy" / "no_guard.cl", seed=7)
    assert not wrong.passed and "Oclgrind" in wrong.message


# ---------------------------------------------------------------------------------------------------
# Every verdict true: no driver blamed on a partial look, the most certain finding first.

def _skipped(p: PassResult, why: str = "its plugin for them crashed on this kernel") -> PassResult:
    p.skipped_plugin, p.skipped_why = "uninitialized values", why
    return p


def _probe(changes: bool) -> PassResult:
    p = _pass(POCL, [CASE], [{**WRONG, "poison_changes": changes, "runs_differ": False}])
    p.poison_ready = True
    return p


def test_no_miscompile_verdict_when_oclgrind_could_not_look_for_uninitialized_values():
    r = _verdict(_pass(POCL, [CASE], [WRONG]), _skipped(_pass(GRIND, [CASE], [RIGHT])))
    assert not r.passed and not r.miscompiled, r.message
    assert "cannot tell a driver's miscompile from such a read" in r.message.splitlines()[1]


def test_results_that_change_with_local_memory_are_an_uninitialized_read_first():
    ex = get("parallel_sum")
    case = ex.cases[0]
    wrong = {"ok": False, "mistakes": [], "buffers": {"partial": {
        "role": "out", "length": 4, "unwritten": 0, "wrong": 4, "leaked": 0,
        "view": "the sum", "view_expected": 10, "view_got": 3}}}
    probe = _pass(POCL, [case], [{**wrong, "poison_changes": True, "runs_differ": False}])
    probe.poison_ready = True
    r = verdict(_checked(ex, "k.cl"), Passes(_pass(POCL, [case], [wrong]), _skipped(
        _pass(GRIND, [case], [RIGHT | {"buffers": {}}])), probe), "PoCL")
    assert not r.passed and not r.miscompiled
    assert r.message.splitlines()[1].strip().startswith("reads local memory that no work-item wrote")


def test_a_pass_without_the_plugin_says_what_covered_local_memory():
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), _skipped(_pass(GRIND, [CASE], [RIGHT])))
    assert r.passed and "Reads of memory nothing wrote were not looked for" in r.message


def test_a_line_precise_finding_leads_and_a_pattern_guess_is_dropped_after_a_race():
    race = Finding("race", "data race", "Read-write data race", 4, 2, "x", None)
    guessed = {**WRONG, "mistakes": ["local id"]}
    r = _verdict(_pass(POCL, [CASE], [guessed]), _pass(GRIND, [CASE], [RIGHT], [race]))
    lines = r.message.splitlines()
    assert "Oclgrind" in lines[1] and "4:2: data race" in lines[2], r.message
    assert "only the first" not in r.message


def test_guard_the_store_only_when_work_items_past_the_data_wrote_there():
    past = out(tail_changed=3, tail_first=0, tail_last=2)
    assert "guard the store" in " ".join(describe_buffer("dst", past, CASE))
    exact = Case((1000,), (100,), {"n": 1000})  # as many work-items as elements
    said = " ".join(describe_buffer("dst", past, exact))
    assert "guard the store" not in said and "wrong row stride or offset" in said


def test_a_tiled_exercise_that_never_touches_local_memory_fails():
    ex = get("transpose")
    case = ex.cases[0]
    right = {"ok": True, "mistakes": [], "buffers": {}}
    grind = _pass(GRIND, [case], [right])
    grind.executed = {"load global": 256, "store global": 256}
    r = verdict(_checked(ex, "t.cl"), Passes(_pass(POCL, [case], [right]), grind), "PoCL")
    assert not r.passed and "never reads or writes local memory" in r.message.splitlines()[1]
    grind.executed = {"load local": 256, "store local": 256}
    assert verdict(_checked(ex, "t.cl"), Passes(_pass(POCL, [case], [right]), grind),
                   "PoCL").passed


FREEZE_LOG = """
OCLGRIND FATAL ERROR (/deps/Oclgrind/src/plugins/Uninitialized.cpp:1805)
Unsupported instruction: freeze
\tKernel: transpose
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\t  %conv15.frozen = freeze i64 %conv15
\tDebugging information not available.
"""


def test_oclgrind_gaps_are_told_apart_from_findings():
    from helpers.checking import oclgrind
    assert oclgrind.gaps(FREEZE_LOG) == [oclgrind.Gap("Unsupported instruction: freeze",
                                                      "Uninitialized")]
    assert oclgrind.parse(FREEZE_LOG) == []
    core = oclgrind.gaps("Undefined external function: llvm.usub.sat.i32\n")
    assert core == [oclgrind.Gap("Undefined external function: llvm.usub.sat.i32")]
    assert core[0].instruction == "llvm.usub.sat.i32"


def test_a_gap_of_oclgrinds_core_is_oclgrinds_and_the_device_decides():
    grind = _pass(GRIND, [CASE], [WRONG])
    from helpers.checking.oclgrind import Gap
    grind.gaps = [Gap("Unsupported instruction: freeze")]
    r = _verdict(_pass(POCL, [CASE], [RIGHT]), grind)
    assert r.passed and "gap in Oclgrind, not an error in your kernel" in r.message
    assert "freeze" in r.message and "does not promise" not in r.message


def test_oclgrinds_instruction_counts_are_summed_and_kept_out_of_the_output():
    from helpers.checking.oclgrind import counts
    text = ("hello from the kernel\nInstructions executed for kernel 'k':\n"
            "              64 - load local (256 bytes)\n           1,024 - add\n\n"
            "Instructions executed for kernel 'k':\n              64 - load local (256 bytes)\n\n"
            "bye\n")
    total, rest = counts(text)
    assert total == {"load local": 128, "add": 1024}
    assert rest == "hello from the kernel\nbye\n"


def test_the_instrumented_kernel_fills_its_local_memory_and_keeps_its_line_numbers():
    from helpers.checking.poison import instrument
    src = ("// c\n__kernel void t(__global float *a, /* x, */ __local float *tile,\n"
           "                __local int* more)\n{\n    __local float fixed[4][5];\n"
           "    a[0] = tile[0];\n}\n__kernel void other(__local float *z) { }\n")
    made = instrument(src, "t")
    assert made.local_args == ("tile", "more")
    assert made.source.count("\n") == src.count("\n")
    assert "_course_words1, const uint _course_pattern)" in made.source
    assert "sizeof(fixed) / 4" in made.source and "other(__local float *z) { }" in made.source
    assert instrument("#define K __kernel\nK void t(__local float *x) {}", "t") is None


def test_the_extremes_follow_the_device():
    from helpers.exercises import Limits
    cpu, gpu = Limits(8192, (8192,) * 3, 256 << 10), Limits(1024, (1024, 1024, 64), 48 << 10)
    assert cpu.widest_1d() == 8192 and gpu.widest_1d() == 1024
    assert cpu.widest_square(lambda t: 4 * t * (t + 1)) == 64
    assert gpu.widest_square(lambda t: 4 * t * (t + 1)) == 32
    t = get("transpose")
    widest = t.cases_for(gpu)[len(t.cases):]
    assert {c.local_size for c in widest} == {(32, 32)} and all(not c.small for c in widest)
    assert all(c.values == "wide" for c in widest)
    assert t.cases_for(None) == list(t.cases)
    for ex in (get("parallel_sum"), get("mat_vec_mul")):
        sizes = [c.local_size[0] for c in ex.cases_for(cpu)[len(ex.cases):]]
        assert sizes and set(sizes) == {8192}


def test_wide_ints_cover_the_range_without_overflow():
    import numpy as np

    from helpers.exercises import wide_ints
    a, b = wide_ints(np.random.default_rng(1), 100_000)
    s = a.astype(np.int64) + b
    assert s.min() >= -(1 << 31) and s.max() < (1 << 31)
    assert a.min() < -(1 << 30) and a.max() > (1 << 30)


def test_a_gpu_tries_the_work_groups_past_the_drivers_answer_last_and_a_cpu_never():
    from helpers.checking.worker_side import launch_order
    sizes = [64, 1024, 256, 512, 1]
    assert launch_order(sizes, 256, on_gpu=True) == ([0, 2, 4, 1, 3], {1, 3})
    assert launch_order(sizes, 256, on_gpu=False) == ([0, 2, 4, 1, 3], set())
    assert launch_order(sizes, 8192, on_gpu=True) == ([0, 1, 2, 3, 4], set())


def test_a_device_still_running_after_oclgrind_saw_a_divergent_barrier_is_stuck(monkeypatch):
    import time
    from concurrent.futures import Future
    from types import SimpleNamespace

    import helpers.checking.checker as run
    monkeypatch.setattr(run, "STUCK_AFTER_DIVERGENCE", 0.05)
    beside = Future()
    stuck = run._stuck_watch(beside)
    assert stuck(time.perf_counter() - 1) is None   # Oclgrind still running: nothing known
    beside.set_result(SimpleNamespace(findings=[SimpleNamespace(kind="race")]))
    assert stuck(time.perf_counter() - 1) is None   # a race does not keep a device waiting
    diverged = Future()
    diverged.set_result(SimpleNamespace(findings=[SimpleNamespace(kind="divergent_barrier")]))
    stuck = run._stuck_watch(diverged)
    now = time.perf_counter()
    assert stuck(now - 1) is None                # seen now: the device is given its grace
    time.sleep(0.1)
    assert stuck(time.perf_counter()) is None    # ... counted from its last progress too
    assert stuck(now - 1) >= 1.1                 # none for over a second: stuck, and how long
    assert run._stuck_watch(None)(now - 10) is None   # no Oclgrind pass beside: only the limit
    monkeypatch.setattr(run, "STUCK_AFTER_DIVERGENCE_CPU", 0.3)
    on_cpu = run._stuck_watch(diverged, on_gpu=False)
    start = time.perf_counter()
    assert on_cpu(start - 10) is None            # counted from when Oclgrind was seen, too: a
    time.sleep(0.1)                              # CPU's runtime may be compiling for the case
    assert on_cpu(start - 10) is None
    time.sleep(0.25)
    assert on_cpu(start - 10) >= 10.3
    assert on_cpu(time.perf_counter()) is None   # ... and from its last progress


def test_oclgrind_cases_are_dealt_out_largest_first_each_share_in_order():
    from helpers.checking.oclgrind_pass import shares
    cases = [Case((n,), (min(n, 64),), {"n": n}) for n in (64, 4096, 128, 2048, 256, 32)]
    dealt = shares(cases, 3)
    assert sorted(i for s in dealt for i in s) == list(range(6))     # each case once
    assert all(s == sorted(s) for s in dealt)
    loads = [sum(cases[i].work_items for i in s) for s in dealt]
    assert max(loads) == 4096 and len(dealt) == 3                    # the largest alone
    assert shares(cases[:2], 3) == [[1], [0]]                        # no more shares than cases
    assert shares(cases, 1) == [list(range(6))]


def test_passes_over_shares_gather_into_one_pass_over_every_case():
    from helpers.checking.oclgrind_pass import gathered, merged
    cases = [Case((n,), (n,), {"n": n}) for n in (16, 32, 64, 128)]
    race = Finding("race", "a race", "Read-write data race", 7, 3, "x", None)
    a = _pass(GRIND, [cases[0], cases[2]], [RIGHT, WRONG], [race])
    b = _pass(GRIND, [cases[1], cases[3]], [RIGHT, RIGHT], [race])
    a.ending.exit_code = b.ending.exit_code = None
    a.timing.started, a.timing.seconds, b.timing.started, b.timing.seconds = 10.0, 1.0, 10.2, 2.0
    b.ending.hung_in, b.ending.cut_short, b.skipped_plugin = 1, True, "uninitialized values"
    b.executed, a.executed = {"load local": 5}, {"load local": 2, "barrier": 1}
    a.timing.marks, b.timing.marks = {"asked": 10.0, "built": 10.5, "ended": 11.0}, {"asked": 10.2,
                                                                        "built": 10.4, "ended": 12.2}
    g = gathered(cases, [([0, 2], a), ([1, 3], b)])
    assert g.cases == cases and g.results == {0: RIGHT, 2: WRONG, 1: RIGHT, 3: RIGHT}
    assert g.failing() == [2]
    assert g.ending.hung_in == 3                      # b's second case is the third of all
    assert g.ending.cut_short and g.skipped_plugin == "uninitialized values" and g.ending.exit_code is None
    assert [(f.kind, f.count) for f in g.findings] == [("race", 2)]
    assert g.executed == {"load local": 7, "barrier": 1}
    assert g.timing.started == 10.0 and g.timing.seconds == pytest.approx(2.2)
    assert g.timing.marks == {"asked": 10.0, "built": 10.5, "ended": 12.2}
    c = _pass(GRIND, [cases[3]], [WRONG])
    c.ending.crashed_in = 1                           # after its last case
    m = merged(_pass(GRIND, cases[:3], [RIGHT] * 3), c)
    assert m.failing() == [3] and m.ending.crashed_in == 4 and m.ending.exit_code == 0


def test_a_check_uses_two_oclgrind_workers_from_four_cores_three_from_eight_unless_told(
        monkeypatch):
    from helpers.checking import options
    from helpers.checking.options import default_oclgrind_workers
    monkeypatch.delenv("COURSE_OCLGRIND_WORKERS", raising=False)
    for cores, workers in ((1, 1), (2, 1), (3, 1), (4, 2), (7, 2), (8, 3), (16, 3)):
        monkeypatch.setattr(options, "usable_cores", lambda cores=cores: cores)
        assert default_oclgrind_workers() == workers and CheckOptions().grind_workers == workers
    monkeypatch.setenv("COURSE_OCLGRIND_WORKERS", "2")
    assert default_oclgrind_workers() == 2 and CheckOptions().grind_workers == 2
    monkeypatch.setenv("COURSE_OCLGRIND_WORKERS", "many")
    assert default_oclgrind_workers() == 3
    assert CheckOptions(oclgrind_workers=2).grind_workers == 2


def test_shares_stop_where_one_worker_going_through_the_cases_in_order_would_have():
    from threading import Event

    from helpers.checking.oclgrind_pass import Shares
    # four cases in two shares; case 3 is the widest, run only after clean small cases
    watch = Shares([[0, 2], [1, 3]], anticipated=3)
    first, second = watch.progress(0), watch.progress(1)
    first("start", 0, None)
    second("start", 0, None)
    second("reported", 0, None)                  # case 1 reported
    assert not any(s.is_set() for s in watch.stops)  # case 0 comes before it: it goes on
    first("result", 0, True)                      # share 0 would now start case 2: past case 1
    assert watch.stops[0].is_set() and watch.stopped[0]
    assert not watch.stops[1].is_set()            # the share that reported ends its case itself
    second("result", 0, True)
    assert watch.stops[1].is_set()                # ... and never starts the widest

    wrong = Shares([[0, 2], [1, 3]], anticipated=3)
    wrong.progress(1)("result", 0, True)          # share 1 now waits to start the widest
    assert not wrong.stops[1].is_set()
    wrong.progress(0)("result", 0, False)         # case 0 went wrong: the widest is not needed
    assert wrong.stops[1].is_set() and not wrong.stops[0].is_set()  # case 2 still runs
    wrong.progress(0)("result", 1, True)          # share 0 done: nothing left to stop
    assert not wrong.stops[0].is_set()

    late = Shares([[0, 2], [1, 3]], anticipated=3)
    late.progress(1)("start", 0, None)            # share 1 in case 1
    late.progress(0)("result", 0, True)
    late.progress(0)("result", 1, True)           # share 0 has run both its cases ...
    late.progress(0)("reported", 2, None)         # ... and its log showed a report after that
    assert late.reported == 2 and not late.stops[1].is_set()   # case 1 comes before case 2
    late.progress(1)("result", 0, True)
    assert late.stops[1].is_set()                 # the widest comes after it

    outer = Event()
    clean = Shares([[0, 1], [2]], anticipated=2, outer=outer)
    for k, idx in enumerate(clean.parts):
        for i in range(len(idx)):
            clean.progress(k)("result", i, True)
    assert not any(s.is_set() for s in clean.stops) and not any(clean.stopped)
    outer.set()                                   # the check's own stop reaches every share
    assert all(s.is_set() for s in clean.stops) and not any(clean.stopped)


def test_the_widest_case_alone_gets_a_thread_per_work_group_and_the_rest_the_other_cores(
        monkeypatch):
    from helpers.checking import options
    from helpers.checking.oclgrind_pass import share_threads
    monkeypatch.setattr(options, "usable_cores", lambda: 16)
    small = [Case((256,), (16,), {"n": 256}), Case((64,), (64,), {"n": 64})]
    widest = [Case((64, 32), (32, 32), {"n": 2048})]                 # two work-groups
    assert share_threads([small, widest], last_alone=True) == [14, 2]
    assert share_threads([small[:1], small[1:], widest], last_alone=True) == [7, 7, 2]
    assert share_threads([small, widest], last_alone=False) == [8, 8]
    monkeypatch.setattr(options, "usable_cores", lambda: 2)
    assert share_threads([small, widest], last_alone=True) == [1, 1]


def test_a_learners_speed_pass_carries_no_solution(tmp_path):
    """The solution never enters a process that runs learner code (issue 53 point 4): the
    learner's worker times the learner's kernel alone; the solution and the starting kernel are
    timed in a worker of the course's own, whose one source is the solution."""
    import json

    from helpers import workers
    from helpers.checking.learner import Submission
    from helpers.checking.options import CheckOptions
    from helpers.checking.passes import Check, PassPlan, _request
    from helpers.exercises import get
    from helpers.paths import ROOT
    kernel = tmp_path / "strided_fix.cl"
    kernel.write_text("learner's text")
    chk = Check(get("strided_fix"), Submission(kernel, "learner's text"), 1,
                CheckOptions(owner="ann"), workers.Lease())
    request = _request(chk, [], PassPlan(10.0, speed=True))
    solution = (ROOT / "solutions" / "strided_fix.cl").read_text()
    assert request["roles"] == ["yours"] and "solution" not in request
    assert solution not in json.dumps(request)


def test_a_tiles_ratio_is_counted_where_no_work_item_lies_past_the_data():
    """Work-items past the data may load clamped duplicates into the tile and never read them
    back (a right transpose): the tile's reads per global read are counted over the launches
    whose global size is the data's own."""
    from helpers.checking.verdict import covers_exactly
    assert covers_exactly({"global": [16, 16], "params": {"width": 16, "height": 16}})
    assert not covers_exactly({"global": [40, 24], "params": {"width": 37, "height": 23}})
    assert covers_exactly({"global": [5, 3], "params": {"m": 3, "n": 5, "k": 7}})
    assert covers_exactly({"global": [64, 64], "params": {"n": 64}})
    assert covers_exactly({"global": [291], "params": {"n": 291}})
    assert not covers_exactly({"global": [1024], "params": {"n": 1000, "radius": 3}})
    assert not covers_exactly({"global": [8], "params": {}})


def test_a_worker_with_no_home_reads_an_empty_cache(monkeypatch):
    """A sandboxed worker's user has no home: the course cache reads as empty there (a probe's
    look at known crashes broke every re-check of the class view before)."""
    from pathlib import Path

    from helpers import cache

    def no_home():
        raise RuntimeError("Could not determine home directory.")
    monkeypatch.delenv("COURSE_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert cache.read("probes") == {}
    with pytest.raises(OSError):
        cache.write("probes", {})


def _split_calls(monkeypatch, report_in_first: bool = False):
    """oclgrind_pass with its workers stubbed: each run_pass call's cases and whether its worker
    follows uninitialized values."""
    import helpers.checking.oclgrind_pass as shares
    calls = []

    def fake(chk, spec, cases, plan, stop=None, progress=None):
        follows = "OCLGRIND_UNINITIALIZED" in plan.env
        calls.append(([c.work_items for c in cases], follows))
        p = OclgrindResult(spec, cases, {i: dict(RIGHT) for i in range(len(cases))},
                       ending=Ending(done=True))
        if report_in_first and follows:
            p.findings = [Finding("uninitialized", "an uninitialized value", "", 3, 1, None, None)]
        return p
    monkeypatch.setattr(shares, "run_pass", fake)
    monkeypatch.setattr("helpers.device.oclgrind_device", lambda: object())
    monkeypatch.setattr(shares.DeviceSpec, "of", staticmethod(lambda dev: GRIND))
    return shares, calls


def test_the_uninitialized_value_plugin_follows_the_first_small_cases(monkeypatch):
    shares, calls = _split_calls(monkeypatch)
    cases = [Case((n,), (1,), {"n": n}, True) for n in (5, 64, 512, 600, 4096)]
    op = shares.oclgrind_pass(None, cases, 10.0)
    assert calls == [([5, 64, 512], True), ([600, 4096], False)]
    assert op.cases == cases and op.all_ok()   # one pass over every case, in their order
    # the first case always has the plugin, however large
    calls.clear()
    shares.oclgrind_pass(None, cases[3:], 10.0)
    assert calls == [([600], True), ([4096], False)]


def test_no_larger_case_runs_after_a_report(monkeypatch):
    shares, calls = _split_calls(monkeypatch, report_in_first=True)
    cases = [Case((n,), (1,), {"n": n}, True) for n in (5, 600)]
    op = shares.oclgrind_pass(None, cases, 10.0)
    assert calls == [([5], True)] and op.findings
    # a pass over every case, cut short after the first: the larger one has no result
    assert op.cases == cases and list(op.results) == [0] and op.ending.cut_short and not op.ending.done


def test_the_small_cases_keep_the_contracts_order_those_the_plugin_follows_first():
    from helpers.checking.passes import small_cases
    ex = get("erosion_2d")
    sizes = [c.work_items for c in small_cases(ex, up_to=512)]
    contract = [c.work_items for c in ex.cases if c.small]
    assert sorted(sizes) == sorted(contract)
    first = [n for n in contract if n <= 512]
    assert sizes[:len(first)] == first and sizes[len(first):] == [n for n in contract if n > 512]


def test_the_learners_rounds_and_the_solutions_are_timed_in_turn(monkeypatch, tmp_path):
    """A burst of other work slows one round of each kernel, not all of one kernel's rounds: the
    learner's worker and the course's own take one round each in turn; each keeps its best."""
    import helpers.checking.checker as run
    from helpers import workers
    from helpers.checking.learner import Submission
    from helpers.checking.passes import Check
    calls = []
    seconds = iter([3.0, 2.0, 1.0, 4.0, 2.5, 5.0])   # yours, solution, yours, solution, ...

    def fake(chk, spec, cases, plan, **kw):
        role = "solution" if "solution" in plan.roles else "yours"
        calls.append((role, plan.rounds, plan.peak))
        p = SpeedResult(spec, cases, ending=Ending(done=True))
        t = next(seconds)
        p.speed = {role: {"seconds": t, "round_seconds": [t], "rounds": 1}}
        return p
    monkeypatch.setattr(run, "run_pass", fake)
    solution = tmp_path / "spill_fix.cl"
    solution.write_text("__kernel void spill_fix() {}")
    monkeypatch.setattr("helpers.kernels.solution_file", lambda name: solution)
    chk = Check(get("spill_fix"), Submission(tmp_path / "mine.cl", ""), 1, CheckOptions(),
                workers.Lease())
    sp = run._interleaved_speed(chk, POCL)
    assert [c[0] for c in calls] == ["yours", "solution"] * 3
    assert all(c[1] == 1 for c in calls) and [c[2] for c in calls if c[0] == "yours"] == \
        [True, False, False]        # the peaks once, in the learner's first round
    assert sp.speed["yours"]["seconds"] == 1.0 and sp.speed["yours"]["round_seconds"] == [3.0, 1.0, 2.5]
    assert sp.speed["solution"]["seconds"] == 2.0 and sp.speed["solution"]["rounds"] == 3
