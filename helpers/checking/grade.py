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
import unicodedata
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

from ..words import plural
from .learner import KERNEL_BYTES, NOTEBOOK_BYTES, RefusedFile, read_regular
from .mistakes import NAMED_MISTAKE, likely_mistake, status_of

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


ARCHIVE_MB = 50              # an archive that would expand past this is refused (--max-archive-mb)
ARCHIVE_MEMBERS = 20000      # ... or that holds more members than this
# the only members unpacked: a learner's kernels and notebooks (the rest is never written)
_WANTED = re.compile(r"^(?:[^/]+/)*kernels/[^/]+\.cl$|^(?:[^/]+/)*notebooks/[^/]+\.ipynb$")


def _member_limit(name: str) -> int:
    return KERNEL_BYTES if name.endswith(".cl") else NOTEBOOK_BYTES


def unpack(archive: Path, into: Path, max_mb: float = ARCHIVE_MB,
           refused: list[str] | None = None) -> Path:
    """Unpack the kernels and notebooks of a zip or tar archive into ``into``: its members counted
    and their sizes summed first (refused past ``max_mb`` MB or ARCHIVE_MEMBERS members), no path
    that escapes (``..``, absolute), no link or device (each one's path and why, in ``refused``),
    each file within its own size limit."""
    refused = [] if refused is None else refused
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                infos = z.infolist()
                _safe_members([i.filename for i in infos], archive)
                _within(archive, len(infos), sum(i.file_size for i in infos), max_mb)
                for info in infos:
                    if not info.is_dir() and _WANTED.match(info.filename):
                        with z.open(info) as src:
                            _write_capped(src, into, info.filename, archive)
        else:
            with tarfile.open(archive) as t:
                members = t.getmembers()
                _safe_members([m.name for m in members], archive)
                # a link, a device or a FIFO is never unpacked: refused for its learner alone
                refused.extend(f"{m.name}: not a plain file or folder (a link, a device or a "
                               f"FIFO), so it was not unpacked" for m in members
                               if not (m.isfile() or m.isdir()))
                _within(archive, len(members), sum(m.size for m in members), max_mb)
                for m in members:
                    if m.isfile() and _WANTED.match(m.name):
                        src = t.extractfile(m)
                        if src is not None:
                            _write_capped(src, into, m.name, archive)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
        raise GradeUsageError(f"{archive} could not be read as an archive ({e})") from None
    into.mkdir(parents=True, exist_ok=True)
    # an archive of one folder that holds the learners: grade inside it
    entries = [p for p in into.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "kernels").is_dir():
        return entries[0]
    return into


def _within(archive: Path, count: int, total: int, max_mb: float) -> None:
    if count > ARCHIVE_MEMBERS:
        raise GradeUsageError(f"{archive.name} holds {count} members, more than the "
                              f"{ARCHIVE_MEMBERS} a class's archive may have: it was not unpacked")
    if total > max_mb * 1e6:
        raise GradeUsageError(f"{archive.name} would expand to {total / 1e6:.0f} MB, more than "
                              f"the {max_mb:g} MB allowed (--max-archive-mb raises it): it was not "
                              f"unpacked")


