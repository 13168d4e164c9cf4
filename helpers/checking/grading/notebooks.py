"""A learner's notebooks run for the grade: a copy of the course per notebook, run under nbval in
the sandbox (:mod:`..sandbox`, :mod:`.judging`), as a user id of its own when the grader is root,
and judged on the grader's own checks of the kernels handed in."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from ..learner import KERNEL_BYTES, NOTEBOOK_BYTES, RefusedFile, read_regular
from ..mistakes import NAMED_MISTAKE
from .intake import code_cells, missing_checks, rebinds_check
from .report import Grade

NOTEBOOK_TIMEOUT = 900.0   # seconds for one learner's notebook, all cells


CELL_TIMEOUT = 300         # seconds for one cell (nbval)


NOTEBOOK_UIDS = 1_900_000_000   # run by root, learners' notebooks run as free ids from about here


def notebook_users(learners_: list[str]) -> dict[str, int] | None:
    """Run by root: a user id for each learner that no account of this machine has (its group
    id the same number), so that a notebook can touch nothing but its learner's copy. None when
    the grader is not root (the notebooks then run as the grader, who has no rights to give)."""
    if os.name != "posix" or os.geteuid() != 0:
        return None
    import secrets

    from ..sandbox import free_ids
    # from a random place in each grade: a process left by one grade (none should be: the pid
    # namespace ends them all) never owns another learner's copy in the next
    ids = free_ids(len(learners_), NOTEBOOK_UIDS + secrets.randbelow(1 << 24))
    return dict(zip(learners_, ids, strict=True))


def notebook_environment(extra: dict[str, str]) -> dict[str, str]:
    """A learner notebook's environment: a course child's (none of the grader's variables), but
    not marked as one of the checker's workers, with ``extra`` over it."""
    from ... import workers
    # numpy's BLAS on one thread, as in the check's workers: a thread per core of a large server
    # would count against the sandbox's bound on processes
    env = {**workers.child_environment(), **workers.ONE_THREAD_MATH, **extra}
    env.pop(workers.CHILD_VARIABLE)
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


def python_refused(uid: int, sandboxed: bool = True) -> str | None:
    """Why a notebook could not run as ``uid`` with this Python (None when it can). In the
    sandbox (started by root, which puts the course's Python back even from under /root) only a
    Python or a course that user may not read is refused; without it, a Python inside a folder
    only root may enter (a pyenv or venv under /root) cannot be run by anyone else."""
    import subprocess
    import sys

    if sandboxed:
        from ..sandbox import python_refused_to
        why = python_refused_to(uid, "nbval, pyopencl")
    else:
        env = notebook_environment({"HOME": "/"})
        try:
            run = subprocess.run([sys.executable, "-c", "import nbval, pyopencl"], cwd="/",
                                 stdin=subprocess.DEVNULL,
                                 env=env, capture_output=True, text=True, timeout=120,
                                 **as_user(uid))
        except (OSError, subprocess.SubprocessError) as e:
            why = str(e)
        else:
            why = None if run.returncode == 0 else \
                (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
    if why is None:
        return None
    return (f"--notebooks run by root runs each learner's notebooks as a user of their own with "
            f"no rights (uid {uid}), and that user cannot run this Python ({sys.executable}: "
            f"{why}). Install the course where every user may read it (a Python and a virtual "
            f"environment whose folders others may enter"
            f"{'' if sandboxed else ', outside /root'}), or grade as an ordinary user; "
            f"--notebooks-as-root runs them as root all the same, on a machine that holds "
            f"nothing else.")


def course_copy(learner_folder: Path, into: Path) -> Path:
    """A copy of the course in which the learner's kernels and notebooks replace the course's
    (helpers is copied, not linked: it finds kernels/ next to itself). The solutions are left
    out, so that no notebook can copy one over its kernel (the notebooks run with them off)."""
    from ...kernels import ROOT
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
                  hidden: list[Path] | None, owner: str = ""):
    """nbval over ``notebook`` as the learner's (see :func:`grade_notebook`): the finished
    process and its junit report's text. In the sandbox the notebook runs in a copy of ``copy``
    inside it (so the copy outside never changes); without, in ``copy`` itself."""
    import subprocess
    import sys

    from ... import stopping, workers
    from .judging import junit_of, sandboxed_command
    where = Path("/tmp/course") if hidden is not None else copy
    # the environment a child of the course gets (none of the instructor's variables), its home
    # the learner's private copy; the notebook's processes get the check's memory and file bounds
    env = notebook_environment({"COURSE_SOLUTIONS": "0", "COURSE_STRICT_CHECKS": "1",
                                "COURSE_SMALL": "1", "COURSE_GRADING": "1", "MPLBACKEND": "Agg",
                                "PYTHONPATH": str(where), "COURSE_CACHE": str(where / ".cache"),
                                "HOME": str(where)})
    args = ["-q", "-p", "no:cacheprovider", "-o", "addopts=", "--nbval-lax",
            "--nbval-current-env", f"--nbval-cell-timeout={CELL_TIMEOUT}",
            f"notebooks/{notebook.name}"]
    groups: list[Path] = []
    if hidden is not None:
        import functools
        import secrets

        from ..sandbox import cgroup, limits
        groups = cgroup(f"course-notebook-{secrets.token_hex(6)}")
        cmd = sandboxed_command(args, copy, hidden, uid)
        preexec = functools.partial(limits, groups=groups)
        uid = None      # the sandbox, started by root, becomes that user itself
    else:
        junit = copy / f"{notebook.stem}.junit.xml"
        cmd = [sys.executable, "-m", "pytest", *args, "--rootdir", str(copy),
               f"--junitxml={junit}"]
        preexec = workers.learner_limits if os.name == "posix" else None
    try:
        # stdin never the grader's (its terminal: a notebook would read what the instructor types);
        # a session of its own, tracked: a grade that stops (Ctrl-C, its cap) kills it at once
        with subprocess.Popen(cmd, cwd=copy, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                              start_new_session=True, preexec_fn=preexec,
                              **as_user(uid)) as proc, stopping.tracked(proc, owner):
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                stopping.kill_group(proc)
                proc.communicate()
                raise TimeoutError from None
        run = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    finally:
        from ..sandbox import drop
        drop(groups, wait_s=5.0)
    if hidden is not None:
        return run, junit_of(run.stdout)
    return run, junit.read_text(errors="replace") if junit.is_file() else ""


# the colours of nbval's report: escape sequences, or the "#x1B" pytest's junit writes for them
_COLOURS = re.compile(r"(?:\x1b|#x1B)\[[0-9;]*m")
# the line a traceback's error starts on: its class at the start of a line (what follows it, the
# rest of a message of several lines)
_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failed|Warning)\b")


