"""The notebook cells and the tables made from the registry: an exercise's hints, one collapsible
each, then where its solution is (docs/design.md section 5: "hints one at a time, check, a solution
to reveal"), and its ``%%kernel NAME`` cell over the starting kernel; and the contract tables of
docs/design.md (section 4, every exercise) and of docs/checks.md (the performance exercises), made from
each record's arguments and ``contract``. The records are the only source;
``tools/sync_exercise_cells.py`` writes them into the notebooks and the two Markdown files, and
``tests/test_exercises.py`` checks that they agree.

The standard library and the registry only: the notebooks are read as JSON, nothing is run.
"""

from __future__ import annotations

import re
import textwrap

from .model import Exercise, exercises, parameters

WIDTH = 100   # the notebooks' prose is wrapped at 100 columns

# One hint or the solution, as a collapsible; what the sync replaces (the ones before a check).
BLOCK = re.compile(r"<details>\s*<summary>(?:Hint(?: \d+)?|Solution)</summary>.*?</details>",
                   re.DOTALL)
# Code that checks an exercise: check("NAME" ...) (not run_check), or a %%kernel NAME cell.
_CHECK = r"(?<!\w)check\(\s*[\"']{name}[\"']"
_KERNEL = r"\A\s*%%kernel\s+{name}\b"


def _wrapped(text: str) -> str:
    """``text`` wrapped at :data:`WIDTH`, never inside a `code span`."""
    spans = re.split(r"(`[^`]*`)", text)
    glued = "".join(s.replace(" ", "\0") if s.startswith("`") else s for s in spans)
    lines = textwrap.wrap(glued, WIDTH, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines).replace("\0", " ")


def hints_markdown(ex: Exercise) -> str:
    """The Markdown of the exercise's hint cell, less any prose around it: one collapsible per
    hint of ``ex.teaching.hints``, then one that says where the course's solution is. The solution itself
    is never copied into a notebook: ``solutions/NAME.cl`` is its one place, and a graded day's
    copy of the course, which leaves solutions/ out, then holds no solution anywhere."""
    blocks = [f"<details><summary>Hint {k}</summary>\n\n{_wrapped(h)}\n</details>"
              for k, h in enumerate(ex.teaching.hints, 1)]
    blocks.append("<details><summary>Solution</summary>\n\n"
                  + _wrapped(f"The course's solution: `solutions/{ex.name}.cl` (or `python -m "
                             f"helpers hint {ex.name} --solution`).") + "\n</details>")
    return "\n".join(blocks)


def kernel_cell(ex: Exercise, skeleton: str) -> str:
    """The exercise's code cell: ``%%kernel NAME`` over its starting kernel (``skeleton``, the text
    of the shipped ``kernels/NAME.cl``): run as it is, it checks the file; written in, it saves
    and checks the cell (:mod:`helpers.magic`)."""
    return f"%%kernel {ex.name}\n{skeleton.strip()}"


def hint_span(text: str) -> tuple[int, int] | None:
    """Where a markdown cell's hint and solution blocks lie: from the first one's
    ``<details>`` to the last one's ``</details>`` (None if it has none)."""
    blocks = list(BLOCK.finditer(text))
    return (blocks[0].start(), blocks[-1].end()) if blocks else None


def with_hints(text: str, ex: Exercise) -> str:
    """A markdown cell's text with its hint blocks replaced by :func:`hints_markdown` (the prose
    before and after kept), or with them added at its end where it has none."""
    md = hints_markdown(ex)
    span = hint_span(text)
    if span is None:
        return f"{text.rstrip()}\n\n{md}" if text.strip() else md
    return text[:span[0]] + md + text[span[1]:]


def source(cell: dict) -> str:
    s = cell.get("source", "")
    return s if isinstance(s, str) else "".join(s)


def _checks(cell: dict, name: str) -> bool:
    """Whether ``cell`` is code that checks an exercise whose name matches the pattern ``name``."""
    if cell.get("cell_type") != "code":
        return False
    text = source(cell)
    return bool(re.search(_CHECK.format(name=name), text)
                or re.search(_KERNEL.format(name=name), text))


def _checks_any(cell: dict) -> bool:
    return _checks(cell, r"\w+")


def check_cell(cells: list[dict], name: str) -> int | None:
    """The index of the first code cell that checks exercise ``name``."""
    return next((i for i, c in enumerate(cells) if _checks(c, re.escape(name))), None)