def _write_capped(src, into: Path, name: str, archive: Path) -> None:
    """One member written under ``into``, read no further than its limit (a member's declared
    size may lie)."""
    limit = _member_limit(name)
    data = src.read(limit + 1)
    if len(data) > limit:
        raise GradeUsageError(f"{archive.name}: {name} is larger than the {limit >> 20} MiB a "
                              f"{Path(name).suffix} file may have: it was not unpacked")
    target = into / PurePosixPath(name.replace("\\", "/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def learners(root: Path) -> dict[str, Path]:
    """The learner folders under ``root`` by name; a sentence for every layout that cannot be
    graded."""
    if not root.is_dir():
        raise GradeUsageError(f"{root} is not a folder or an archive of learners' folders")
    # a link is never followed: a learner's folder, or its kernels/, that is a link is not theirs
    found = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink()
                   and not p.name.startswith((".", "__")))
    if not found:
        raise GradeUsageError(f"{root} holds no learner folders: put one folder per learner in it, "
                              f"each with its kernels/ folder")
    without = [p.name for p in found if not (p / "kernels").is_dir() or (p / "kernels").is_symlink()]
    if without:
        raise GradeUsageError(f"these learner folders have no kernels/ folder: "
                              f"{', '.join(map(shown_name, without))} (each learner's folder is "
                              f"laid out like the course)")
    seen: dict[str, str] = {}
    for p in found:
        key = unicodedata.normalize("NFC", p.name).casefold()
        if key in seen:
            raise GradeUsageError(f"two learners' folders differ only in case or in how their "
                                  f"letters are encoded ({shown_name(seen[key])!r} and "
                                  f"{shown_name(p.name)!r}): a gradebook could not tell their "
                                  f"rows apart")
        seen[key] = p.name
    return {p.name: p for p in found}


# --------------------------------------------------------------------------------------------------
# Grading



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


def content_seed(exercise: str, kernel: Path) -> int:
    """The seed of a graded check's inputs, from what was handed in: the same submission graded
    twice meets the same cases and inputs, so it gets the same grade."""
    import hashlib
    digest = hashlib.sha256(exercise.encode() + b"\0" + kernel.read_bytes()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def grade_one(learner: str, kernel: Path, exercise: str, require_speed: bool,
              run_timeout: float | None = None, owners: _Owners | None = None) -> Grade:
    from .options import RUN_TIMEOUT, CheckOptions
    from .run import run_check
    # one Oclgrind worker a check: the grader's cores go to checks side by side (``jobs``)
    options = CheckOptions(solutions=False, require_speed=require_speed,
                           run_timeout=run_timeout or RUN_TIMEOUT, owner=learner,
                           oclgrind_workers=1, seed=content_seed(exercise, kernel))
    try:
        report = run_check(exercise, kernel, options)
    except Exception as e:  # the checker's own failure: reported in the cell, never fatal
        return Grade(learner, exercise, "failed", f"The checker itself failed: {e!r}")
    finally:
        if owners is not None:
            owners.done(learner)
    status = status_of(report)
    return Grade(learner, exercise, status, report.message, report.seed,
                 likely_mistake(report) if status != "passed" else "")


def grade(submissions: str | Path, out: str | Path = "grades", *, jobs: int | None = None,
          only: list[str] | None = None, require_speed: bool = False,
          run_timeout: float | None = None, notebooks: bool = False,
          notebook_timeout: float = NOTEBOOK_TIMEOUT, progress: bool = True,
          max_archive_mb: float = ARCHIVE_MB, notebooks_as_root: bool = False,
          sandbox: bool = True) -> list[Grade]:
    """Grade every learner of ``submissions`` on every exercise (or ``only`` these) and, with
    ``notebooks``, run each learner's notebooks; write grades.csv, details.json and report.html
    into ``out``, once every learner's process is gone. Returns the grades. Every check's
    workers and every notebook run in the sandbox (:mod:`.sandbox`; ``sandbox=False``: not, on a
    machine that holds nothing else). Run by root, each learner's notebooks run as a user id of
    their own that no account has (see :func:`notebook_users`), unless ``notebooks_as_root``."""
    from ..exercises import exercises, get

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
    if sandbox:
        from .sandbox import why_not
        why = why_not()
        if why is not None:
            raise GradeUsageError(f"the sandbox cannot run here: {why}. Learners' kernels and "
                                  f"notebooks are hostile input: install it, or grade with "
                                  f"--no-sandbox, only on a machine that holds nothing else")
        if os.name == "posix" and os.geteuid() != 0:
            print("grading as an ordinary user: each learner's work runs in the sandbox, but as "
                  "you (not as a user of its own), and its processes are bounded by your own "
                  "limit on processes (no control groups)", flush=True)
    else:
        print("grading without the sandbox: learners' kernels and notebooks run with this "
              "process's rights, its network and its view of the files", flush=True)
    with tempfile.TemporaryDirectory(prefix="course-grade-") as tmp:
        tmp = Path(tmp)
        hidden = [tmp.resolve(), out.resolve(), submissions.resolve()] if sandbox else None
        grades, found, columns = _grade_in(submissions, tmp, out, names, jobs, require_speed,
                                           run_timeout, notebooks, notebook_timeout, progress,
                                           max_archive_mb, notebooks_as_root, hidden)
    order = {n: i for i, n in enumerate(columns)}
    grades.sort(key=lambda g: (g.learner, order[g.exercise]))
    write_outputs(grades, list(found), columns, out)
    return grades


def _grade_in(submissions: Path, tmp: Path, out: Path, names: list[str], jobs: int | None,
              require_speed: bool, run_timeout: float | None, notebooks: bool,
              notebook_timeout: float, progress: bool, max_archive_mb: float,
              notebooks_as_root: bool, hidden: list[Path] | None
              ) -> tuple[list[Grade], dict[str, Path], list[str]]:
    """The grading itself, in the temporary folder ``tmp`` (see :func:`grade`); ``hidden``: the
    folders the sandbox hides (None: no sandbox)."""
    from tqdm.auto import tqdm

    from .. import apart
    from ..exercises import get
    from .sandbox import GradingSandbox
    apart.SANDBOX = GradingSandbox(hidden) if hidden is not None else None
    found: dict[str, Path] = {}
    try:
        skipped: list[str] = []
        if submissions.is_file() and submissions.name.endswith(ARCHIVES):
            root = unpack(submissions, tmp / "unpacked", max_archive_mb, skipped)
        elif submissions.is_file():
            raise GradeUsageError(f"{submissions} is neither a folder nor an archive "
                                  f"({', '.join(ARCHIVES)})")
        else:
            root = submissions
        found = learners(root)
        # private copies of the kernels: checks never read a file a learner's folder still holds
        work: list[tuple[str, str, Path | None]] = []
        refused: list[Grade] = []
        for learner, folder in found.items():
            mine = tmp / "kernels" / learner
            mine.mkdir(parents=True)
            for name in names:
                src = folder / "kernels" / f"{name}.cl"
                if not os.path.lexists(src):
                    work.append((learner, name, None))
                    continue
                try:   # a regular file within its size, never through a link
                    data = read_regular(src, KERNEL_BYTES, f"kernels/{name}.cl")
                except RefusedFile as e:
                    refused.append(Grade(learner, name, "failed", f"{e}: it was not graded"))
                    continue
                (mine / f"{name}.cl").write_bytes(data)
                work.append((learner, name, mine / f"{name}.cl"))
        grades: list[Grade] = [Grade(lr, ex, "missing", _missing(lr, ex, root, tmp, skipped))
                               for lr, ex, path in work if path is None] + refused
        columns = list(names)
        notebook_work = []
        users = notebook_users(list(found)) if notebooks and not notebooks_as_root else None
        if users:
            refusal = python_refused(next(iter(users.values())))
            if refusal:
                raise GradeUsageError(refusal)
        if notebooks:
            from ..kernels import ROOT
            stems = [nb.stem for nb in sorted((ROOT / "notebooks").glob("*.ipynb"))]
            columns += [f"notebook {stem}" for stem in stems]
            for learner, folder in found.items():
                for stem in stems:
                    if not (folder / "notebooks" / f"{stem}.ipynb").is_file():
                        grades.append(Grade(learner, f"notebook {stem}", "missing",
                                            f"notebooks/{stem}.ipynb was not handed in"))
                        continue
                    # a copy per notebook: what one notebook writes, another never runs with
                    copy = course_copy(folder, tmp / "courses" / learner / stem)
                    if users:
                        hand_over(copy, users[learner], tmp)
                    notebook_work.append((learner, copy, copy / "notebooks" / f"{stem}.ipynb"))
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
            futures += [pool.submit(grade_notebook, lr, copy, nb, notebook_timeout,
                                    users[lr] if users else None, hidden)
                        for lr, copy, nb in notebook_work]
            for f in as_completed(futures):
                grades.append(f.result())
                bar.update()
        for lr, ex, path in alone:
            grades.append(grade_one(lr, path, ex, require_speed, run_timeout, owners))
            bar.update()
        bar.close()
        return with_kernel_verdicts(grades, notebook_work), found, columns
    finally:
        if apart.SANDBOX is not None:
            for learner in found:
                apart.POOL.close(owner=learner)
            apart.SANDBOX.close()
        apart.SANDBOX = None


def _missing(learner: str, exercise: str, root: Path, tmp: Path, skipped: list[str]) -> str:
    """Why a learner's kernel is missing: not handed in, or refused when the archive was unpacked
    (a link in its place)."""
    inside = root.relative_to(tmp / "unpacked").as_posix() if root.is_relative_to(
        tmp / "unpacked") else ""
    wanted = "/".join(p for p in (inside, learner, "kernels", f"{exercise}.cl") if p and p != ".")
    why = next((s for s in skipped if s.startswith(wanted + ":")), None)
    return f"kernels/{exercise}.cl was refused ({why})" if why else \
        f"kernels/{exercise}.cl was not handed in"


def with_kernel_verdicts(grades: list[Grade], notebook_work: list[tuple[str, Path, Path]]
                         ) -> list[Grade]:
    """A notebook whose cells all ran passes only if every exercise it checks passed the grader's
    own check of the handed-in kernel (what the notebook's code says of its checks is not
    trusted: it runs the learner's code)."""
    from .notebook_grade import judged
    status = {(g.learner, g.exercise): g.status for g in grades}
    notebooks = {(lr, f"notebook {nb.stem}"): nb for lr, _, nb in notebook_work}
    out = []
    for g in grades:
        nb = notebooks.get((g.learner, g.exercise))
        if nb is not None and g.status == "passed":
            checked = check_calls(nb)
            why = judged(True, checked, {n: status.get((g.learner, n), "not graded")
                                         for n in checked})
            if why:
                g = Grade(g.learner, g.exercise, "failed", f"{nb.name}: {why}")
        out.append(g)
    return out


# --------------------------------------------------------------------------------------------------
# Notebooks

NOTEBOOK_UIDS = 1_900_000_000   # run by root, learner k's notebooks run as the k-th free id from here


def notebook_users(learners_: list[str]) -> dict[str, int] | None:
    """Run by root: a user id for each learner that no account of this machine has (its group
    id the same number), so that a notebook can touch nothing but its learner's copy. None when
    the grader is not root (the notebooks then run as the grader, who has no rights to give)."""
    if os.name != "posix" or os.geteuid() != 0:
        return None
    import grp
    import pwd
    used = {p.pw_uid for p in pwd.getpwall()} | {g.gr_gid for g in grp.getgrall()}
    free = (n for n in range(NOTEBOOK_UIDS, NOTEBOOK_UIDS + 10 * len(learners_) + 100)
            if n not in used)
    return {lr: next(free) for lr in learners_}


def notebook_environment(extra: dict[str, str]) -> dict[str, str]:
    """A learner notebook's environment: a course child's (none of the grader's variables), but
    not marked as one of the checker's workers, with ``extra`` over it."""
    from .. import apart
    env = {**apart.child_environment(), **extra}
    env.pop(apart.CHILD_VARIABLE)
    return env


def as_user(uid: int | None) -> dict:
    """subprocess's arguments to run a child as ``uid`` (and that group alone), or none."""
    return {} if uid is None else {"user": uid, "group": uid, "extra_groups": []}


def hand_over(copy: Path, uid: int, top: Path) -> None:
    """The learner's copy becomes theirs alone (owned by ``uid``, 0700); the folders above it,
    up to ``top``, can be passed through by others but not listed."""
    for p in [copy, *copy.rglob("*")]:
        os.lchown(p, uid, uid)
    copy.chmod(0o700)
    for parent in copy.parents:
        parent.chmod(0o711)
        if parent == top:
            break


def python_refused(uid: int) -> str | None:
    """Why a notebook could not run as ``uid`` with this Python (None when it can): a Python
    inside a folder only root may enter (a pyenv or venv under /root) cannot be run by anyone
    else."""
    import subprocess
    import sys

    env = notebook_environment({"HOME": "/"})
    try:
        run = subprocess.run([sys.executable, "-c", "import nbval, pyopencl"], cwd="/", env=env,
                             capture_output=True, text=True, timeout=120, **as_user(uid))
    except (OSError, subprocess.SubprocessError) as e:
        why = str(e)
    else:
        if run.returncode == 0:
            return None
        why = (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
    return (f"--notebooks run by root runs each learner's notebooks as a user of their own with "
            f"no rights (uid {uid}), and that user cannot run this Python ({sys.executable}: "
            f"{why}). Install the course where every user may read it (a virtual environment "
            f"outside /root, from a Python outside /root), or grade as an ordinary user; "
            f"--notebooks-as-root runs them as root all the same, on a machine that holds "
            f"nothing else.")


def course_copy(learner_folder: Path, into: Path) -> Path:
    """A copy of the course in which the learner's kernels and notebooks replace the course's
    (helpers is copied, not linked: it finds kernels/ next to itself). The solutions are left
    out, so that no notebook can copy one over its kernel (the notebooks run with them off)."""
    from ..kernels import ROOT
    into.mkdir(parents=True)
    for part in ("helpers", "kernels", "results"):
        shutil.copytree(ROOT / part, into / part,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (into / "notebooks").mkdir()
    for folder, pattern, limit in (("kernels", "*.cl", KERNEL_BYTES),
                                   ("notebooks", "*.ipynb", NOTEBOOK_BYTES)):
        if (learner_folder / folder).is_symlink():
            continue
        for src in sorted((learner_folder / folder).glob(pattern)):
            try:   # regular files only, within their size, never through a link
                (into / folder / src.name).write_bytes(read_regular(src, limit))
            except RefusedFile:
                continue
    return into


def _run_notebook(copy: Path, notebook: Path, timeout: float, uid: int | None,
                  hidden: list[Path] | None):
    """nbval over ``notebook`` as the learner's (see :func:`grade_notebook`): the finished
    process and its junit report's text. In the sandbox the notebook runs in a copy of ``copy``
    inside it (so the copy outside never changes); without, in ``copy`` itself."""
    import subprocess
    import sys

    from .. import apart
    from .notebook_grade import junit_of, sandboxed_command
    where = Path("/tmp/course") if hidden is not None else copy
    # the environment a child of the course gets (none of the instructor's variables), its home
    # the learner's private copy; the notebook's processes get the check's memory and file bounds
    env = notebook_environment({"COURSE_SOLUTIONS": "0", "COURSE_STRICT_CHECKS": "1",
                                "COURSE_SMALL": "1", "MPLBACKEND": "Agg",
                                "PYTHONPATH": str(where), "COURSE_CACHE": str(where / ".cache"),
                                "HOME": str(where)})
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--nbval-lax",
            "--nbval-current-env", f"--nbval-cell-timeout={CELL_TIMEOUT}",
            f"notebooks/{notebook.name}"]
    groups: list[Path] = []
    if hidden is not None:
        import functools
        import secrets

        from .sandbox import cgroup, limits
        groups = cgroup(f"course-notebook-{secrets.token_hex(6)}")
        cmd = sandboxed_command(args, copy, hidden)
        preexec = functools.partial(limits, groups=groups)
    else:
        junit = copy / f"{notebook.stem}.junit.xml"
        cmd = [sys.executable, "-m", "pytest", *args, "--rootdir", str(copy),
               f"--junitxml={junit}"]
        preexec = apart.learner_limits if os.name == "posix" else None
    try:
        run = subprocess.run(cmd, cwd=copy, env=env, capture_output=True, text=True,
                             timeout=timeout, start_new_session=True, preexec_fn=preexec,
                             **as_user(uid))
    except subprocess.TimeoutExpired:
        raise TimeoutError from None
    finally:
        from .sandbox import drop
        drop(groups, wait_s=5.0)
    if hidden is not None:
        return run, junit_of(run.stdout)
    return run, junit.read_text(errors="replace") if junit.is_file() else ""


def _first_failure(junit: str) -> tuple[str, str] | None:
    """The first failing cell of an nbval run (its name and the start of its message), or None."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.fromstring(junit)
    except ET.ParseError:
        return None
    for case in root.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            text = (bad.get("message") or "") + "\n" + (bad.text or "")
            return case.get("name", "?"), text.strip()[:3000]
    return None


# a check: check("NAME"), or an exercise's %%kernel NAME cell (helpers.magic), which checks too
_CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\w+)["']|\A\s*%%kernel[ \t]+(\w+)""")


def code_cells(notebook: Path) -> list[str]:
    """The sources of a notebook's code cells ([] for a file that is not a notebook)."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return []
    out = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            text = cell.get("source", "")
            out.append("".join(text) if isinstance(text, list) else str(text))
    return out


def check_calls(notebook: Path) -> list[str]:
    """The exercises a notebook's code cells check (``check("NAME")`` or ``%%kernel NAME``), in
    order."""
    found: list[str] = []
    for text in code_cells(notebook):
        for a, b in _CHECK_CALL.findall(text):
            if (a or b) not in found:
                found.append(a or b)
    return found


def rebinds_check(notebook: Path) -> str:
    """The first line of the notebook's code that puts something else in place of the course's
    ``check`` (a def, an assignment, an import from elsewhere, an attribute set), or ""."""
    import ast
    for text in code_cells(notebook):
        # IPython's magics and shell lines are not Python
        source = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln
                           for ln in text.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            bound = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr,
                                   ast.For, ast.With, ast.Delete)):
                targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
                for item in getattr(node, "items", []):
                    targets.append(item.optional_vars)
                for t in targets:
                    for sub in ast.walk(t) if t is not None else ():
                        if isinstance(sub, ast.Name):
                            bound.append(sub.id)
                        elif isinstance(sub, ast.Attribute):
                            bound.append(sub.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                ours = isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] \
                    == "helpers" and node.level == 0
                bound = [a.asname or a.name for a in node.names
                         if not (ours and a.name == "check" and a.asname in (None, "check"))]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr":
                bound = ["check"]   # setattr(...) with a name spelled at run time: not allowed
            if "check" in bound:
                return ast.get_source_segment(source, node).splitlines()[0].strip()
    return ""


def kernel_texts(copy: Path) -> dict[str, bytes | None]:
    """The copy's kernels by name (None for one that is not a regular file within its size)."""
    texts: dict[str, bytes | None] = {}
    for path in (copy / "kernels").glob("*.cl"):
        try:
            texts[path.name] = read_regular(path, KERNEL_BYTES)
        except RefusedFile:
            texts[path.name] = None
    return texts


def missing_checks(notebook: Path) -> str:
    """What the learner's notebook lacks of the course's notebook of the same name ("" when
    nothing): a cell that checks an exercise, or most of its code cells."""
    from ..kernels import ROOT
    course = ROOT / "notebooks" / notebook.name
    mine = set(check_calls(notebook))
    lacking = [n for n in check_calls(course) if n not in mine]
    if lacking:
        return f"lacks the cells that check {', '.join(lacking)}"
    have, want = len(code_cells(notebook)), len(code_cells(course))
    if have < want:
        return f"has {have} code cells where the course's has {want}"
    return ""


def grade_notebook(learner: str, copy: Path, notebook: Path, timeout: float,
                   uid: int | None = None, hidden: list[Path] | None = None) -> Grade:
    """Run one of the learner's notebooks under nbval in a child process (solutions off, small
    sizes, a time limit per cell and for the whole notebook; as user and group ``uid``, with no
    other groups, when given; in the sandbox, which hides ``hidden``, unless that is None); the
    first failing cell is the diagnosis."""
    from .notebook_grade import JUNIT_MARK, checks_out_of_place
    column = f"notebook {notebook.stem}"
    missing = missing_checks(notebook)
    if missing:
        return Grade(learner, column, "failed",
                     f"{notebook.name} {missing}: a notebook counts only when all its cells, "
                     f"its checks among them, run")
    astray = checks_out_of_place(code_cells(notebook))
    if astray:
        return Grade(learner, column, "failed",
                     f"{notebook.name}: {astray}: a check counts only in a cell of its own, as "
                     f"the course wrote it (a check inside try, if or a function could be "
                     f"swallowed)")
    rebound = rebinds_check(notebook)
    if rebound:
        return Grade(learner, column, "failed",
                     f"{notebook.name} puts something else in place of the course's check "
                     f"(`{rebound}`): a notebook counts only with the course's own check")
    # in the sandbox the notebook runs in a copy of the copy: the kernels handed in never change
    before = kernel_texts(copy) if hidden is None else {}
    try:
        run, junit = _run_notebook(copy, notebook, timeout, uid, hidden)
    except TimeoutError:
        return Grade(learner, column, "timed out",
                     f"{notebook.name} did not finish within {timeout:g} s")
    after = kernel_texts(copy) if hidden is None else {}
    changed = sorted(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    if changed:
        return Grade(learner, column, "failed",
                     f"{notebook.name} changed kernels/{', kernels/'.join(changed)} while it ran: "
                     f"a notebook counts only with the kernels handed in (a %%kernel cell must "
                     f"hold the kernel file's text, or the starting kernel: run it, or save the "
                     f"file, before handing in)")
    if run.returncode == 0:
        return Grade(learner, column, "passed", f"{notebook.name}: every cell ran")
    first = _first_failure(junit)
    if first is None:
        printed = run.stdout.split(JUNIT_MARK, 1)[0] + run.stderr
        tail = "\n".join(printed.strip().splitlines()[-15:])
        status = "crashed" if run.returncode < 0 else "failed"
        return Grade(learner, column, status, f"{notebook.name} could not be run:\n{tail}")
    cell, text = first
    mistake = NAMED_MISTAKE.search(text)
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
    """The grades, written once every learner's process is gone, into a folder only the grader
    may enter."""
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o700)
    cells = table(grades, learners_, names)
    with open(out / "grades.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["learner", *names, "passed", "of"])
        for lr in learners_:
            row = [cells[lr][n] for n in names]
            w.writerow([csv_cell(lr), *row, sum(s == "passed" for s in row), len(names)])
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
<h1>Grades: {plural(len(learners_), 'learner')}, {plural(len(names), 'exercise')}</h1>
<p>Each cell opens the check's diagnosis. Colors: {' '.join(
        f"<span style='background:{c};padding:0 4px'>{s}</span>" for s, c in COLORS.items())}</p>
<table><tr><th>learner</th>{head}<th>passed</th></tr>
{chr(10).join(rows)}
<tr><th>passed</th>{share}<td></td></tr>
<tr><th>most common likely mistake</th>{common}<td></td></tr>
</table></body></html>
"""


def csv_cell(text: str) -> str:
    """A learner-controlled cell that a spreadsheet will not run as a formula (OWASP's advice on
    CSV injection: a leading =, +, -, @, tab or carriage return is quoted with ')."""
    return "'" + text if text.startswith(("=", "+", "-", "@", "\t", "\r")) else text


def shown_name(name: str) -> str:
    """A learner's name as a terminal may print it: control characters (escape codes and the
    like) written as escapes."""
    return "".join(c if not unicodedata.category(c).startswith("C") else
                   c.encode("unicode_escape").decode("ascii") for c in name)


def summary(grades: list[Grade], learners_: list[str], names: list[str]) -> str:
    """The class as a text table (a letter a cell) and the per-exercise line."""
    letter = {"passed": "P", "failed": "F", "missing": "-", "crashed": "C", "timed out": "T"}
    cells = table(grades, learners_, names)
    width = max(len(shown_name(lr)) for lr in learners_)
    lines = [f"{'':<{width}}  " + " ".join(f"{i + 1:>2}" for i in range(len(names)))]
    for lr in learners_:
        row = [cells[lr][n] for n in names]
        lines.append(f"{shown_name(lr):<{width}}  " + " ".join(f"{letter[s]:>2}" for s in row)
                     + f"   {sum(s == 'passed' for s in row)}/{len(names)}")
    lines.append("")
    for i, (n, s) in enumerate(per_exercise(grades, names).items()):
        extra = f"; most common mistake: {s['mistake']}" if s["mistake"] else ""
        lines.append(f"{i + 1:>2} {n}: {s['passed']}/{s['of']} passed{extra}")
    lines.append("P passed, F failed, C crashed, T timed out, - missing")
    return "\n".join(lines)