def _first_failure(junit: str) -> tuple[str, str] | None:
    """The first failing cell of an nbval run (its name, and its report: the error first, so
    that a long cell never pushes it out of the 3,000 characters kept, then the cell and its
    traceback, without colours), or None."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.fromstring(junit)
    except ET.ParseError:
        return None
    for case in root.iter("testcase"):
        for bad in list(case.findall("failure")) + list(case.findall("error")):
            # the element's text is the whole report; its message attribute, a cut copy of it
            text = _COLOURS.sub("", (bad.text or bad.get("message") or "")).strip()
            lines = [line for line in text.splitlines() if line.strip()]
            at = max((i for i, line in enumerate(lines) if _ERROR_LINE.match(line)),
                     default=len(lines) - 1)
            error = "\n".join(lines[at:])[:1000] if lines else ""
            return case.get("name", "?"), f"{error}\n{text}"[:3000]
    return None


def kernel_texts(copy: Path) -> dict[str, bytes | None]:
    """The copy's kernels by name (None for one that is not a regular file within its size)."""
    texts: dict[str, bytes | None] = {}
    for path in (copy / "kernels").glob("*.cl"):
        try:
            texts[path.name] = read_regular(path, KERNEL_BYTES)
        except RefusedFile:
            texts[path.name] = None
    return texts


def grade_notebook(learner: str, copy: Path, notebook: Path, timeout: float,
                   uid: int | None = None, hidden: list[Path] | None = None) -> Grade:
    """Run one of the learner's notebooks under nbval in a child process (solutions off, small
    sizes, a time limit per cell and for the whole notebook; as user and group ``uid``, with no
    other groups, when given; in the sandbox, which hides ``hidden``, unless that is None); the
    first failing cell is the diagnosis."""
    from .judging import JUNIT_MARK, checks_out_of_place
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
        run, junit = _run_notebook(copy, notebook, timeout, uid, hidden, learner)
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
