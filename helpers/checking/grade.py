"""Grading a class: every learner's kernels through the same check as ``check("NAME")``.

``python -m helpers grade SUBMISSIONS [--out DIR] [--jobs N] [--only NAME ...] [--require-speed]``

SUBMISSIONS is a folder with one folder per learner, each laid out like the course (its ``kernels/``),
or a ``.zip`` / ``.tar`` / ``.tar.gz`` of such folders. Every learner's kernel files are copied into
a private folder first (SUBMISSIONS is only read), and each check runs the kernel in its own child
process with the course's time limits (:func:`helpers.check.run_check`), up to ``jobs`` at once, so
that one learner's crash, hang or endless output neither stops nor skews the others.

Written to ``--out`` (default ``./grades``): ``grades.csv`` (a row per learner, a column per
exercise: passed, failed, missing, crashed or timed out, and the number passed), ``details.json``
(every diagnosis) and ``report.html`` (the class as a colored matrix; each cell opens its diagnosis;
per exercise the share that passed and the most common likely mistake).
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
import shutil
import tarfile
import tempfile
import threading
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

STATUSES = ("passed", "failed", "missing", "crashed", "timed out")
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")
NOTEBOOK_TIMEOUT = 900.0   # seconds for one learner's notebook, all cells
CELL_TIMEOUT = 300         # seconds for one cell (nbval)


class GradeUsageError(ValueError):
    """The submissions cannot be graded as given (the sentence says why); exit 2."""


@dataclass
class Grade:
    learner: str
    exercise: str
    status: str
    message: str = ""
    seed: int | None = None
    mistake: str = ""


# --------------------------------------------------------------------------------------------------
# Reading the submissions

def _safe_members(names: list[str], archive: Path) -> None:
    for name in names:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise GradeUsageError(f"{archive.name} holds a path that leaves its folder ({name!r}): "
                                  f"it was not unpacked")


def unpack(archive: Path, into: Path) -> Path:
    """Unpack a zip or tar archive into ``into`` after checking that no path escapes it (``..``,
    absolute paths) and that it holds no links or devices."""
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                _safe_members(z.namelist(), archive)
                z.extractall(into)
        else:
            with tarfile.open(archive) as t:
                members = t.getmembers()
                _safe_members([m.name for m in members], archive)
                for m in members:
                    if not (m.isfile() or m.isdir()):
                        raise GradeUsageError(f"{archive.name} holds {m.name!r}, which is not a "
                                              f"plain file or folder: it was not unpacked")
                t.extractall(into, filter="data")
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
        raise GradeUsageError(f"{archive} could not be read as an archive ({e})") from None
    # an archive of one folder that holds the learners: grade inside it
    entries = [p for p in into.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "kernels").is_dir():
        return entries[0]
    return into


def learners(root: Path) -> dict[str, Path]:
    """The learner folders under ``root`` by name; a sentence for every layout that cannot be
    graded."""
    if not root.is_dir():
        raise GradeUsageError(f"{root} is not a folder or an archive of learners' folders")
    found = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "__")))
    if not found:
        raise GradeUsageError(f"{root} holds no learner folders: put one folder per learner in it, "
                              f"each with its kernels/ folder")
    without = [p.name for p in found if not (p / "kernels").is_dir()]
    if without:
        raise GradeUsageError(f"these learner folders have no kernels/ folder: {', '.join(without)} "
                              f"(each learner's folder is laid out like the course)")
    seen: dict[str, str] = {}
    for p in found:
        key = p.name.casefold()
        if key in seen:
            raise GradeUsageError(f"two learners' folders differ only in case ({seen[key]!r} and "
                                  f"{p.name!r}): a gradebook could not tell their rows apart")
        seen[key] = p.name
    return {p.name: p for p in found}


# --------------------------------------------------------------------------------------------------
# Grading

_MISTAKE = re.compile(r"likely mistake: ([^.:;]+)")


def status_of(report) -> str:
    """passed, crashed, timed out or failed: what the check's device pass says."""
    if report.passed:
        return "passed"
    dp = report.device_pass
    if dp is not None and dp.hung_in is not None:
        return "timed out"
    if dp is not None and dp.crashed_in is not None:
        return "crashed"
    return "failed"


