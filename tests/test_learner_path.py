"""The learner's path through an exercise, as a learner takes it in a notebook: a ``%%kernel NAME``
cell saves and checks, the previous version is kept, a failed check prints its verdict and the
notebook goes on (it fails the cell only under nbval and the grader), the verdict names the hint that
fits and leaves the others behind their collapsibles, and the reference device's verdict is labelled
as such. Every kernel file here lives in a temporary copy of kernels/: no test writes into the
learner's own."""

from __future__ import annotations

import json
import re

import pytest

from helpers import bench, magic
from helpers.checking import KernelCheckFailed, check, run_check
from helpers.checking.checker import strict_checks
from helpers.exercises import exercises, get
from helpers.kernels import SOLUTIONS

from .conftest import TESTS
from .shipped import committed, shipped_skeleton, tracked

SOLVED = (SOLUTIONS / "float_copy.cl").read_text()
WRONG = ("__kernel void float_copy(__global const float *src, __global float *dst, const uint n)\n"
         "{\n    uint i = get_global_id(0);\n    if (i < n) dst[i] = 2.0f * src[i];\n}\n")


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A learner's kernels/ with the shipped skeleton of float_copy, in a learner's notebook:
    solutions off, checks not strict."""
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    (kernels / "float_copy.cl").write_bytes(shipped_skeleton("float_copy").read_bytes())
    monkeypatch.setattr("helpers.kernels.KERNELS", kernels)
    monkeypatch.setenv("COURSE_SOLUTIONS", "0")
    monkeypatch.setenv("COURSE_STRICT_CHECKS", "0")
    monkeypatch.setattr(magic, "take_into_cell", lambda name, text: TAKEN.append(text) or True)
    TAKEN.clear()
    return kernels


TAKEN: list[str] = []   # what the cell was given of the file (set_next_input, in JupyterLab)


def skeleton_text() -> str:
    return committed("kernels/float_copy.cl").decode()


def test_a_kernel_cell_is_saved_checked_and_the_previous_version_kept(workspace, capsys,
                                                                      oclgrind_present):
    magic.kernel("float_copy", SOLVED)
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == SOLVED
    kept = workspace / "previous" / "float_copy-1.cl"
    assert kept.read_text() == skeleton_text()
    assert re.search(r"the text it replaced is kept as \S*previous/float_copy-1.cl", out), out
    assert "✔ float_copy passed" in out
    # every save that replaces text says where the text went
    magic.kernel("float_copy", WRONG)
    out = capsys.readouterr().out
    assert (workspace / "previous" / "float_copy-2.cl").read_text() == SOLVED
    assert re.search(r"the text it replaced is kept as \S*previous/float_copy-2.cl", out), out
    assert "float_copy failed" in out                       # printed, not raised: Run All goes on
    assert TAKEN == []


def test_an_untouched_skeleton_cell_checks_the_file_the_editor_saved(workspace, capsys,
                                                                     oclgrind_present):
    (workspace / "float_copy.cl").write_text(SOLVED)        # the editor route
    magic.kernel("float_copy", skeleton_text())
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == SOLVED       # not undone by Run All
    assert "did not overwrite it" in out and "✔ float_copy passed" in out
    assert TAKEN == [SOLVED]                                # the cell now shows the file's text
    assert not list((workspace / "previous").glob("*.cl"))  # the skeleton needs no keeping


def test_the_editor_fix_survives_a_cell_run_as_it_is(workspace, capsys, oclgrind_present):
    """The learner's report: the cell saved a wrong kernel, the learner fixed the file in the
    editor, then ran the cell as it was. The fix stays in the file, the cell takes it, and the
    check judges it."""
    magic.kernel("float_copy", WRONG)                       # the cell's wrong kernel, saved
    assert "float_copy failed" in capsys.readouterr().out
    (workspace / "float_copy.cl").write_text(SOLVED)        # fixed in the editor
    magic.kernel("float_copy", WRONG)                       # the cell run as it is
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == SOLVED
    assert "✔ float_copy passed" in out and "did not overwrite it" in out, out
    assert TAKEN == [SOLVED]
    kept = re.search(r"The cell's own text is kept as \S*(previous/float_copy-\d+\.cl)", out)
    assert kept and (workspace / kept.group(1)).read_text() == WRONG, out
    # the cell now holds the file's text: running it again saves nothing and checks the same
    magic.kernel("float_copy", SOLVED)
    out = capsys.readouterr().out
    assert "Saved" not in out and "did not overwrite" not in out and "✔ float_copy passed" in out
    # and an edit in the cell after that is the cell's to save, keeping the file's text
    magic.kernel("float_copy", WRONG)
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == WRONG and "the text it replaced" in out


def test_a_cell_and_an_editor_both_changed_keep_both_texts(workspace, capsys, oclgrind_present):
    """Edited in the cell and in the editor since the cell last saved: the file is not
    overwritten, the cell's text is kept in previous/, and the check says so."""
    magic.kernel("float_copy", skeleton_text())             # the cell, as shipped, saved
    capsys.readouterr()
    (workspace / "float_copy.cl").write_text(SOLVED)        # the editor
    magic.kernel("float_copy", WRONG)                       # the cell, edited too
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == SOLVED and "✔ float_copy passed" in out
    kept = sorted((workspace / "previous").glob("float_copy-*.cl"))
    assert [k.read_text() for k in kept] == [WRONG] and kept[0].name in out


