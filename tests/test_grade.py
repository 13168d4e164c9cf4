"""The grader on a made-up class: learners built from the solutions and the wrong kernels under
tests/wrong/ (one crashing, one hanging, one printing without end, one missing a file); every cell
of grades.csv is checked, and so are the sentences for submissions that cannot be graded."""

from __future__ import annotations

import csv
import json
import shutil
import tarfile
import zipfile

import pytest

from helpers.checking.grading import GradeUsageError, grade, summary
from helpers.kernels import SOLUTIONS

from .conftest import TESTS

# the grader's intake, running and report; the verdicts on each device are tested elsewhere
pytestmark = pytest.mark.once

WRONG = TESTS / "wrong"
ONLY = ["float_copy", "sum_ints"]
CLASS = {  # learner -> exercise -> kernel file (None: not handed in), and the expected cell
    "alice": {"float_copy": (SOLUTIONS / "float_copy.cl", "passed"),
              "sum_ints": (SOLUTIONS / "sum_ints.cl", "passed")},
    "bob": {"float_copy": (WRONG / "float_copy" / "local_id.cl", "failed"),
            "sum_ints": (None, "missing")},
    # a write far outside dst: Oclgrind sees it, so "failed" whether or not the device then
    # crashed (which rests on the heap's layout: a grade must not)
    "carol": {"float_copy": (WRONG / "float_copy" / "crash.cl", "failed"),
              "sum_ints": (WRONG / "sum_ints" / "local_id.cl", "failed")},
    "dave": {"float_copy": (WRONG / "float_copy" / "endless.cl", "timed out"),
             "sum_ints": (SOLUTIONS / "sum_ints.cl", "passed")},
    "erin": {"float_copy": (WRONG / "float_copy" / "printf_flood.cl", "failed"),   # endless output
             "sum_ints": (SOLUTIONS / "sum_ints.cl", "passed")},
}