class _Owners:
    """Each learner's checks use warm workers of that learner's own (never another's); when the
    learner's last check is done, theirs are stopped."""

    def __init__(self, tasks: list[str]):
        self.left = Counter(tasks)
        self.lock = threading.Lock()

    def done(self, learner: str) -> None:
        from .. import apart
        with self.lock:
            self.left[learner] -= 1
            last = self.left[learner] <= 0
        if last:
            apart.POOL.close(owner=learner)


def grade_one(learner: str, kernel: Path, exercise: str, require_speed: bool,
              run_timeout: float | None = None, owners: _Owners | None = None) -> Grade:
    from .options import RUN_TIMEOUT, CheckOptions
    from .run import run_check
    options = CheckOptions(solutions=False, require_speed=require_speed,
                           run_timeout=run_timeout or RUN_TIMEOUT, owner=learner)
    try:
        report = run_check(exercise, kernel, options)
    except Exception as e:  # the checker's own failure: reported in the cell, never fatal
        return Grade(learner, exercise, "failed", f"The checker itself failed: {e!r}")
    finally:
        if owners is not None:
            owners.done(learner)
    status = status_of(report)
    mistake = _MISTAKE.search(report.message)
    return Grade(learner, exercise, status, report.message, report.seed,
                 mistake.group(1).strip() if mistake and status != "passed" else "")


def grade(submissions: str | Path, out: str | Path = "grades", *, jobs: int | None = None,
          only: list[str] | None = None, require_speed: bool = False,
          run_timeout: float | None = None, notebooks: bool = False,
          notebook_timeout: float = NOTEBOOK_TIMEOUT, progress: bool = True) -> list[Grade]:
    """Grade every learner of ``submissions`` on every exercise (or ``only`` these) and, with
    ``notebooks``, run each learner's notebooks; write grades.csv, details.json and report.html
    into ``out``. Returns the grades."""
    from tqdm.auto import tqdm

    from .exercises import exercises, get

    submissions = Path(submissions)
    names = only or [ex.name for ex in exercises()]
    for name in names:
        try:
            get(name)
        except KeyError as e:
            raise GradeUsageError(e.args[0]) from None
    out = Path(out)
    if out.resolve().is_relative_to(submissions.resolve()) and submissions.is_dir():
        raise GradeUsageError(f"--out {out} is inside the submissions: the grader never writes "
                              f"there; choose another folder")
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        tmp = Path(tmp)
        if submissions.is_file() and submissions.name.endswith(ARCHIVES):
            root = unpack(submissions, tmp / "unpacked")
        elif submissions.is_file():
            raise GradeUsageError(f"{submissions} is neither a folder nor an archive "
                                  f"({', '.join(ARCHIVES)})")
        else:
            root = submissions
        found = learners(root)
        # private copies of the kernels: checks never read a file a learner's folder still holds
        work: list[tuple[str, str, Path | None]] = []
        for learner, folder in found.items():
            mine = tmp / "kernels" / learner
            mine.mkdir(parents=True)
            for name in names:
                src = folder / "kernels" / f"{name}.cl"
                if src.is_file():
                    shutil.copyfile(src, mine / f"{name}.cl")
                    work.append((learner, name, mine / f"{name}.cl"))
                else:
                    work.append((learner, name, None))
        grades: list[Grade] = [Grade(lr, ex, "missing", f"kernels/{ex}.cl was not handed in")
                               for lr, ex, path in work if path is None]
        columns = list(names)
        notebook_work = []
        if notebooks:
            from ..kernels import ROOT
            stems = [nb.stem for nb in sorted((ROOT / "notebooks").glob("*.ipynb"))]
            columns += [f"notebook {stem}" for stem in stems]
            for learner, folder in found.items():
                copy = course_copy(folder, tmp / "courses" / learner)
                for stem in stems:
                    nb = copy / "notebooks" / f"{stem}.ipynb"
                    if nb.is_file():
                        notebook_work.append((learner, copy, nb))
                    else:
                        grades.append(Grade(learner, f"notebook {stem}", "missing",
                                            f"notebooks/{stem}.ipynb was not handed in"))
        todo = [(lr, ex, path) for lr, ex, path in work if path is not None]
        # a speed target is judged on timings taken one at a time, never beside other checks
        alone = [t for t in todo if require_speed and get(t[1]).performance is not None]
        together = [t for t in todo if t not in alone]
        jobs = max(1, jobs or os.cpu_count() or 1)
        bar = tqdm(total=len(todo) + len(notebook_work), desc="grading", disable=not progress,
                   delay=1.0)
        owners = _Owners([lr for lr, _, _ in together + alone])
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(grade_one, lr, path, ex, require_speed, run_timeout, owners)
                       for lr, ex, path in together]
            futures += [pool.submit(grade_notebook, lr, copy, nb, notebook_timeout)
                        for lr, copy, nb in notebook_work]
            for f in as_completed(futures):
                grades.append(f.result())
                bar.update()
        for lr, ex, path in alone:
            grades.append(grade_one(lr, path, ex, require_speed, run_timeout, owners))
            bar.update()
        bar.close()
    order = {n: i for i, n in enumerate(columns)}
    grades.sort(key=lambda g: (g.learner, order[g.exercise]))
    write_outputs(grades, list(found), columns, out)
    return grades


