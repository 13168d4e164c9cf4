"""Write every exercise's hints, from the registry, into its notebook's hint cell.

    python tools/sync_exercise_cells.py [--check]

The registry's ``Exercise.hints`` are the only source of the hints (see
helpers/checking/exercises/cells.py). In each exercise's hint cell (the markdown cell nearest before
its check that holds hint blocks) this replaces everything from the first
``<details><summary>Hint`` to the last hint's or the solution's ``</details>`` with
``hints_markdown``: the hints one collapsible each, then the solution. Prose before and after the
blocks is kept. An exercise with no hint cell gets the blocks at the end of the markdown cell just
before its check. Nothing else of a notebook changes, and outputs stay empty.

``--check``: change nothing, list the cells that differ, exit 1 if any do (0 if none).
``--no-solutions``: leave the solution block out (a copy of the course without solutions/, as on a
graded day: the notebooks would otherwise still hold every solution).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.checking.exercises import exercises  # noqa: E402
from helpers.checking.exercises.cells import (  # noqa: E402
    hint_cell_or_place,
    set_source,
    source,
    with_hints,
)


def sync(check_only: bool = False, solution: bool = True) -> list[str]:
    """Bring every hint cell in line with the registry (``check_only``: only say which differ;
    ``solution``: with the solution block). Returns 'notebook: exercise (cell N)' for each cell
    that was, or would be, changed."""
    changed: list[str] = []
    notebooks: dict[Path, dict] = {}
    touched: set[Path] = set()
    for ex in sorted(exercises(), key=lambda e: (e.notebook, e.name)):
        path = ROOT / "notebooks" / f"{ex.notebook}.ipynb"
        nb = notebooks.setdefault(path, json.loads(path.read_text(encoding="utf-8")))
        at = hint_cell_or_place(nb["cells"], ex.name)
        if at is None:
            raise SystemExit(f"{path.name} has no markdown cell before a check of {ex.name}")
        cell = nb["cells"][at]
        text = with_hints(source(cell), ex, solution=solution)
        if text != source(cell):
            changed.append(f"{path.name}: {ex.name} (cell {at})")
            set_source(cell, text)
            touched.add(path)
    if not check_only:
        for path in sorted(touched):
            with path.open("w", encoding="utf-8") as f:
                json.dump(notebooks[path], f, indent=1, ensure_ascii=False)
                f.write("\n")
    return changed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 if a hint cell differs from the registry")
    ap.add_argument("--no-solutions", action="store_true",
                    help="leave the solution blocks out (a copy without solutions/)")
    args = ap.parse_args()
    changed = sync(check_only=args.check, solution=not args.no_solutions)
    verb = "differs" if args.check else "rewritten"
    for line in changed:
        print(f"{verb}: {line}")
    if not changed:
        print("every hint cell agrees with the registry")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
