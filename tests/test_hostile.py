"""A learner's files as an attacker would write them: the check and the grader build a kernel from
its own text alone, read nothing outside a submission, bound what learner code may take, and write
outputs that are safe to open."""

from __future__ import annotations

import csv
import io
import json
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from helpers import workers
from helpers.checking import run_check
from helpers.checking.grading import GradeUsageError, grade, shown_name, summary
from helpers.checking.learner import assembly_in, include_in
from helpers.paths import ROOT

SOLUTION = (ROOT / "solutions" / "float_copy.cl").read_text()


# -- a kernel is only its own text -----------------------------------------------------------------

@pytest.mark.once
@pytest.mark.parametrize("source, line", [
    ('#include "solutions/float_copy.cl"\n', 1),
    ("kernel void f() {}\n  #  include </etc/hostname>\n", 2),
    ('#\\\ninclude "../../etc/passwd"\n', 1),                 # a spliced line
    ('x\n%:include "a.cl"\n', 2),                            # the digraph of #
    ('x\n??=include "a.cl"\n', 2),                           # the trigraph
    ('#inc??/\nlude "a.cl"\n', 1),                           # spliced by the trigraph of \\
    ('#inc\\  \nlude "a.cl"\n', 1),                          # blanks between \\ and the newline
    ('#/* a comment */include "a.cl"\n', 1),
    ('printf("/*");\n#include "a.cl"\n/* */\n', 2),          # a comment opener in a string
    ('#define F "a.cl"\n#include F\n', 2),
    ('#if __has_include("/etc/shadow")\n#endif\n', 1),       # a file's existence is read too
    ('#include_next "a.cl"\n', 1),
    ('/* #include "a.cl" */\n// #include "b.cl"\nkernel void include() {}\n', None),
    ('// a comment that goes on \\\n#include "a.cl"\n', None),   # spliced into the comment
    ('constant char s[] = "#include";\n', None),
])
def test_every_spelling_of_an_include_is_found(source, line):
    found = include_in(source)
    assert (found[0] if found else None) == line


@pytest.mark.once
@pytest.mark.parametrize("source, line", [
    ('kernel void f()\n{\n    __asm__ volatile("syscall");\n}\n', 3),
    ('x;\n__as??/\nm__ volatile("syscall");\n', 2),             # the trigraph of \\ splices
    ('x;\n__as\\ \t\nm__ volatile("syscall");\n', 2),         # blanks before the newline
    ('??=define G(a, b) a??=??=b\n', 1),                        # pasting spelt in trigraphs
    ('x;\nx = a ??! b; /* asm */ y = "asm";\n', None),        # a trigraph, a comment, a string
])
def test_every_spelling_of_inline_assembly_is_found(source, line):
    found = assembly_in(source)
    assert (found[0] if found else None) == line


@pytest.mark.parametrize("text", [
    '#include "solutions/float_copy.cl"\n',
    f'#include "{ROOT}/solutions/float_copy.cl"\n',
    '#include "../solutions/float_copy.cl"\n',
])
def test_a_kernel_that_includes_the_solution_fails_in_the_check_and_the_grader(tmp_path, text):
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(text)
    report = run_check("float_copy", kernel)
    assert not report.passed
    assert "self-contained" in report.message and "#include" in report.message
    learner = tmp_path / "class" / "ann" / "kernels"
    learner.mkdir(parents=True)
    (learner / "float_copy.cl").write_text(text)
    [g] = grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], progress=False)
    assert g.status == "failed" and "self-contained" in g.message


def test_the_solution_still_passes_from_an_empty_working_folder(tmp_path):
    """The check's worker starts in an empty folder of its own, not in the course's root."""
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(SOLUTION)
    assert run_check("float_copy", kernel).passed


@pytest.mark.once
@pytest.mark.parametrize("data, sentence", [
    (b"kernel void float_copy(\xff)", "is not UTF-8 text (byte 0xff on line 1)"),
    (b"\x7fELF\x00\x01\x02", "not a text file"),
])
def test_a_binary_or_foreign_kernel_gets_a_sentence_about_its_encoding(tmp_path, data, sentence):
    kernel = tmp_path / "float_copy.cl"
    kernel.write_bytes(data)
    report = run_check("float_copy", kernel)
    assert not report.passed and sentence in report.message
    assert "checker itself failed" not in report.message


