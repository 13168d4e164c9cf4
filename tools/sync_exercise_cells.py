"""Write every exercise's hints (from the registry) and its ``%%kernel NAME`` cell (over the skeleton
in kernels/) into its notebook, the skeletons' digests into helpers/data/skeletons.json, and the
contract tables (from the records) into docs/design.md and docs/checks.md, and each notebook's
exercises into the README's course map.

    python tools/sync_exercise_cells.py [--check]

Run it in a clean checkout: it reads the skeletons from kernels/. An exercise's code cell that is
``check("NAME")`` alone becomes its ``%%kernel NAME`` cell.

The registry's ``Teaching.hints`` are the only source of the hints (see
helpers/exercises/cells.py). In each exercise's hint cell (the markdown cell nearest before
its check that holds hint blocks) this replaces everything from the first
``<details><summary>Hint`` to the last hint's or the solution's ``</details>`` with
``hints_markdown``: the hints one collapsible each, then the solution. Prose before and after the
blocks is kept. An exercise with no hint cell gets the blocks at the end of the markdown cell just
before its check. Nothing else of a notebook changes, and outputs stay empty.

The contract tables (NAME | signature | what it must do) lie between the markers
``<!-- contract-table: ... -->`` and ``<!-- end of contract-table -->``: every exercise's in
docs/design.md section 4, the performance exercises' in docs/checks.md; only what lies between the
markers is replaced (see ``contract_tables`` in helpers/exercises/cells.py).

The README's course map (``| `NN-notebook` | concept | exercises |``) gets its last column, the
notebook's exercises, from the records; its concept column is the author's.

``--check``: change nothing, list the cells and tables that differ, exit 1 if any do (0 if none).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.exercises import exercises
from helpers.exercises.cells import (
    check_cell,
    contract_tables,
    hint_cell_or_place,
    kernel_cell,
    set_source,
    source,
    with_course_map,
    with_hints,
    with_table,
)
from helpers.magic import SKELETONS, digest
from helpers.paths import ROOT


def sync(check_only: bool = False) -> list[str]:
    """Bring every hint cell and exercise cell in line with the registry and kernels/
    (``check_only``: only say which differ), then the contract tables (:func:`sync_tables`).
    Returns 'notebook: exercise (cell N)' for each cell, and the file of each table, that was, or
    would be, changed."""
    changed: list[str] = []
    notebooks: dict[Path, dict] = {}
    touched: set[Path] = set()
    for ex in sorted(exercises(), key=lambda e: (e.teaching.notebook, e.name)):
        path = ROOT / "notebooks" / f"{ex.teaching.notebook}.ipynb"
        nb = notebooks.setdefault(path, json.loads(path.read_text(encoding="utf-8")))
        at = hint_cell_or_place(nb["cells"], ex.name)
        if at is None:
            raise SystemExit(f"{path.name} has no markdown cell before a check of {ex.name}")
        cell = nb["cells"][at]
        text = with_hints(source(cell), ex)
        if text != source(cell):
            changed.append(f"{path.name}: {ex.name} (cell {at})")
            set_source(cell, text)
            touched.add(path)
        code = nb["cells"][check_cell(nb["cells"], ex.name)]
        skeleton = (ROOT / "kernels" / f"{ex.name}.cl").read_text(encoding="utf-8")
        wanted = kernel_cell(ex, skeleton)
        if source(code).strip() in (f'check("{ex.name}")', ) or \
                source(code).startswith("%%kernel") and source(code) != wanted:
            changed.append(f"{path.name}: {ex.name}'s %%kernel cell")
            set_source(code, wanted)
            touched.add(path)
    digests = json.dumps({ex.name: digest((ROOT / "kernels" / f"{ex.name}.cl").read_text())
                          for ex in exercises()}, indent=1, sort_keys=True) + "\n"
    if SKELETONS.read_text() != digests:
        changed.append(SKELETONS.name)
        if not check_only:
            SKELETONS.write_text(digests)
    if not check_only:
        for path in sorted(touched):
            with path.open("w", encoding="utf-8") as f:
                json.dump(notebooks[path], f, indent=1, ensure_ascii=False)
                f.write("\n")
    return changed + sync_tables(check_only)


def sync_tables(check_only: bool = False) -> list[str]:
    """Bring the contract tables of docs/design.md and docs/checks.md, and the exercises column
    of the README's course map, in line with the records (``check_only``: only say which
    differ). Returns the files that were, or would be, changed."""
    changed = []
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if with_course_map(text) != text:
        changed.append("README.md: the course map's exercises")
        if not check_only:
            readme.write_text(with_course_map(text), encoding="utf-8")
    for relative, table in contract_tables().items():
        path = ROOT / relative
        text = path.read_text(encoding="utf-8")
        try:
            wanted = with_table(text, table)
        except ValueError as e:
            raise SystemExit(f"{relative}: {e}") from None
        if wanted != text:
            changed.append(f"{relative}: the contract table")
            if not check_only:
                path.write_text(wanted, encoding="utf-8")
    return changed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 if a cell or a table differs from the registry")
    args = ap.parse_args()
    changed = sync(check_only=args.check)
    verb = "differs" if args.check else "rewritten"
    for line in changed:
        print(f"{verb}: {line}")
    if not changed:
        print("every hint cell, exercise cell and contract table agrees with the registry and "
              "kernels/")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
