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