# -- bounds -----------------------------------------------------------------------------------------

def _macro_bomb() -> str:
    """About 500 bytes that expand to 10^8 tokens at compile time."""
    lines = ["#define A0 (1.0f+1.0f+1.0f+1.0f+1.0f+1.0f+1.0f+1.0f+1.0f+1.0f)"]
    lines += [f"#define A{k} ({'+'.join([f'A{k - 1}'] * 10)})" for k in range(1, 8)]
    lines += ["kernel void float_copy(global const float *src, global float *dst, int n) {",
              "    int i = get_global_id(0);",
              "    if (i < n) dst[i] = src[i] + 0.0f * A7;",
              "}"]
    return "\n".join(lines) + "\n"


def test_a_compile_that_hits_the_memory_bound_is_told_so(tmp_path, monkeypatch):
    monkeypatch.setenv(workers.MEMORY_VARIABLE, "512")   # reached in seconds, not half a minute
    monkeypatch.setenv(workers.WORKERS_VARIABLE, "0")    # fresh workers, with that bound
    kernel = tmp_path / "float_copy.cl"
    kernel.write_text(_macro_bomb())
    report = run_check("float_copy", kernel)
    assert not report.passed
    assert "the compiler ran out of memory building your kernel" in report.message, report.message
    assert "outside a buffer" not in report.message


@pytest.mark.once
def test_a_child_gets_none_of_the_callers_variables_and_an_empty_folder(monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_API_TOKEN", "secret")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret")
    out = {}
    workers.run_once(workers.Key("tests.worker_task"), {"do": "environ"}, timeout=60,
                   on_event=lambda ev: out.update(ev) if ev.get("event") == "environ" else None)
    assert out["names"] and "INSTRUCTOR_API_TOKEN" not in out["names"]
    assert "AWS_SECRET_ACCESS_KEY" not in out["names"] and "PATH" in out["names"]
    assert Path(out["cwd"]) != ROOT and not (Path(out["cwd"]) / "solutions").exists()


# -- the grader reads nothing outside a submission ----------------------------------------------------

@pytest.mark.once
def test_a_symlinked_kernel_is_not_followed_into_the_report(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:SECRET-HASH-LINE:19000:0:99999:7:::\n")
    kernels = tmp_path / "class" / "bob" / "kernels"
    kernels.mkdir(parents=True)
    (kernels / "float_copy.cl").symlink_to(secret)
    (tmp_path / "class" / "eve").symlink_to(tmp_path)        # a learner folder that is a link
    g, e = grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], progress=False)
    assert g.learner == "bob" and g.status == "failed" and "symbolic link" in g.message
    assert e.learner == "eve" and e.status == "missing" and "folder is a link" in e.message
    for f in (tmp_path / "out").iterdir():
        assert "SECRET-HASH-LINE" not in f.read_text(), f.name


@pytest.mark.once
def test_a_zip_bomb_is_refused_before_anything_is_unpacked(tmp_path):
    archive = tmp_path / "class.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("ann/kernels/float_copy.cl", SOLUTION)
        with z.open("ann/data/zeros.bin", "w") as f:       # 300 MB of zeros in a file never used
            chunk = bytes(1 << 20)
            for _ in range(300):
                f.write(chunk)
    assert archive.stat().st_size < 2 << 20
    with pytest.raises(GradeUsageError, match="would expand to 315 MB, more than the 50 MB"):
        grade(archive, tmp_path / "out", only=["float_copy"], progress=False)
    assert not (tmp_path / "out").exists()


@pytest.mark.once
def test_only_kernels_and_notebooks_are_unpacked_and_the_cap_can_be_raised(tmp_path, monkeypatch):
    archive = tmp_path / "class.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        for name, data in (("ann/kernels/float_copy.cl", SOLUTION.encode()),
                           ("ann/notes/big.txt", b"x" * (3 << 20))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    written = []
    real = Path.write_bytes
    monkeypatch.setattr(Path, "write_bytes", lambda self, data: (written.append(self.name),
                                                                 real(self, data))[1])
    with pytest.raises(GradeUsageError, match="more than the 2 MB allowed"):
        grade(archive, tmp_path / "out", only=["float_copy"], progress=False, max_archive_mb=2)
    assert written == []
    grades = grade(archive, tmp_path / "out", only=["float_copy"], progress=False, max_archive_mb=5)
    assert [g.status for g in grades] == ["passed"] and "big.txt" not in written