def make_class(root):
    for learner, files in CLASS.items():
        (root / learner / "kernels").mkdir(parents=True)
        for name, (src, _) in files.items():
            if src is not None:
                shutil.copyfile(src, root / learner / "kernels" / f"{name}.cl")
    return root


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = make_class(tmp_path_factory.mktemp("class"))
    before = sorted((p.relative_to(root), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    out = tmp_path_factory.mktemp("grades")
    grades = grade(root, out, jobs=2, only=ONLY, run_timeout=5, progress=False)
    after = sorted((p.relative_to(root), p.read_bytes()) for p in root.rglob("*") if p.is_file())
    return root, out, grades, before == after


def test_every_cell_of_the_csv(graded, oclgrind_present):
    _, out, _, _ = graded
    with open(out / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["learner", *ONLY, "passed", "of"]
    want = [[lr, *(CLASS[lr][n][1] for n in ONLY),
             str(sum(CLASS[lr][n][1] == "passed" for n in ONLY)), str(len(ONLY))]
            for lr in sorted(CLASS)]
    assert rows[1:] == want


def test_diagnoses_are_the_checks_own_and_the_submissions_were_not_touched(graded):
    root, out, grades, untouched = graded
    assert untouched
    details = json.loads((out / "details.json").read_text())
    by = {(g["learner"], g["exercise"]): g for g in details["grades"]}
    assert "only the first 32 elements were written" in by["bob", "float_copy"]["message"]
    assert by["bob", "float_copy"]["mistake"].startswith("only the first 32 elements")
    assert by["alice", "float_copy"]["message"].startswith("✔ float_copy passed")
    assert by["bob", "sum_ints"]["message"] == "kernels/sum_ints.cl was not handed in"
    report = (out / "report.html").read_text()
    assert report.count("<details>") == len(CLASS) * len(ONLY)
    assert "1 / 5" in report  # float_copy: one learner of five passed
    text = summary(grades, sorted(CLASS), ONLY)
    assert "float_copy: 1/5 passed; most common mistake: only the first 32 elements" in text
    assert "printed more than 1 MiB" in by["erin", "float_copy"]["message"]


def test_an_archive_of_the_class_grades_the_same(graded, tmp_path):
    root, out, _, _ = graded
    archive = tmp_path / "class.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        t.add(root / "alice", arcname="class/alice")
    again = grade(archive, tmp_path / "out", only=ONLY, progress=False)
    assert [(g.learner, g.exercise, g.status) for g in again] == \
        [("alice", "float_copy", "passed"), ("alice", "sum_ints", "passed")]


@pytest.mark.parametrize("layout, sentence", [
    ("empty", "holds no learner folders"),
    ("escape", "holds a path that leaves its folder"),
    ("bad_zip", "could not be read as an archive"),
])
def test_submissions_that_cannot_be_graded_get_a_sentence(tmp_path, layout, sentence):
    sub = tmp_path / "sub"
    sub.mkdir()
    if layout == "escape":
        sub = tmp_path / "class.zip"
        with zipfile.ZipFile(sub, "w") as z:
            z.writestr("../evil/kernels/float_copy.cl", "x")
    elif layout == "bad_zip":
        sub = tmp_path / "class.zip"
        sub.write_bytes(b"not a zip")
    with pytest.raises(GradeUsageError, match=sentence):
        grade(sub, tmp_path / "out", only=ONLY, progress=False)
    assert not (tmp_path / "evil").exists()


def test_one_learners_bad_folder_or_file_is_refused_for_that_learner_alone(tmp_path):
    """A folder without kernels/, one whose kernels/ is a link, a learner's folder that is a link,
    a name that differs from another's only in case, a kernel past its size in the class's
    archive: each refused for its learner alone, with why in the report; the others graded."""
    sub = tmp_path / "class"
    for name in ("ann", "Ann", "ben", "cat", "dan"):
        (sub / name).mkdir(parents=True)
    for name in ("ann", "Ann", "dan"):
        (sub / name / "kernels").mkdir()
        (sub / name / "kernels" / "float_copy.cl").write_text((SOLUTIONS / "float_copy.cl").read_text())
    (sub / "cat" / "kernels").symlink_to(sub / "ann" / "kernels")
    (sub / "eve").symlink_to(sub / "ann")
    (sub / "dan" / "kernels" / "sum_ints.cl").write_text("// " + "x" * (2 << 20))   # past 1 MiB
    archive = tmp_path / "class.tar"
    with tarfile.open(archive, "w") as t:
        t.add(sub, arcname="class")
    by_folder = {(g.learner, g.exercise): g for g in grade(sub, tmp_path / "out1", only=ONLY,
                                                             progress=False)}
    by_archive = {(g.learner, g.exercise): g for g in grade(archive, tmp_path / "out2", only=ONLY,
                                                              progress=False)}
    reasons = {"ann": "differs from 'Ann''s only in case", "ben": "has no kernels/ folder",
               "cat": "kernels/ folder is a link", "eve": "folder is a link"}
    for learner, why in reasons.items():
        for name in ONLY:
            g = by_folder[learner, name]
            assert g.status == "missing" and why in g.message, (learner, g.message)
    assert by_folder["Ann", "float_copy"].status == "passed"     # the first of the two names
    assert by_folder["dan", "float_copy"].status == "passed"
    assert by_folder["dan", "sum_ints"].status == "failed" and "not graded" in \
        by_folder["dan", "sum_ints"].message
    # in the archive the big kernel is never unpacked: refused, for dan alone (tar keeps no links
    # to folders here as links: tarfile.add stores them as links, refused when unpacked)
    assert by_archive["Ann", "float_copy"].status == "passed"
    assert by_archive["dan", "float_copy"].status == "passed"
    assert by_archive["dan", "sum_ints"].status == "missing" and \
        "larger than the 1 MiB" in by_archive["dan", "sum_ints"].message
    rows = list(csv.reader((tmp_path / "out1" / "grades.csv").open()))
    assert sorted(r[0] for r in rows[1:]) == sorted(["Ann", "ann", "ben", "cat", "dan", "eve"])


def test_the_command_line_exits_2_with_the_sentence(tmp_path, capsys):
    from helpers.__main__ import main
    (tmp_path / "class").mkdir()
    assert main(["grade", str(tmp_path / "class"), "--out", str(tmp_path / "g")]) == 2
    assert "holds no learner folders" in capsys.readouterr().err
    # the grader never writes inside the submissions
    assert main(["grade", str(tmp_path), "--out", str(tmp_path / "g")]) == 2
    assert "is inside the submissions" in capsys.readouterr().err


def test_notebooks_run_with_the_learners_kernels_and_name_the_first_failing_cell(tmp_path):
    """Notebook 00 for two learners: one whose float_copy is right, one whose float_copy writes
    one element per work-group; the solutions are off, so the check cell fails for the second."""
    from helpers.kernels import ROOT
    sub = tmp_path / "class"
    for learner, kernel in (("ann", SOLUTIONS / "float_copy.cl"),
                            ("ben", WRONG / "float_copy" / "group_id.cl")):
        (sub / learner / "kernels").mkdir(parents=True)
        (sub / learner / "notebooks").mkdir()
        shutil.copyfile(kernel, sub / learner / "kernels" / "float_copy.cl")
        shutil.copyfile(ROOT / "notebooks" / "00-host-and-device.ipynb",
                        sub / learner / "notebooks" / "00-host-and-device.ipynb")
    # run by root, each learner's notebooks as a user of their own (the sandbox puts a Python from
    # under /root back for that user); --notebooks-as-root is test_hostile.py's grade_ann
    grades = grade(sub, tmp_path / "out", only=["float_copy"], notebooks=True, progress=False)
    by = {(g.learner, g.exercise): g for g in grades}
    assert by["ann", "float_copy"].status == "passed"
    assert by["ben", "float_copy"].status == "failed"
    assert by["ann", "notebook 00-host-and-device"].status == "passed", \
        by["ann", "notebook 00-host-and-device"].message
    ben = by["ben", "notebook 00-host-and-device"]
    assert ben.status == "failed" and "first failing cell: Cell" in ben.message
    assert "one per work-group" in ben.message
    # the error before the cell's text (a long cell would push it past what is kept), no colours
    error, report = ben.message.split("Notebook cell execution failed", 1)
    assert "KernelCheckFailed" in error and "one per work-group" in error, ben.message
    assert "\x1b" not in ben.message and "#x1B" not in ben.message
    # every other notebook was not handed in
    assert by["ann", "notebook 01-parallel-execution"].status == "missing"


def test_a_graded_notebook_gets_none_of_the_graders_variables_and_its_math_on_one_thread(
        monkeypatch):
    """A notebook's environment: none of the instructor's variables, and numpy's BLAS on one
    thread (a thread per core of a large server would count against the sandbox's bound on
    processes, as the check's workers' do not)."""
    from helpers import workers
    from helpers.checking.grading.notebooks import notebook_environment
    monkeypatch.setenv("INSTRUCTORS_TOKEN", "not for learners")
    env = notebook_environment({"HOME": "/tmp/course"})
    assert "INSTRUCTORS_TOKEN" not in env and env["HOME"] == "/tmp/course"
    assert workers.CHILD_VARIABLE not in env
    assert all(env[k] == "1" for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                       "MKL_NUM_THREADS"))


def test_a_not_judged_grade_has_a_status_of_its_own_in_every_report():
    """A right kernel whose technique could not be judged (no warp model) is "not judged": the
    csv, the HTML report and the terminal's table show it as such, and it never counts as
    passed (issue 53 point 1)."""
    from helpers.checking.grading.report import STATUSES, Grade, per_exercise, report_html, summary
    assert "not judged" in STATUSES
    grades = [Grade("ann", "transpose", "not judged", "transpose not judged (...)", 1,
                    "technique not judged"), Grade("bob", "transpose", "passed", "✔", 2)]
    html = report_html(grades, ["ann", "bob"], ["transpose"])
    assert "not judged" in html
    text = summary(grades, ["ann", "bob"], ["transpose"])
    assert " J " in text + " " and "1/1 passed" not in text and "1/2 passed" in text
    assert per_exercise(grades, ["transpose"])["transpose"]["passed"] == 1


def test_a_class_graded_where_the_warp_model_cannot_run_gets_not_judged(tmp_path, monkeypatch):
    """End to end: with no compiler for the warp model's plugin, a right technique kernel is
    graded "not judged" (its row says why), and every output is written."""
    from helpers.warp import build
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "compilers", lambda: [])
    folder = tmp_path / "class" / "ann" / "kernels"
    folder.mkdir(parents=True)
    (folder / "leaky_relu.cl").write_bytes((SOLUTIONS / "leaky_relu.cl").read_bytes())
    grades = grade(tmp_path / "class", tmp_path / "out", only=["leaky_relu"], progress=False)
    assert [g.status for g in grades] == ["not judged"], grades[0].message
    assert grades[0].message.startswith("leaky_relu not judged (")
    assert (tmp_path / "out" / "report.html").is_file() and (tmp_path / "out" / "grades.csv")\
        .read_text().splitlines()[1].startswith("ann,not judged")


def test_a_learner_whose_grading_raises_gets_a_row_and_the_class_is_graded(tmp_path, monkeypatch):
    """Issue 55 point 1: an exception anywhere in grading one learner's kernel (there, removing a
    tree of 3,000 folders raised RecursionError and the grader exited with no output) is that
    learner's row, with the reason; every other learner is graded and every file is written."""
    from helpers.checking.grading import running
    real = running.grade_one

    def grade_one(learner, *args, **kwargs):
        if learner == "mallory":
            raise RecursionError("maximum recursion depth exceeded")
        return real(learner, *args, **kwargs)
    monkeypatch.setattr(running, "grade_one", grade_one)
    sub = tmp_path / "class"
    for learner in ("mallory", "nina"):
        (sub / learner / "kernels").mkdir(parents=True)
        shutil.copyfile(SOLUTIONS / "float_copy.cl", sub / learner / "kernels" / "float_copy.cl")
    out = tmp_path / "out"
    grades = {(g.learner, g.exercise): g for g in grade(sub, out, jobs=2, only=["float_copy"],
                                                          progress=False)}
    assert grades["nina", "float_copy"].status == "passed"
    crashed = grades["mallory", "float_copy"]
    assert crashed.status == "crashed" and "RecursionError" in crashed.message, crashed.message
    assert {p.name for p in out.iterdir()} >= {"grades.csv", "details.json", "report.html"}


def _hanging_class(root):
    for learner, kernel in (("hal", WRONG / "float_copy" / "endless.cl"),
                            ("ivy", SOLUTIONS / "float_copy.cl")):
        (root / learner / "kernels").mkdir(parents=True)
        shutil.copyfile(kernel, root / learner / "kernels" / "float_copy.cl")
    return root


def test_a_grade_stops_at_its_overall_cap_and_writes_what_it_graded(tmp_path):
    """Issue 55 point 2: every grade has an overall cap that nothing a learner's code does can
    extend; past it, what is left is "timed out", with why, and every file is written."""
    import time
    sub = _hanging_class(tmp_path / "class")
    out = tmp_path / "out"
    began = time.monotonic()
    grades = {(g.learner, g.exercise): g for g in grade(sub, out, jobs=2, only=["float_copy"],
                                                          run_timeout=600, total_timeout=20,
                                                          progress=False, sandbox=False)}
    assert time.monotonic() - began < 120     # not the hanging kernel's 600 s
    assert grades["ivy", "float_copy"].status == "passed"
    late = grades["hal", "float_copy"]
    assert late.status == "timed out" and "overall cap of 20 s" in late.message, late.message
    assert {p.name for p in out.iterdir()} >= {"grades.csv", "details.json", "report.html"}
