"""Grading a class: every learner's kernels through the same check as ``check("NAME")``, up to
``jobs`` at once, each in its own child process with the course's time limits, in the sandbox;
then the notebooks (:mod:`.notebooks`); then the outputs (:mod:`.report`)."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ...paths import remove_tree
from ..learner import KERNEL_BYTES, RefusedFile, read_regular
from ..mistakes import likely_mistake, status_of
from ..sandbox import SCRATCH_MB
from .intake import ARCHIVE_MB, ARCHIVES, GradeUsageError, _missing, check_calls, learners, unpack
from .notebooks import (
    NOTEBOOK_TIMEOUT,
    course_copy,
    grade_notebook,
    hand_over,
    notebook_users,
    python_refused,
)
from .report import Grade, write_outputs

GRADE_TIMEOUT = 4 * 3600.0   # a grade's overall cap by default (docs/grading.md)


class Interrupted(KeyboardInterrupt):
    """A grade stopped by Ctrl-C, after writing what it had graded."""


class _Owners:
    """Each learner's checks use warm workers of that learner's own (never another's); when the
    learner's last check is done, theirs are stopped."""

    def __init__(self, tasks: list[str]):
        self.left = Counter(tasks)
        self.lock = threading.Lock()

    def starting(self, learner: str) -> None:
        """A check of ``learner`` starts: when it is their last, no worker is started ahead
        for a check of theirs that will not come."""
        from ... import workers
        with self.lock:
            if self.left[learner] <= 1:
                workers.POOL.last_work.add(learner)

    def done(self, learner: str) -> None:
        from ... import workers
        with self.lock:
            self.left[learner] -= 1
            last = self.left[learner] <= 0
        if last:
            workers.POOL.close(owner=learner)


def content_seed(exercise: str, kernel: Path) -> int:
    """The seed of a graded check's inputs, from what was handed in: the same submission graded
    twice meets the same cases and inputs, so it gets the same grade."""
    import hashlib
    digest = hashlib.sha256(exercise.encode() + b"\0" + kernel.read_bytes()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def grade_one(learner: str, kernel: Path, exercise: str, require_speed: bool,
              run_timeout: float | None = None, owners: _Owners | None = None) -> Grade:
    from ..checker import run_check
    from ..options import RUN_TIMEOUT, CheckOptions
    # one Oclgrind worker a check: the grader's cores go to checks side by side (``jobs``)
    options = CheckOptions(solutions=False, require_speed=require_speed,
                           run_timeout=run_timeout or RUN_TIMEOUT, owner=learner,
                           oclgrind_workers=1, seed=content_seed(exercise, kernel))
    if owners is not None:
        owners.starting(learner)
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


@dataclass
class GradeOptions:
    """What a grade may be told (``python -m helpers grade``'s options)."""
    jobs: int | None = None             # checks side by side (default: the cores)
    only: list[str] | None = None       # these exercises (default: all)
    require_speed: bool = False         # the performance exercises' targets count
    run_timeout: float | None = None    # a case's limit (default: the check's)
    notebooks: bool = False             # run each learner's notebooks too
    notebook_timeout: float = NOTEBOOK_TIMEOUT
    progress: bool = True
    max_archive_mb: float = ARCHIVE_MB
    notebooks_as_root: bool = False     # run by root: notebooks as root, not as users of their own
    sandbox: bool = True                # False: only on a machine that holds nothing else
    total_timeout: float = GRADE_TIMEOUT   # the whole grade's cap, in seconds: then what is left
    #                                        is "timed out" and what was graded is written
    scratch_mb: int = SCRATCH_MB        # run by root, a check worker's folder: a tmpfs this size


@dataclass
class _Work:
    """A class taken in: the learners' folders, the kernels to check (path None: missing), the
    grades already known (missing, refused), the notebooks to run and the report's columns."""
    root: Path
    found: dict[str, Path]
    refused: dict[str, str] = field(default_factory=dict)   # learners refused, each with why
    kernels: list[tuple[str, str, Path | None]] = field(default_factory=list)
    grades: list[Grade] = field(default_factory=list)
    notebooks: list[tuple[str, Path, Path]] = field(default_factory=list)
    users: dict[str, int] | None = None
    columns: list[str] = field(default_factory=list)
    stopped: str = ""      # why the grade stopped before the end ("" when it did not)


def grade(submissions: str | Path, out: str | Path = "grades",
          options: GradeOptions | None = None, **option_values) -> list[Grade]:
    """Grade every learner of ``submissions`` on every exercise (or ``options.only``) and, with
    ``notebooks``, run each learner's notebooks; write grades.csv, details.json and report.html
    into ``out``, once every learner's process is gone. Returns the grades. Options as a
    :class:`GradeOptions` or by name. Every check's workers and every notebook run in the sandbox
    (:mod:`..sandbox`; ``sandbox=False``: not, on a machine that holds nothing else). Run by root,
    each learner's notebooks run as a user id of their own that no account has (see
    :func:`.notebooks.notebook_users`), unless ``notebooks_as_root``."""
    from ... import stopping
    from ...exercises import exercises, get

    stopping.resume()      # a grade stopped before this one (in this process) started nothing since
    opts = replace(options or GradeOptions(), **option_values)
    submissions = Path(submissions)
    names = opts.only or [ex.name for ex in exercises()]
    for name in names:
        try:
            get(name)
        except KeyError as e:
            raise GradeUsageError(e.args[0]) from None
    out = Path(out)
    if out.resolve().is_relative_to(submissions.resolve()) and submissions.is_dir():
        raise GradeUsageError(f"--out {out} is inside the submissions: the grader never writes "
                              f"there; choose another folder")
    _say_how_it_runs(opts.sandbox)
    tmp = Path(tempfile.mkdtemp(prefix="course-grade-"))
    try:   # removed at any depth: a learner's notebook may nest folders past the recursion limit
        hidden = [tmp.resolve(), out.resolve(), submissions.resolve()] if opts.sandbox else None
        grades, everyone, columns, stopped = _grade_in(submissions, tmp, names, opts, hidden)
    finally:
        remove_tree(tmp)
    order = {n: i for i, n in enumerate(columns)}
    grades.sort(key=lambda g: (g.learner, order[g.exercise]))
    write_outputs(grades, everyone, columns, out)
    if stopped:
        print(f"The grade was {stopped}: what was graded is in {out}; the rest is marked "
              f"\"timed out\".", flush=True)
        if stopped.startswith("interrupted"):
            raise Interrupted(stopped)
    return grades


def _say_how_it_runs(sandbox: bool) -> None:
    """Refuse to grade where the sandbox cannot run (unless told not to use it); say what it
    cannot do here."""
    if sandbox:
        from ..sandbox import why_not
        why = why_not()
        if why is not None:
            raise GradeUsageError(f"the sandbox cannot run here: {why}. Learners' kernels and "
                                  f"notebooks are hostile input: install it, or grade with "
                                  f"--no-sandbox, only on a machine that holds nothing else")
        if os.name == "posix" and os.geteuid() != 0:
            from ..scratch import WHY_NOT, can_mount
            why = WHY_NOT[0] if WHY_NOT else "it was not started from its command line"
            space = ("each worker's folder a tmpfs of its own (--scratch-mb)" if can_mount() else
                     f"each worker's folder on the disk, bounded file by file only (no mounts of "
                     f"its own: {why}; see helpers/checking/scratch.py)")
            print(f"grading as an ordinary user: each learner's work runs in the sandbox, but as "
                  f"you (not as a user of its own), its processes bounded by your own limit on "
                  f"processes (no control groups), {space}", flush=True)
    else:
        print("grading without the sandbox: learners' kernels and notebooks run with this "
              "process's rights, its network and its view of the files", flush=True)


def _grade_in(submissions: Path, tmp: Path, names: list[str], opts: GradeOptions,
              hidden: list[Path] | None) -> tuple[list[Grade], list[str], list[str], str]:
    """The grading itself, in the temporary folder ``tmp`` (see :func:`grade`); ``hidden``: the
    folders the sandbox hides (None: no sandbox)."""
    from ... import workers
    from ..sandbox import GradingSandbox
    workers.SANDBOX = GradingSandbox(hidden, scratch_mb=opts.scratch_mb) if hidden is not None \
        else None
    work = None
    try:
        work = _take_in(submissions, tmp, names, opts)
        if opts.notebooks:
            _take_in_notebooks(work, tmp)
        _run(work, opts, hidden)
        everyone = sorted([*work.found, *work.refused])
        return (with_kernel_verdicts(work.grades, work.notebooks), everyone, work.columns,
                work.stopped)
    finally:
        if workers.SANDBOX is not None:
            for learner in (work.found if work is not None else ()):
                workers.POOL.close(owner=learner)
            workers.SANDBOX.close()
        workers.SANDBOX = None


def _take_in(submissions: Path, tmp: Path, names: list[str], opts: GradeOptions) -> _Work:
    """The learners found, and a private copy of each kernel they handed in: checks never read a
    file a learner's folder still holds."""
    skipped: list[str] = []
    if submissions.is_file() and submissions.name.endswith(ARCHIVES):
        root = unpack(submissions, tmp / "unpacked", opts.max_archive_mb, skipped)
    elif submissions.is_file():
        raise GradeUsageError(f"{submissions} is neither a folder nor an archive "
                              f"({', '.join(ARCHIVES)})")
    else:
        root = submissions
    found, refused = learners(root)
    work = _Work(root, found, refused, columns=list(names))
    for learner, why in refused.items():     # refused for that learner alone, with why
        work.grades += [Grade(learner, name, "missing", f"nothing of this learner's was graded: "
                              f"{why}") for name in names]
    for learner, folder in work.found.items():
        mine = tmp / "kernels" / learner
        mine.mkdir(parents=True)
        for name in names:
            src = folder / "kernels" / f"{name}.cl"
            if not os.path.lexists(src):
                work.grades.append(Grade(learner, name, "missing",
                                         _missing(learner, name, root, tmp, skipped)))
                continue
            try:   # a regular file within its size, never through a link
                data = read_regular(src, KERNEL_BYTES, f"kernels/{name}.cl")
            except RefusedFile as e:
                work.grades.append(Grade(learner, name, "failed", f"{e}: it was not graded"))
                continue
            (mine / f"{name}.cl").write_bytes(data)
            work.kernels.append((learner, name, mine / f"{name}.cl"))
    work.users = notebook_users(list(work.found)) \
        if opts.notebooks and not opts.notebooks_as_root else None
    if work.users:
        refusal = python_refused(next(iter(work.users.values())), sandboxed=opts.sandbox)
        if refusal:
            raise GradeUsageError(refusal)
    return work


def _take_in_notebooks(work: _Work, tmp: Path) -> None:
    """A column per notebook of the course; a copy of the course per learner's notebook (what one
    notebook writes, another never runs with), handed to the learner's user id."""
    from ...kernels import ROOT
    stems = [nb.stem for nb in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    work.columns += [f"notebook {stem}" for stem in stems]
    for learner, why in work.refused.items():
        work.grades += [Grade(learner, f"notebook {stem}", "missing",
                              f"nothing of this learner's was graded: {why}") for stem in stems]
    for learner, folder in work.found.items():
        for stem in stems:
            if not (folder / "notebooks" / f"{stem}.ipynb").is_file():
                work.grades.append(Grade(learner, f"notebook {stem}", "missing",
                                         f"notebooks/{stem}.ipynb was not handed in"))
                continue
            copy = course_copy(folder, tmp / "courses" / learner / stem)
            if work.users:
                hand_over(copy, work.users[learner], tmp)
            work.notebooks.append((learner, copy, copy / "notebooks" / f"{stem}.ipynb"))


def _run(work: _Work, opts: GradeOptions, hidden: list[Path] | None) -> None:
    """The checks and notebooks, ``opts.jobs`` at once; a speed target is judged on timings taken
    one at a time, never beside other checks."""
    from tqdm.auto import tqdm

    from ...exercises import get
    todo = work.kernels
    alone = [t for t in todo if opts.require_speed and get(t[1]).performance is not None]
    together = [t for t in todo if t not in alone]
    jobs = max(1, opts.jobs or os.cpu_count() or 1)
    bar = tqdm(total=len(todo) + len(work.notebooks), desc="grading", disable=not opts.progress,
               delay=1.0)
    owners = _Owners([lr for lr, _, _ in together + alone])
    users = work.users
    ends = time.monotonic() + opts.total_timeout
    pool = ThreadPoolExecutor(max_workers=jobs)
    futures = {pool.submit(grade_one, lr, path, ex, opts.require_speed, opts.run_timeout,
                           owners): (lr, ex) for lr, ex, path in together}
    futures.update({pool.submit(grade_notebook, lr, copy, nb, opts.notebook_timeout,
                                users[lr] if users else None, hidden):
                    (lr, f"notebook {nb.stem}") for lr, copy, nb in work.notebooks})
    left = [(lr, ex, path) for lr, ex, path in alone]
    try:
        for f in as_completed(futures, timeout=max(0.0, ends - time.monotonic())):
            work.grades.append(_row(f.result, *futures.pop(f)))
            bar.update()
        while left and time.monotonic() < ends:
            lr, ex, path = left.pop(0)
            work.grades.append(_row(partial(grade_one, lr, path, ex, opts.require_speed,
                                            opts.run_timeout, owners), lr, ex))
            bar.update()
        if left:
            raise TimeoutError
    except (KeyboardInterrupt, TimeoutError) as e:
        work.stopped = "interrupted (Ctrl-C)" if isinstance(e, KeyboardInterrupt) else \
            f"past the grade's overall cap of {opts.total_timeout:g} s"
        _stop(pool, futures, work, left)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        bar.close()


def _stop(pool, futures: dict, work: _Work, left: list) -> None:
    """Stop the grade now: every worker killed (their checks end at once), nothing new started;
    what had finished keeps its grade, the rest is that learner's row, "timed out" and why."""
    from ... import stopping
    for f in futures:
        f.cancel()
    stopping.stop_all(work.found)   # for the rest of this grade: threads that go on start nothing
    pool.shutdown(wait=True, cancel_futures=True)
    for f, (lr, column) in futures.items():
        done = f.done() and not f.cancelled() and f.exception() is None
        graded = f.result() if done else None
        if graded is not None and graded.status in ("passed", "missing"):
            work.grades.append(graded)
        else:
            work.grades.append(Grade(lr, column, "timed out", f"not graded: the grade was "
                                                              f"{work.stopped}"))
    work.grades += [Grade(lr, ex, "timed out", f"not graded: the grade was {work.stopped}")
                    for lr, ex, _ in left]


def _row(graded, learner: str, column: str) -> Grade:
    """``graded()``'s grade (a future's ``result``, or a partial), or, where grading this one
    piece of a learner's work raised (its clean-up, a worker's crash, anything), that learner's
    row with the reason: one learner's work never stops the grading of the class."""
    try:
        return graded()
    except Exception as e:   # noqa: BLE001  (any failure is this learner's row, not the grade's)
        reason = f"{type(e).__name__}: {e}".strip().splitlines()[0][:300]
        return Grade(learner, column, "crashed", f"its grading crashed ({reason}); the rest of "
                                                 f"the class was graded")


def with_kernel_verdicts(grades: list[Grade], notebook_work: list[tuple[str, Path, Path]]
                         ) -> list[Grade]:
    """A notebook whose cells all ran passes only if every exercise it checks passed the grader's
    own check of the handed-in kernel (what the notebook's code says of its checks is not
    trusted: it runs the learner's code)."""
    from .judging import judged
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