def test_what_the_cell_saved_is_remembered_across_sessions(workspace, capsys, oclgrind_present):
    """A new kernel process (a restart): a file the cell saved is still the cell's to write."""
    magic.kernel("float_copy", WRONG)
    record = json.loads((workspace / "previous" / ".cells.json").read_text())
    assert record == {"float_copy": magic.digest(WRONG)}
    magic.kernel("float_copy", SOLVED)                      # the same file, no editor in between
    assert "the text it replaced is kept as" in capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == SOLVED and TAKEN == []


def test_with_the_solutions_switch_a_kernel_cell_saves_nothing(workspace, capsys, monkeypatch,
                                                               oclgrind_present):
    monkeypatch.setenv("COURSE_SOLUTIONS", "1")
    magic.kernel("float_copy", WRONG)
    out = capsys.readouterr().out
    assert (workspace / "float_copy.cl").read_text() == skeleton_text()
    assert "not saved" in out and "✔ float_copy passed" in out


def test_a_kernel_cell_for_no_exercise_says_how_to_use_it(workspace, capsys):
    magic.kernel("no_such_exercise", SOLVED)
    magic.kernel("", SOLVED)
    out = capsys.readouterr().out
    assert out.count("usage: %%kernel NAME") == 2 and not (workspace / "previous").exists()


def test_a_failed_check_fails_its_cell_only_where_checks_are_strict(workspace, capsys, monkeypatch,
                                                                   oclgrind_present):
    from helpers.pytest_plugin import pytest_configure
    monkeypatch.delenv("COURSE_STRICT_CHECKS", raising=False)   # a learner's notebook
    assert check("float_copy") is None                      # the skeleton: printed, no exception
    assert "float_copy failed" in capsys.readouterr().out
    monkeypatch.setenv("COURSE_STRICT_CHECKS", "1")         # the grader
    with pytest.raises(KernelCheckFailed):
        check("float_copy")
    monkeypatch.delenv("COURSE_STRICT_CHECKS")
    pytest_configure(None)                                  # a notebook under nbval: the plugin
    assert strict_checks()
    monkeypatch.delenv("COURSE_STRICT_CHECKS")
    assert not strict_checks()                              # a learner's notebook
    monkeypatch.setenv("COURSE_SOLUTIONS", "1")             # a failing solution is the course's bug
    assert strict_checks()


def test_a_failed_verdict_names_one_hint_and_prints_none(workspace, oclgrind_present):
    ex = get("float_copy")
    message = run_check("float_copy").message
    assert "Start with Hint 1 (of 3" in message and "python -m helpers hint float_copy 1" in message
    for hint in ex.teaching.hints:
        assert hint not in message
    assert not re.search(r"^\s*hint:", message, re.MULTILINE)


def test_a_likely_mistake_names_the_hint_about_it(oclgrind_present):
    """Where an exercise's mistake rule names a hint, the verdict on that mistake points there."""
    ex = get("float_copy")
    named = [m for m in ex.teaching.mistakes if getattr(m, "hint", 0)]
    if not named:
        pytest.fail("float_copy's mistakes name no hint")
    report = run_check("float_copy", kernel=TESTS / "wrong" / "float_copy" / "local_id.cl")
    found = re.search(r"\(Hint (\d+) is about this\.\)", report.message)
    assert found and f"Hint {found.group(1)} fits this" in report.message, report.message


