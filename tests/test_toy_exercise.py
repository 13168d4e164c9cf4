"""An exercise is one module: a toy exercise, ``toy_scale`` (``dst[i] = 2 * src[i]``), added to a
temporary copy of the course, is picked up by every part of the course that lists or checks
exercises, with nothing else changed.

What its author writes (what adding an exercise takes):

- ``helpers/exercises/toy_scale.py``: its module, the record (args, cases, reference, hints,
  contract);
- ``kernels/toy_scale.cl``: the skeleton, which compiles and fails;
- ``solutions/toy_scale.cl``: the solution;
- ``notebooks/00-host-and-device.ipynb``: two cells at its end, a markdown cell that introduces it
  and ``check("toy_scale")``.

Then ``python tools/sync_exercise_cells.py`` makes the rest from the record: the hints into the
markdown cell, the ``%%kernel toy_scale`` cell over the skeleton, the skeleton's digest
(``helpers/data/skeletons.json``), its row of the contract table (``docs/design.md``) and its name
in the README's course map; nothing else changes, and ``--check`` then agrees.

Then, in the copy: ``python -m helpers exercises`` lists it; ``python -m helpers check toy_scale
--solutions`` exits 0 and the skeleton's check 1; the grader passes a learner who handed in the
solution; the hub's list of exercises holds it; and the test suite's tests of an exercise
(``tests/test_exercises.py -k toy_scale``) and of the tables, the course map, the notebook named
in a module's text and the skeletons' digests collect it and pass.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

NAME = "toy_scale"
NOTEBOOK = "00-host-and-device"

MODULE = '''"""toy_scale (a test's toy exercise): double a list of floats."""

from __future__ import annotations

import numpy as np

from .model import (
    Buffer,
    Compare,
    Exercise,
    Scalar,
    Teaching,
    one_d_cases,
    random_floats,
    register,
)

register(Exercise(
    name="toy_scale",
    args=(
        Buffer("src", np.float32, "in", lambda c: c["n"]),
        Buffer("dst", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (777, 128), (5, 1)]),
    make_inputs=lambda case, rng: {"src": random_floats(rng, case["n"])},
    reference=lambda case, inputs: {"dst": 2 * inputs["src"]},
    contract="`dst[i] = 2 * src[i]` for `i < n`; global size may exceed n",
    teaching=Teaching(
        title="Double a list of floats",
        notebook="00-host-and-device",
        hints=("One work-item per element: the index `i` is `get_global_id(0)`.",
               "The global size is rounded up past `n`: store only when `i < n`."),
    ),
    compare=Compare(rtol=0.0, atol=0.0),
))
'''

SKELETON = """// toy_scale: dst[i] = 2 * src[i] for i < n. Compiles, and writes nothing yet.
__kernel void toy_scale(__global const float *src, __global float *dst, const uint n)
{
}
"""

SOLUTION = """// Solution of toy_scale.
__kernel void toy_scale(__global const float *src, __global float *dst, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        dst[i] = 2.0f * src[i];
}
"""

# The author's two new cells at the notebook's end: a markdown cell and the check (the sync tool
# turns the check into the %%kernel cell and puts the hints into the markdown cell).
CELLS = f"""
import json
path = "notebooks/{NOTEBOOK}.ipynb"
nb = json.load(open(path, encoding="utf-8"))
nb["cells"] += [
    {{"cell_type": "markdown", "id": "toy-scale-hints", "metadata": {{}},
      "source": "### A toy exercise\\n\\nDouble every float of a list."}},
    {{"cell_type": "code", "id": "toy-scale-kernel", "metadata": {{}}, "execution_count": None,
      "outputs": [], "source": 'check("{NAME}")'}},
]
with open(path, "w", encoding="utf-8") as f:
    json.dump(nb, f, indent=1, ensure_ascii=False)
    f.write("\\n")
"""
# what the sync tool makes from the record, beside the notebook's two cells
GENERATED = {"README.md", "docs/design.md", "helpers/data/skeletons.json"}


def recipe() -> list[str]:
    """docs/design.md's steps of adding an exercise (section 4), one string each: this test does
    what they say, and fails where they and the course part ways (issue 57 point 6)."""
    import re
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    start = text.index("### Adding an exercise, step by step")
    body = text[start:text.index("\n\n", text.index("\n7. ", start))]
    return [" ".join(m.split()) for m in re.split(r"\n(?=\d\. )", body)[1:]]


def named(step: str) -> list[str]:
    """What a step puts in backticks, NAME made the toy's."""
    import re
    return [x.replace("NAME", NAME) for x in re.findall(r"`([^`]+)`", step)]


STEPS = recipe()
NEW_FILES = {x for step in STEPS[:3] for x in named(step)[:1]}
SYNC = next(x for x in named(STEPS[4]) if x.startswith("python tools/")).split()[1:]


def course_files() -> list[str]:
    """The course's files as git sees them (tracked, and new ones it does not ignore), that exist."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             cwd=ROOT, capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("not a git checkout: the course's files cannot be told from a learner's")
    return [p for p in out.decode().split("\0") if p and (ROOT / p).is_file()]


def run(copy: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """This venv's python, in the copy, importing helpers from the copy."""
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run([sys.executable, *args], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A copy of the course with the toy exercise added."""
    copy = tmp_path_factory.mktemp("toy") / "course"
    files = course_files()
    for rel in files:
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, copy / rel)
    before = {p: (copy / p).read_bytes() for p in files}
    (copy / "helpers" / "exercises" / f"{NAME}.py").write_text(MODULE)
    (copy / "kernels" / f"{NAME}.cl").write_text(SKELETON)
    (copy / "solutions" / f"{NAME}.cl").write_text(SOLUTION)
    made = run(copy, "-c", CELLS)
    assert made.returncode == 0, made.stderr
    synced = run(copy, *SYNC)
    assert synced.returncode == 0, synced.stdout + synced.stderr
    # what the toy touched: its three files and one notebook, and what the tool made from them
    now = {str(p.relative_to(copy)) for p in copy.rglob("*")
           if p.is_file() and "__pycache__" not in p.parts}
    changed = {p for p in before if (copy / p).read_bytes() != before[p]}
    assert now - set(before) == NEW_FILES
    assert changed == {f"notebooks/{NOTEBOOK}.ipynb", *GENERATED}, synced.stdout
    agreed = run(copy, *SYNC, "--check")
    assert agreed.returncode == 0, agreed.stdout + agreed.stderr
    return copy


@pytest.mark.once
def test_the_recipe_in_design_md_is_every_step_this_test_takes():
    assert len(STEPS) == 7 and all(s[0] == str(k + 1) for k, s in enumerate(STEPS)), STEPS
    assert NEW_FILES == {f"helpers/exercises/{NAME}.py", f"kernels/{NAME}.cl",
                         f"solutions/{NAME}.cl"}                  # what the fixture writes
    assert "notebooks/NN-*.ipynb" in STEPS[3] and f'check("{NAME}")' in named(STEPS[3])
    assert SYNC == ["tools/sync_exercise_cells.py"]               # what the fixture runs
    assert GENERATED <= set(named(STEPS[4]))                      # all the tool changed
    assert "git add" in STEPS[5] and "tests/shipped.py" in STEPS[5]
    tests = named(STEPS[6])[0].split()
    assert tests[:3] == ["python", "-m", "pytest"] and set(tests[3:-2]) == {
        "tests/test_exercises.py", "tests/test_lesson_shape.py", "tests/test_learner_path.py"}


@pytest.mark.once
def test_the_sync_tool_made_the_toys_cells_row_and_digest(course):
    book = json.loads((course / "notebooks" / f"{NOTEBOOK}.ipynb").read_text())
    hints, kernel = ("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                     for c in book["cells"][-2:])
    assert hints.startswith("### A toy exercise") and "One work-item per element" in hints
    assert kernel.startswith(f"%%kernel {NAME}") and SKELETON.strip() in kernel
    assert NAME in json.loads((course / "helpers/data/skeletons.json").read_text())
    row = next(line for line in (course / "README.md").read_text().splitlines()
               if line.startswith(f"| `{NOTEBOOK}` |"))
    assert row.endswith(f"`float_copy`, `{NAME}` |"), row
    assert f"`{NAME}`" in (course / "docs" / "design.md").read_text()


@pytest.mark.once
def test_the_course_lists_and_checks_the_toy(course):
    listed = run(course, "-c", "import helpers; print(helpers.__file__)")
    assert listed.stdout.strip() == str(course / "helpers" / "__init__.py"), "not the copy's helpers"
    exercises = run(course, "-m", "helpers", "exercises")
    assert exercises.returncode == 0, exercises.stderr
    assert any(line.split()[:1] == [NAME] for line in exercises.stdout.splitlines()), exercises.stdout
    passed = run(course, "-m", "helpers", "check", NAME, "--solutions")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    failed = run(course, "-m", "helpers", "check", NAME, "--kernel", f"kernels/{NAME}.cl")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Traceback" not in failed.stdout + failed.stderr
    hub = run(course, "-c", "from helpers.hub.service import course_exercises; "
                            "print(course_exercises())")
    assert hub.returncode == 0 and f"'{NAME}'" in hub.stdout, hub.stdout + hub.stderr


@pytest.mark.once
def test_the_grader_grades_the_toy(course, tmp_path):
    from helpers.checking.sandbox import why_not

    (tmp_path / "class" / "ann" / "kernels").mkdir(parents=True)
    shutil.copyfile(course / "solutions" / f"{NAME}.cl",
                    tmp_path / "class" / "ann" / "kernels" / f"{NAME}.cl")
    apart = [] if why_not() is None else ["--no-sandbox"]
    graded = run(course, "-m", "helpers", "grade", str(tmp_path / "class"), "--only", NAME,
                 "--out", str(tmp_path / "grades"), "--jobs", "1", *apart)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    with open(tmp_path / "grades" / "grades.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0][:2] == ["learner", NAME] and rows[1][:2] == ["ann", "passed"], rows
    details = json.loads((tmp_path / "grades" / "details.json").read_text())
    assert [g["status"] for g in details["grades"]] == ["passed"]


@pytest.mark.once
def test_the_exercise_tests_collect_and_pass_the_toy(course):
    tests = run(course, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                "tests/test_exercises.py", "tests/test_lesson_shape.py",
                "tests/test_learner_path.py", "-k", f"{NAME} or contract_tables or course_map or "
                "names_its_own_notebook or skeleton_digests", "-rA", timeout=300)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    summary = tests.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "skipped" not in summary, summary
    ran = tests.stdout
    for test in ("test_solution_passes[toy_scale]", "test_the_contract_tables_are_made_from",
                 "test_the_readmes_course_map", "test_skeleton_digests_are_those"):
        assert any(line.startswith("PASSED ") and test in line for line in ran.splitlines()), test
