"""A verdict says only what is true (issue 52, point 3), on synthetic facts: a guess at the slip only
where it fits the whole evidence, each exercise's own guard, a crash told as the kernel's before the
driver's words, and lines wrapped between words."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers.checking import CheckOptions
from helpers.checking.diagnosis import describe_case, unguarded, wrapped
from helpers.checking.judge import analyse, sentinel
from helpers.checking.learner import Submission
from helpers.checking.passes import Check, Ending, Passes, PassResult
from helpers.checking.verdict import verdict
from helpers.device import DeviceSpec
from helpers.exercises import REGISTRY, Case, Scalar, get

pytestmark = pytest.mark.once   # the verdict's words on synthetic facts: no device

INTEL = DeviceSpec("Intel(R) OpenCL", "OpenCL 3.0 LINUX", "cpu")
CASE = Case((1024,), (256,), {"n": 1000})
SHIFTED = {"ok": False, "mistakes": [], "buffers": {"dst": {
    "role": "out", "length": 1000, "unwritten": 0, "wrong": 999, "leaked": 1, "shift": -1,
    "wrong_samples": [{"index": 1, "expected": 1.0, "got": 2.0}]}}}


def _said(**kw) -> str:
    return " ".join(describe_case(get("float_copy"), CASE, SHIFTED | kw.pop("r", {}), **kw))


def test_a_shift_is_guessed_at_only_where_nothing_else_explains_the_outputs():
    alone = _said()
    assert "dst[i] holds the value expected at dst[i - 1]: an index is off by 1" in alone
    # Oclgrind's finding at a line says where the slip is: the shift is a fact, not a guess
    found = _said(found=True)
    assert "dst[i] holds the value expected at dst[i - 1]." in found and "off by" not in found
    # a named mistake explains the outputs: the same
    named = _said(r={"mistakes": ["local id"]})
    assert "off by" not in named
    # after a race the results are undefined: no pattern is read in them
    assert "holds the value expected" not in _said(mistakes=False)


def _facts(body: np.ndarray, want: np.ndarray) -> dict:
    ex, n = get("float_copy"), want.size
    case = Case((n,), (n,), {"n": n})
    f32 = np.float32
    got = {"src": np.concatenate([sentinel("input_guard", f32, 4), want,
                                  sentinel("input_guard", f32, 4)]),
           "dst": np.concatenate([sentinel("output_guard", f32, 4), body,
                                  sentinel("output_guard", f32, 4)])}
    return analyse(ex, case, {"src": want}, {"dst": want.copy()}, got, {"src": 4, "dst": 4},
                   {"src": 4, "dst": 4})["buffers"]["dst"]


def test_a_shift_must_explain_every_element_not_a_few():
    want = np.arange(1, 101, dtype=np.float32)
    assert _facts(np.roll(want, -1), want).get("shift") == 1    # the last one read past the end
    # a transposed 10 x 10 store: some wrong elements hold a neighbour's value, most do not
    assert not _facts(want.reshape(10, 10).T.ravel().copy(), want).get("shift")
    # a race's garbage among shifted values: the shift does not explain it
    racy = np.roll(want, 2)
    racy[[17, 50, 81]] = 0.0
    assert not _facts(racy, want).get("shift")
    # right values between the wrong ones that a shift would have moved too
    half = want.copy()
    half[::2] = np.roll(want, -1)[::2]
    assert not _facts(half, want).get("shift")


TWO_D = sorted(n for n, ex in REGISTRY.items() if len(ex.cases[0].global_size) == 2)


@pytest.mark.parametrize("name", TWO_D)
def test_a_2d_exercise_is_advised_a_guard_in_its_own_arguments(name):
    ex = get(name)
    sizes = {a.name for a in ex.args if isinstance(a, Scalar)}
    for b in ex.outputs():
        said = unguarded(ex, b)
        assert "i < n" not in said, said
        if said:   # its own size arguments, both dimensions
            named = [s for s in sizes if f"< {s}" in said]
            assert named and " && " in said, said


def test_the_guards_of_the_matrices_name_their_arguments():
    assert "if (x < width && y < height)" in unguarded(get("matrix_add"), get("matrix_add").outputs()[0])
    assert "if (x < n && y < m)" in unguarded(get("sgemm_tiled"), get("sgemm_tiled").outputs()[0])
    assert "if (i < n)" in unguarded(get("float_copy"), get("float_copy").outputs()[0])
    # a partial sum a work-group is no work-item's own element: no guard is advised
    assert unguarded(get("parallel_sum"), get("parallel_sum").outputs()[0]) == ""


INTEL_DUMP = ("PLEASE submit a bug report to https://software.intel.com/en-us/support/priority-support"
              " and include the crash backtrace and instructions to reproduce the bug.\n"
              "Stack dump without symbol names (ensure you have llvm-symbolizer in your PATH):\n"
              "0  libintelocl.so 0x00007f5c1b2a3c4d\n")


def _crashed(output: str) -> str:
    dp = PassResult(INTEL, [CASE], results={}, ending=Ending(built=True, exit_code=-11))
    dp.ending.crashed_in, dp.ending.output = 0, output
    chk = Check(get("float_copy"), Submission(Path("k.cl"), ""), 1, CheckOptions(), None)
    return verdict(chk, Passes(dp), "cpu").message


def test_a_learners_crash_leads_with_the_kernel_and_the_drivers_report_comes_last_as_its():
    lines = _crashed("copied 3 elements\n" + INTEL_DUMP).splitlines()
    assert lines[1].strip().startswith("crashed the process running it (SIGSEGV) in case n=1000")
    assert "a write (or read) far outside a buffer" in lines[1]
    please = next(i for i, x in enumerate(lines) if "PLEASE submit" in x)
    assert "the OpenCL driver's own crash report" in lines[please - 1]
    printed = next(i for i, x in enumerate(lines) if "copied 3 elements" in x)
    assert lines[printed - 1].strip() == "the process printed before it died:" and printed < please
    assert not any("libintelocl.so 0x" in x for x in lines[:please])


LONG = ("rotate_in_group failed (tests/wrong/rotate_in_group/no_barrier.cl, on AMD EPYC (Intel(R) "
        "OpenCL, driver 2026.22.10.0.01_160000)):\n"
        "  likely mistake: barrier missing or misplaced: work-items read the tile before the others "
        "have stored their element in it; put barrier(CLK_LOCAL_MEM_FENCE) after the store. (Hint "
        "2 is about this.)\n"
        "    tests/wrong/a_very_long_directory_name_that_no_line_can_hold_whole/and_more_of_it/"
        "kernel.cl:8:13: data race\n"
        "  does not compile:\n"
        "  k.cl:3:9: error: use of undeclared identifier 'index'; did you mean 'indexes', the name "
        "declared on line 2 above it?\n"
        "          ^~~~~\n")


def test_a_verdict_is_wrapped_between_words_never_inside_one():
    shown = wrapped(LONG, 80)
    assert shown.split() == LONG.split()                      # every word whole, none split
    for line in shown.splitlines():
        assert len(line) <= 80 or " " not in line.strip() or line.strip().startswith("k.cl"), line
    # a line a compiler's marker points into is left whole, and the marker under it
    assert "k.cl:3:9: error: use of undeclared identifier 'index'; did you mean" in shown
    assert shown.splitlines()[-1] == "          ^~~~~"
    # a continuation is indented past the line's own details (two more spaces)
    lines = shown.splitlines()
    first = next(i for i, x in enumerate(lines) if "likely mistake" in x)
    after = next(i for i, x in enumerate(lines) if "data race" in x)
    assert after - first > 1 and all(x.startswith("      ") for x in lines[first + 1:after - 1])
