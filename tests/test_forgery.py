"""Nothing a kernel prints is read as evidence (issue 53 point 2). A kernel's printf goes to its
worker's output, which the learner is shown; Oclgrind's counts are read there only as the last block
before each launch's mark (a random line the worker prints once the launch has ended), Oclgrind's
gaps only from its log or from a pass that did not run through, and the worker's events come by a
pipe of their own. Each forgery below is printed by a kernel that is wrong, and its verdict stays
the verdict of a wrong kernel."""

from __future__ import annotations

import pytest

from helpers.checking import run_check
from helpers.checking.oclgrind import counts

from .conftest import TESTS

DECOY = (TESTS / "wrong" / "erosion_1d_local" / "tile_decoy.cl").read_text()


def _printing(text: str, what: str) -> str:
    """``text`` whose first work-item prints ``what`` (each line a printf) before its work."""
    lines = "".join(f'        printf("{line}\\n");\n' for line in what.splitlines())
    at = text.index("{", text.index("__kernel")) + 1
    return text[:at] + f"\n    if (get_global_id(0) == 0) {{\n{lines}    }}\n" + text[at:]


FAKE_COUNTS = ("Instructions executed for kernel 'erosion_1d_local':\n"
               "        9999999 - load local (4 bytes)\n        9999999 - store local (4 bytes)\n"
               "              1 - load global (4 bytes)\n")


def test_a_printed_count_block_does_not_make_a_tile(tmp_path, oclgrind_present):
    kernel = tmp_path / "erosion_1d_local.cl"
    kernel.write_text(_printing(DECOY, FAKE_COUNTS))
    report = run_check("erosion_1d_local", kernel=kernel)
    assert not report.passed, report.message
    assert "tile carries few of its reads" in report.message, report.message
    assert report.oclgrind_pass.executed["load local"] < 9999999


def test_counts_are_the_last_block_before_each_mark():
    mark = "course-launch-end-1234"
    real = ("Instructions executed for kernel 'k':\n  10 - load local (4 bytes)\n"
            "   5 - load global (4 bytes)\n\n")
    forged = FAKE_COUNTS.replace("'erosion_1d_local'", "'k'")
    # a forged block before the real one, a forged header after an unended printf line, a launch
    # that never ended (no mark): only the real blocks count
    output = (forged + "\n" + real + mark + "\n" + "unended printf line" + real + mark + "\n"
              + forged)
    total, rest = counts(output, mark)
    assert total == {"load local": 20, "load global": 10}
    assert "9999999" in rest and "unended printf line" in rest and mark not in rest


FAKE_GAP = "OCLGRIND FATAL ERROR (/deps/Oclgrind/src/core/WorkItem.cpp:1681)\n" \
           "Undefined external function: llvm.usub.sat.i32"


@pytest.mark.parametrize("fake", [FAKE_GAP, "Unsupported instruction: freeze"])
def test_a_printed_gap_does_not_silence_oclgrind(tmp_path, fake, oclgrind_present):
    """A kernel that writes past the end of out, which Oclgrind sees, prints a gap of Oclgrind's:
    the write is still reported, and no gap is claimed."""
    wrong = (TESTS / "wrong" / "float_copy").glob("*.cl")
    source = next(p for p in wrong if p.name == "no_guard.cl").read_text()
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(_printing(source, fake))
    report = run_check("float_copy", kernel=kernel)
    assert not report.passed
    assert "could not simulate" not in report.message, report.message
    assert report.oclgrind_pass.findings, report.message


def test_a_printed_event_is_not_an_event(tmp_path, oclgrind_present):
    """The skeleton computes nothing; it prints the events of a passed run."""
    events = '{"event": "result", "case": 0, "ok": true}\n{"event": "done"}\n{"event": "end"}'
    source = (TESTS.parent / "solutions" / "float_copy.cl").read_text()
    kernel = tmp_path / "float_copy.cl"
    body = source.replace("dst[i] = src[i];", "dst[i] = 0.0f;")
    assert body != source
    kernel.write_text(_printing(body, events.replace('"', '\\"')))
    report = run_check("float_copy", kernel=kernel)
    assert not report.passed and "float_copy failed" in report.message, report.message


@pytest.mark.parametrize("spelling", ["/* see\nUnsupported instruction: freeze */ ",
                                      "/* see \rUnsupported instruction: freeze */ ",
                                      "/* OCLGRIND FATAL ERROR (plugins/Uninitialized.cpp:1) */ "])
def test_the_kernels_own_text_quoted_in_oclgrinds_report_is_no_gap(tmp_path, spelling,
                                                                   oclgrind_present):
    """Oclgrind's report quotes the kernel's source line where it found the read past the end;
    a gap's words written on that line (after a newline in a comment, a carriage return, or a
    fake FATAL line) are the kernel's, not Oclgrind's: the read is still reported."""
    source = (TESTS / "wrong" / "saxpy_guard" / "value_before_guard.cl").read_text()
    line = "const float v = a * x[i] + y[i];"
    assert line in source
    kernel = tmp_path / "saxpy_guard.cl"
    kernel.write_text(source.replace(line, spelling + line))
    report = run_check("saxpy_guard", kernel=kernel)
    assert not report.passed, report.message
    assert "could not simulate" not in report.message and report.oclgrind_pass.gaps == []
