"""Where the course's files are: the course folder, the learner's kernels/, solutions/, the reference
results the course reads, the package's data, and a path as the learner reads it. Imports nothing of
the course (every module may use it): the one place that computes the course folder."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"
SOLUTIONS = ROOT / "solutions"
HELPERS_CL = ROOT / "helpers" / "cl"
DATA = ROOT / "helpers" / "data"            # the package's data files (shipped with it)
RESULTS = ROOT / "results" / "reference"    # measured results the course reads (results/README.md)


def display_path(path: Path | str) -> str:
    """A path as the learner reads it: relative to the course folder when inside it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def remove_tree(path: Path | str) -> None:
    """Remove a folder and everything in it, however deep, without following links and without
    raising: a learner's code may leave thousands of nested folders, past Python's recursion limit
    (``shutil.rmtree`` then raises RecursionError) and past the longest path the system takes.
    GNU and BSD ``rm -rf`` walk any depth relative to each folder; without ``rm`` (Windows),
    ``shutil.rmtree`` with a raised recursion limit. Whatever cannot be removed stays."""
    import shutil
    import subprocess
    import sys

    target = Path(path)
    if not target.exists() and not target.is_symlink():
        return
    rm = shutil.which("rm")
    if rm is not None:
        subprocess.run([rm, "-rf", "--", str(target)], stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        return
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 100_000))
        shutil.rmtree(target, ignore_errors=True)
    except RecursionError:
        pass
    finally:
        sys.setrecursionlimit(limit)