def _cells_before_check(cells: list[dict], name: str) -> list[int]:
    """The markdown cells between the check of ``name`` and the code that checks an exercise
    before it, nearest first."""
    at = check_cell(cells, name)
    if at is None:
        return []
    out = []
    for i in range(at - 1, -1, -1):
        if _checks_any(cells[i]):
            break
        if cells[i].get("cell_type") == "markdown":
            out.append(i)
    return out


def hint_cell(cells: list[dict], name: str) -> int | None:
    """The index of exercise ``name``'s hint cell: the markdown cell nearest before its check that
    holds hint blocks (none from an earlier exercise's)."""
    return next((i for i in _cells_before_check(cells, name) if hint_span(source(cells[i]))),
                None)


def hint_cell_or_place(cells: list[dict], name: str) -> int | None:
    """The hint cell, or where there is none the markdown cell just before the check, which is to
    hold the hints."""
    found = hint_cell(cells, name)
    if found is not None:
        return found
    before = _cells_before_check(cells, name)
    return before[0] if before else None


def set_source(cell: dict, text: str) -> None:
    """Set a cell's text, in the form (one string, or a list of lines) the cell had."""
    cell["source"] = text if isinstance(cell.get("source"), str) else \
        text.splitlines(keepends=True)


# ---------------------------------------------------------------------------------------------------
# The contract tables.

TABLE_START = ("<!-- contract-table: generated by tools/sync_exercise_cells.py from helpers/exercises; "
               "do not edit here -->")
TABLE_END = "<!-- end of contract-table -->"


def contract_table(exs: list[Exercise]) -> str:
    """The Markdown table NAME | signature | what it must do of ``exs``, in their order: the
    signature is the kernel's parameter list, the third column the record's ``contract``. A row
    is made of its own exercise alone: it reads the same whatever exercises surround it (it once
    said "same as" an exercise above, and adding one before it changed a public interface)."""
    rows = ["| NAME | signature | what it must do |", "|---|---|---|"]
    rows += [contract_row(ex) for ex in exs]
    return "\n".join(rows)


def contract_row(ex: Exercise) -> str:
    """``ex``'s row of the contract tables."""
    return f"| `{ex.name}` | `{parameters(ex)}` | {ex.contract} |"


def contract_tables() -> dict[str, str]:
    """File (relative to the course folder) -> the contract table it holds between
    :data:`TABLE_START` and :data:`TABLE_END`: docs/design.md every exercise's, docs/checks.md
    the performance exercises'."""
    course = exercises()
    return {"docs/design.md": contract_table(course),
            "docs/checks.md": contract_table([ex for ex in course if ex.performance is not None])}


def table_span(text: str) -> tuple[int, int] | None:
    """Where the generated table lies in ``text``: after the start marker's line, up to the end
    marker (None where the markers are missing)."""
    start = text.find(TABLE_START)
    end = text.find(TABLE_END, start + 1)
    if start < 0 or end < 0:
        return None
    return start + len(TABLE_START) + 1, end


def with_table(text: str, table: str) -> str:
    """``text`` with the part between the markers replaced by ``table``, between blank lines (a
    line right after a table would be read as one of its rows)."""
    span = table_span(text)
    if span is None:
        raise ValueError(f"no {TABLE_START!r} ... {TABLE_END!r} markers")
    return text[:span[0]] + "\n" + table + "\n\n" + text[span[1]:]


# A row of the README's course map: | `NN-notebook` | concept | exercises |
MAP_ROW = re.compile(r"^(\| `(\d\d-[a-z0-9-]+)` \|[^|\n]*\|)[^|\n]*(\|)[ \t]*$", re.M)


def with_course_map(text: str) -> str:
    """The README's ``text`` with each course-map row's last column (the notebook's exercises, in
    the registry's order) made from the records; the rest of the row is the author's."""
    by_notebook: dict[str, list[str]] = {}
    for ex in exercises():
        by_notebook.setdefault(ex.teaching.notebook, []).append(f"`{ex.name}`")

    def row(m: re.Match) -> str:
        return f"{m.group(1)} {', '.join(by_notebook.get(m.group(2), [])) or '-'} {m.group(3)}"
    return MAP_ROW.sub(row, text)