# -- outputs safe to open ------------------------------------------------------------------------------

@pytest.mark.once
def test_names_reach_the_csv_and_the_terminal_defused(tmp_path):
    sub = tmp_path / "class"
    for name in ("=HYPERLINK(\"x\")", "bob\x1b[31mred"):
        (sub / name / "kernels").mkdir(parents=True)
    grades = grade(sub, tmp_path / "out", only=["float_copy"], progress=False)
    rows = list(csv.reader((tmp_path / "out" / "grades.csv").open()))
    assert all(not row[0].startswith("=") for row in rows[1:])
    assert "'=HYPERLINK" in (tmp_path / "out" / "grades.csv").read_text()
    text = summary(grades, [g.learner for g in grades], ["float_copy"])
    assert "\x1b" not in text and shown_name("bob\x1b[31mred") in text


@pytest.mark.once
def test_names_equal_after_unicode_normalization_clash(tmp_path):
    for name in ("Jos\u00e9", "Jose\u0301"):        # é precomposed, and e + combining accent
        (tmp_path / "class" / name / "kernels").mkdir(parents=True)
    if len(os.listdir(tmp_path / "class")) < 2:
        pytest.skip("this file system normalizes names itself")
    grades = grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], progress=False)
    refused = [g for g in grades if "how its letters are encoded" in g.message]
    assert len(refused) == 1 and refused[0].status == "missing" and len(grades) == 2


@pytest.mark.once
def test_a_notebook_of_one_cell_does_not_count(tmp_path):
    from helpers.checking.grading.notebooks import grade_notebook
    nb = tmp_path / "notebooks" / "00-host-and-device.ipynb"
    nb.parent.mkdir()
    nb.write_text('{"cells": [{"cell_type": "code", "source": "1 + 1", "metadata": {}, '
                  '"outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, '
                  '"nbformat_minor": 5}')
    g = grade_notebook("ann", tmp_path, nb, 60)
    assert g.status == "failed" and "lacks the cells that check float_copy" in g.message


@pytest.mark.once
@pytest.mark.parametrize("cell, caught", [
    ("from helpers import check\ncheck('float_copy')", False),
    ("from helpers import check, show_ids\nimport numpy as np", False),
    ("%matplotlib inline\nfrom helpers import check", False),
    ("def check(name):\n    print('passed')", True),
    ("check = print", True),
    ("import helpers\nhelpers.check = lambda name: None", True),
    ("from helpers.plots import figure as check", True),
    ("from mine import check", True),
    ("for check in [print]:\n    pass", True),
    ("setattr(__builtins__, 'ch' + 'eck', print)", True),
])
def test_a_notebook_that_puts_its_own_check_in_place_of_the_courses_does_not_count(
        tmp_path, cell, caught):
    from helpers.checking.grading.intake import rebinds_check
    nb = tmp_path / "n.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": cell, "metadata": {},
                                         "outputs": [], "execution_count": None}],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert bool(rebinds_check(nb)) is caught


@pytest.mark.once
def test_no_course_notebook_puts_another_check_in_place():
    from helpers.checking.grading.intake import rebinds_check
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        assert rebinds_check(nb) == "", nb.name


def grade_ann(tmp_path, kernel: bytes, book: dict) -> dict:
    """Ann, the class's one learner, hands in ``kernel`` as float_copy and ``book`` as notebook 00;
    her grades by column, the notebooks run (as root, all the same)."""
    ann = tmp_path / "class" / "ann"
    (ann / "kernels").mkdir(parents=True)
    (ann / "notebooks").mkdir()
    (ann / "kernels" / "float_copy.cl").write_bytes(kernel)
    (ann / "notebooks" / "00-host-and-device.ipynb").write_text(json.dumps(book))
    grades = grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], notebooks=True,
                   progress=False, notebooks_as_root=True)
    return {g.exercise: g for g in grades}