def test_hints_come_one_at_a_time_from_the_command_line():
    from helpers.__main__ import main
    ex = get("float_copy")
    assert main(["hint", "float_copy", "2"]) == 0
    assert main(["hint", "float_copy", str(len(ex.teaching.hints) + 1)]) == 2
    assert main(["hint", "float_copy", "--solution"]) == 0


def test_skeleton_digests_are_those_of_the_shipped_skeletons():
    recorded = json.loads(magic.SKELETONS.read_text())
    shipped = {ex.name for ex in exercises()            # not a test's own exercise (block_sum)
               if tracked() is None or f"kernels/{ex.name}.cl" in tracked()}
    assert set(recorded) == shipped and len(shipped) >= 17
    for name, value in recorded.items():
        assert magic.digest(committed(f"kernels/{name}.cl").decode()) == value, name
    # an editor's habits do not make a skeleton look edited
    text = skeleton_text()
    assert magic.is_skeleton("float_copy", text.replace("\n", "\r\n") + "\n\n")
    assert not magic.is_skeleton("float_copy", text + "// one line of the learner's\n")


def test_the_reference_verdict_is_labelled_as_the_reference_devices():
    text = bench.reference_verdict("spill_fix")
    first, *rest = text.splitlines()
    assert first.startswith("┌ Reference, not your kernel: the course's solutions/spill_fix.cl")
    assert "NVIDIA H100" in first and all(line.startswith(("│", "└")) for line in rest)
    assert "Yours" not in text


def test_a_file_edited_during_its_check_is_not_recorded_as_passed(tmp_path, monkeypatch,
                                                                  oclgrind_present):
    """One read of the submission: the check judges, counts and records the text it read first.
    Here the file becomes a kernel with the technique missing while the check runs (after its
    device pass): the verdict, the warp model's count and the record are the first text's, and
    the file as it is now has not passed."""
    from helpers import cache
    from helpers.checking import passes
    from helpers.exercises.passed import has_passed, text_digest
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "cache"))
    kernel = tmp_path / "leaky_relu.cl"
    first = (SOLUTIONS / "leaky_relu.cl").read_text()
    kernel.write_text(first)
    edited = (TESTS / "wrong" / "leaky_relu" / "ternary.cl").read_text()
    real = passes.run_pass

    def edit_after_first(*args, **kwargs):
        result = real(*args, **kwargs)
        kernel.write_text(edited)          # the learner saves in the editor meanwhile
        return result
    monkeypatch.setattr("helpers.checking.checker.run_pass", edit_after_first)
    monkeypatch.setattr("helpers.checking.counters.run_pass", edit_after_first)
    report = run_check("leaky_relu", kernel=kernel)
    assert report.passed, report.message
    assert kernel.read_text() == edited
    assert not has_passed("leaky_relu", kernel)
    assert cache.read("passed-checks")["leaky_relu"] == [text_digest(first)]


_OPENED: list[str] = []
_WATCHED: list[str] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _WATCHED and args and str(args[0]) in _WATCHED:
        _OPENED.append(str(args[0]))


def test_a_check_reads_its_kernel_file_once(tmp_path, oclgrind_present):
    """Issue 57 point 1: the kernel is read once, when the check starts (its Submission); every
    pass, the warp model's counts, the verdict and the record of passed checks take that text,
    and nothing opens the file again (it may change meanwhile)."""
    import sys

    from helpers.kernels import solution_file
    kernel = tmp_path / "transpose.cl"          # a technique exercise: the warp model counts it
    kernel.write_text(solution_file("transpose").read_text())
    if _audit not in getattr(sys, "_course_audits", []):
        sys.addaudithook(_audit)
        sys._course_audits = [*getattr(sys, "_course_audits", []), _audit]
    _OPENED.clear()
    _WATCHED[:] = [str(kernel)]
    try:
        report = run_check("transpose", kernel=kernel)
    finally:
        _WATCHED.clear()
    assert report.passed, report.message
    assert _OPENED == [str(kernel)], _OPENED
