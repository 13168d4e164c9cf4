"""An exercise is one module: a toy exercise, ``toy_scale`` (``dst[i] = 2 * src[i]``), added to a
temporary copy of the course, is picked up by every part of the course that lists or checks
exercises, with nothing else changed.

The toy touches only these files of the copy (what adding an exercise takes):

- ``helpers/exercises/toy_scale.py``: its module, the record (args, cases, reference, hints,
  contract);
- ``kernels/toy_scale.cl``: the skeleton, which compiles and fails;
- ``solutions/toy_scale.cl``: the solution;
- ``notebooks/00-host-and-device.ipynb``: two cells at its end, the hint cell and the
  ``%%kernel toy_scale`` cell (the notebook cell tests/test_exercises.py asks of every exercise).

Then, in the copy: ``python -m helpers exercises`` lists it; ``python -m helpers check toy_scale
--solutions`` exits 0 and the skeleton's check 1; the grader passes a learner who handed in the
solution; the hub's list of exercises holds it; and ``pytest tests/test_exercises.py -k toy_scale``
collects its tests and passes them.
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

from .model import Buffer, Exercise, Scalar, one_d_cases, random_floats, register

register(Exercise(
    name="toy_scale",
    title="Double a list of floats",
    notebook="00-host-and-device",
    args=(
        Buffer("src", np.float32, "in", lambda c: c["n"]),
        Buffer("dst", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (777, 128), (5, 1)]),
    make_inputs=lambda case, rng: {"src": random_floats(rng, case["n"])},
    reference=lambda case, inputs: {"dst": 2 * inputs["src"]},
    rtol=0.0,
    atol=0.0,
    hints=("One work-item per element: the index `i` is `get_global_id(0)`.",
           "The global size is rounded up past `n`: store only when `i < n`."),
    contract="`dst[i] = 2 * src[i]` for `i < n`; global size may exceed n",
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

# The notebook's two new cells, made by the copy's own helpers from the copy's own record.
CELLS = f"""
import json, sys
from helpers.exercises import get
from helpers.exercises.cells import hints_markdown, kernel_cell
path = "notebooks/{NOTEBOOK}.ipynb"
nb = json.load(open(path, encoding="utf-8"))
ex = get("{NAME}")
nb["cells"] += [
    {{"cell_type": "markdown", "id": "toy-scale-hints", "metadata": {{}},
      "source": "### A toy exercise\\n\\n" + hints_markdown(ex)}},
    {{"cell_type": "code", "id": "toy-scale-kernel", "metadata": {{}}, "execution_count": None,
      "outputs": [], "source": kernel_cell(ex, open("kernels/{NAME}.cl").read())}},
]
with open(path, "w", encoding="utf-8") as f:
    json.dump(nb, f, indent=1, ensure_ascii=False)
    f.write("\\n")
"""


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
    # what the toy touched: its three files and one notebook, nothing else
    now = {str(p.relative_to(copy)) for p in copy.rglob("*")
           if p.is_file() and "__pycache__" not in p.parts}
    changed = {p for p in before if (copy / p).read_bytes() != before[p]}
    assert now - set(before) == {f"helpers/exercises/{NAME}.py", f"kernels/{NAME}.cl",
                                 f"solutions/{NAME}.cl"}
    assert changed == {f"notebooks/{NOTEBOOK}.ipynb"}
    return copy


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
    tests = run(course, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_exercises.py",
                "-k", NAME, timeout=300)
    assert tests.returncode == 0, tests.stdout[-4000:] + tests.stderr[-2000:]
    summary = tests.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