@pytest.mark.once
def test_a_notebook_can_neither_reach_a_solution_nor_pass_by_rewriting_its_kernel(tmp_path):
    """Notebook 00 with one cell more, which asserts that its copy of the course holds no
    solutions and then writes a right kernel over the learner's wrong one before the check cell."""
    wrong = (ROOT / "tests" / "wrong" / "float_copy" / "group_id.cl").read_bytes()
    book = json.loads((ROOT / "notebooks" / "00-host-and-device.ipynb").read_text())
    first_code = next(i for i, c in enumerate(book["cells"]) if c["cell_type"] == "code")
    book["cells"].insert(first_code + 1, {
        "cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
        "source": "import helpers.kernels as k\n"
                  "assert not (k.ROOT / 'solutions').exists(), 'a solution is within reach'\n"
                  f"(k.ROOT / 'kernels' / 'float_copy.cl').write_text({SOLUTION!r})\n"})
    by = grade_ann(tmp_path, wrong, book)
    ann = tmp_path / "class" / "ann"
    assert by["float_copy"].status == "failed"
    nb = by["notebook 00-host-and-device"]
    assert nb.status == "failed", nb.message
    # in the sandbox the notebook wrote its own copy, never the kernel handed in, which the
    # grader's own check failed: the notebook cannot pass with it
    assert "the grader's own check of the kernel handed in did not pass for float_copy " \
        "(failed):" in nb.message, nb.message
    assert (ann / "kernels" / "float_copy.cl").read_bytes() == wrong


# -- root runs a learner's notebooks with no rights -----------------------------------------------

needs_root = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                                reason="only root can give a notebook another user id")


@pytest.mark.once
@needs_root
def test_root_gives_each_learners_notebooks_a_user_id_that_reaches_only_their_copy(tmp_path):
    import pwd
    import subprocess

    from helpers.checking.grading.notebooks import as_user, hand_over, notebook_users
    users = notebook_users(["ann", "ben"])
    assert len(set(users.values())) == 2
    known = {p.pw_uid for p in pwd.getpwall()}
    assert not set(users.values()) & known
    copies = {}
    for learner, uid in users.items():
        copy = tmp_path / "courses" / learner
        (copy / "notebooks").mkdir(parents=True)
        (copy / "notebooks" / "mine.txt").write_text(learner)
        hand_over(copy, uid, tmp_path)
        copies[learner] = copy
    assert copies["ann"].stat().st_uid == users["ann"] and copies["ann"].stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "courses").stat().st_mode & 0o777 == 0o711

    def as_ann(script: str) -> subprocess.CompletedProcess:
        return subprocess.run(["/bin/sh", "-c", script], cwd=copies["ann"], capture_output=True,
                              text=True, env={"PATH": "/usr/bin:/bin"}, **as_user(users["ann"]))

    me = as_ann("id -u; id -G")
    assert me.stdout.split() == [str(users["ann"])] * 2, me.stdout   # no other group
    assert as_ann("echo x >> notebooks/mine.txt").returncode == 0
    theirs = copies["ben"] / "notebooks" / "mine.txt"
    assert as_ann(f"echo x >> {theirs}").returncode != 0
    assert as_ann(f"ls {copies['ben']}").returncode != 0
    assert as_ann(f"ls {tmp_path / 'courses'}").returncode != 0
    assert theirs.read_text() == "ben"


@pytest.mark.once
@needs_root
def test_root_refuses_to_run_notebooks_as_root_when_no_other_user_can_run_its_python(
        tmp_path, monkeypatch):
    import sys
    hidden = tmp_path / "root-only"
    hidden.mkdir(mode=0o700)
    (hidden / "python").symlink_to(sys.executable)
    monkeypatch.setattr(sys, "executable", str(hidden / "python"))
    sub = tmp_path / "class" / "ann"
    (sub / "notebooks").mkdir(parents=True)
    (sub / "kernels").mkdir()
    (sub / "notebooks" / "00-host-and-device.ipynb").write_text("{}")
    with pytest.raises(GradeUsageError, match=r"cannot run this Python .*root-only/python") as e:
        grade(tmp_path / "class", tmp_path / "out", only=["float_copy"], notebooks=True,
              progress=False)
    assert "--notebooks-as-root" in str(e.value) and "Install the course where every user may " \
        "read it" in str(e.value)
    assert not (tmp_path / "out").exists()