# --------------------------------------------------------------------------------------------------
# Notebooks

def course_copy(learner_folder: Path, into: Path) -> Path:
    """A copy of the course in which the learner's kernels and notebooks replace the course's
    (helpers is copied, not linked: it finds kernels/ next to itself)."""
    from ..kernels import ROOT
    into.mkdir(parents=True)
    for part in ("helpers", "kernels", "solutions", "results"):
        shutil.copytree(ROOT / part, into / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for src in (learner_folder / "kernels").glob("*.cl"):
        shutil.copyfile(src, into / "kernels" / src.name)
    (into / "notebooks").mkdir()
    for nb in sorted((learner_folder / "notebooks").glob("*.ipynb")):
        shutil.copyfile(nb, into / "notebooks" / nb.name)
    return into


def _first_failure(junit: Path) -> tuple[str, str] | None:
    """The first failing cell of an nbval run (its name and the start of its message), or None."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return None
    for case in root.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            text = (bad.get("message") or "") + "\n" + (bad.text or "")
            return case.get("name", "?"), text.strip()[:3000]
    return None


def grade_notebook(learner: str, copy: Path, notebook: Path, timeout: float) -> Grade:
    """Run one of the learner's notebooks under nbval in a child process (solutions off, small
    sizes, a time limit per cell and for the whole notebook); the first failing cell is the
    diagnosis."""
    import subprocess
    import sys
    column = f"notebook {notebook.stem}"
    junit = copy / f"{notebook.stem}.junit.xml"
    env = {**os.environ, "COURSE_SOLUTIONS": "0", "COURSE_SMALL": "1", "MPLBACKEND": "Agg",
           "PYTHONPATH": str(copy), "COURSE_CACHE": str(copy / ".cache")}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
           "--rootdir", str(copy), "--nbval-lax", "--nbval-current-env",
           f"--nbval-cell-timeout={CELL_TIMEOUT}", f"--junitxml={junit}", str(notebook)]
    try:
        run = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True,
                             timeout=timeout, start_new_session=True)
    except subprocess.TimeoutExpired:
        return Grade(learner, column, "timed out",
                     f"{notebook.name} did not finish within {timeout:g} s")
    if run.returncode == 0:
        return Grade(learner, column, "passed", f"{notebook.name}: every cell ran")
    first = _first_failure(junit)
    if first is None:
        tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-15:])
        status = "crashed" if run.returncode < 0 else "failed"
        return Grade(learner, column, status, f"{notebook.name} could not be run:\n{tail}")
    cell, text = first
    mistake = _MISTAKE.search(text)
    return Grade(learner, column, "failed", f"{notebook.name}, first failing cell: {cell}\n{text}",
                 mistake=mistake.group(1).strip() if mistake else "")


# --------------------------------------------------------------------------------------------------
# Writing the outcome

def table(grades: list[Grade], learners_: list[str], names: list[str]) -> dict[str, dict[str, str]]:
    cells = {lr: {} for lr in learners_}
    for g in grades:
        cells[g.learner][g.exercise] = g.status
    return cells


def write_outputs(grades: list[Grade], learners_: list[str], names: list[str], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    cells = table(grades, learners_, names)
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["learner", *names, "passed", "of"])
        for lr in learners_:
            row = [cells[lr][n] for n in names]
            w.writerow([lr, *row, sum(s == "passed" for s in row), len(names)])
    (out / "details.json").write_text(json.dumps(
        {"exercises": names, "learners": learners_, "grades": [asdict(g) for g in grades]},
        indent=1) + "\n")
    (out / "report.html").write_text(report_html(grades, learners_, names))


COLORS = {"passed": "#c8e6c9", "failed": "#ffcdd2", "missing": "#eeeeee", "crashed": "#ffab91",
          "timed out": "#fff59d"}


def per_exercise(grades: list[Grade], names: list[str]) -> dict[str, dict]:
    """Per exercise: the share of the class that passed and the most common likely mistake."""
    out = {}
    for n in names:
        mine = [g for g in grades if g.exercise == n]
        mistakes = Counter(g.mistake for g in mine if g.mistake)
        common = mistakes.most_common(1)
        out[n] = {"passed": sum(g.status == "passed" for g in mine), "of": len(mine),
                  "mistake": f"{common[0][0]} ({common[0][1]})" if common else ""}
    return out


def report_html(grades: list[Grade], learners_: list[str], names: list[str]) -> str:
    by = {(g.learner, g.exercise): g for g in grades}
    esc = html.escape
    head = "".join(f"<th>{esc(n)}</th>" for n in names)
    rows = []
    for lr in learners_:
        cells = []
        for n in names:
            g = by[(lr, n)]
            cells.append(f"<td style='background:{COLORS[g.status]}'><details><summary>"
                         f"{esc(g.status)}</summary><pre>{esc(g.message)}</pre></details></td>")
        passed = sum(by[(lr, n)].status == "passed" for n in names)
        rows.append(f"<tr><th>{esc(lr)}</th>{''.join(cells)}<td>{passed} / {len(names)}</td></tr>")
    stats = per_exercise(grades, names)
    share = "".join(f"<td>{s['passed']} / {s['of']}</td>" for s in stats.values())
    common = "".join(f"<td>{esc(s['mistake'])}</td>" for s in stats.values())
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Grades</title><style>
body {{ font-family: sans-serif; }} table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #bbb; padding: 4px 6px; vertical-align: top; text-align: left; }}
pre {{ white-space: pre-wrap; max-width: 60em; font-size: 85%; }}
</style></head><body>
<h1>Grades: {len(learners_)} learners, {len(names)} exercises</h1>
<p>Each cell opens the check's diagnosis. Colors: {' '.join(
        f"<span style='background:{c};padding:0 4px'>{s}</span>" for s, c in COLORS.items())}</p>
<table><tr><th>learner</th>{head}<th>passed</th></tr>
{chr(10).join(rows)}
<tr><th>passed</th>{share}<td></td></tr>
<tr><th>most common likely mistake</th>{common}<td></td></tr>
</table></body></html>
"""


def summary(grades: list[Grade], learners_: list[str], names: list[str]) -> str:
    """The class as a text table (a letter a cell) and the per-exercise line."""
    letter = {"passed": "P", "failed": "F", "missing": "-", "crashed": "C", "timed out": "T"}
    cells = table(grades, learners_, names)
    width = max(len(lr) for lr in learners_)
    lines = [f"{'':<{width}}  " + " ".join(f"{i + 1:>2}" for i in range(len(names)))]
    for lr in learners_:
        row = [cells[lr][n] for n in names]
        lines.append(f"{lr:<{width}}  " + " ".join(f"{letter[s]:>2}" for s in row)
                     + f"   {sum(s == 'passed' for s in row)}/{len(names)}")
    lines.append("")
    for i, (n, s) in enumerate(per_exercise(grades, names).items()):
        extra = f"; most common mistake: {s['mistake']}" if s["mistake"] else ""
        lines.append(f"{i + 1:>2} {n}: {s['passed']}/{s['of']} passed{extra}")
    lines.append("P passed, F failed, C crashed, T timed out, - missing")
    return "\n".join(lines)
