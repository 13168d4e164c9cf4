"""A class's grades written out: ``grades.csv`` (a row per learner, a column per exercise),
``details.json`` (every diagnosis) and ``report.html`` (the class as a colored matrix; per exercise the
share that passed and the most common likely mistake), and the summary the command prints."""

from __future__ import annotations

import csv
import html
import json
import unicodedata
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from ...wording import plural

# "not judged": right results, but the technique an exercise is about could not be judged here
# (no warp model): never counted as passed
STATUSES = ("passed", "failed", "missing", "crashed", "timed out", "not judged")


@dataclass
class Grade:
    learner: str
    exercise: str
    status: str
    message: str = ""
    seed: int | None = None
    mistake: str = ""


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
          "timed out": "#fff59d", "not judged": "#b3e5fc"}


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
    letter = {"passed": "P", "failed": "F", "missing": "-", "crashed": "C", "timed out": "T",
              "not judged": "J"}
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
