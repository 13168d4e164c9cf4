"""Issue 56 points 2, 5 and 6: a facilitator's guide per notebook, with its minutes; its
misconceptions are the checker's likely mistakes in the class view's words (made by
tools/sync_guide.py, never stale); the class view links each tallied mistake to its entry and
says which notebook the room is on."""

from __future__ import annotations

import json
import re

import pytest

from helpers import guide
from helpers.exercises import exercises
from helpers.hub.service import main_html
from helpers.hub.store import Cell, ClassState
from helpers.paths import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
SECTIONS = ("## Teach", "## Demonstrate live", "## Questions for the room",
            "## When a laptop cannot run a cell", "## Misconceptions to expect")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_notebook_has_a_guide_with_its_minutes_and_sections(notebook):
    path = guide.GUIDES / f"{notebook.stem}.md"
    assert path.is_file(), f"no facilitator's guide for {notebook.stem}: write {path}"
    text = path.read_text(encoding="utf-8")
    teach, work = guide.minutes(notebook.stem)
    assert 5 <= teach <= 60 and 0 <= work <= 90 and 15 <= teach + work <= 120, (teach, work)
    at = [text.find(s) for s in SECTIONS]
    assert all(a >= 0 for a in at) and at == sorted(at), dict(zip(SECTIONS, at, strict=True))
    questions = text[at[2]:at[3]]
    assert len(re.findall(r"^\d+\. ", questions, re.M)) >= 2
    assert questions.count("*Answer:*") >= 2


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_the_live_demos_name_cells_the_notebook_has(notebook):
    text = (guide.GUIDES / f"{notebook.stem}.md").read_text(encoding="utf-8")
    demos = text[text.find("## Demonstrate live"):text.find("## Questions for the room")]
    cells = ["".join(c["source"]) for c in json.loads(notebook.read_text())["cells"]
             if c["cell_type"] == "code"]
    named = [s for s in re.findall(r"`([^`\n]{8,})`", demos) if "(" in s or "=" in s]
    found = [s for s in named if any(c.lstrip().startswith(s.rstrip(".")) or s in c
                                     for c in cells)]
    assert named and found, f"{notebook.stem}: no cell named by the text it starts with"


def test_every_guides_misconceptions_are_the_checkers_now():
    stale = [p.name for p in sorted(guide.GUIDES.glob("[0-9][0-9]-*.md"))
             if guide.synced(p.read_text(encoding="utf-8"), p.stem) !=
             p.read_text(encoding="utf-8")]
    assert stale == [], f"run python tools/sync_guide.py: stale {stale}"


def test_every_named_mistake_links_to_its_entry():
    """The class view tallies a named mistake as its sentence's first clause, with the case's
    sizes in it: each links to the entry of that mistake in its notebook's guide."""
    checked = 0
    for ex in exercises():
        stem = guide.notebook_of(ex.name)
        page = (guide.GUIDES / f"{stem}.md").read_text(encoding="utf-8")
        for m in ex.teaching.mistakes:
            said = re.sub(r"\{[^}]*\}", "37", m.message)
            tallied = re.split(r"[.:;]", said)[0].strip()
            where = guide.link(ex.name, tallied)
            anchor = where.split("#")[1]
            assert where.startswith(f"guide/{stem}#") and f'id="{anchor}"' in page, \
                (ex.name, m.name, where)
            assert anchor.startswith(ex.name) and anchor != "misconceptions-to-expect"
            checked += 1
    assert checked > 40
    assert guide.link("float_copy", "does not compile").endswith("#misconceptions-to-expect")


def test_the_class_view_links_mistakes_to_the_guide_and_says_where_the_room_is():
    transpose = next(ex for ex in exercises() if ex.name == "transpose")
    tallied = re.split(r"[.:;]", transpose.teaching.mistakes[0].message)[0]
    cells = {("ann", "transpose"): Cell(attempts=2, failed=2, first=1.0, last=9.0,
                                        last_mistake=tallied),
             ("ann", "float_copy"): Cell(attempts=1, first=0.5, last=0.5),
             ("ben", "transpose"): Cell(attempts=1, failed=1, first=2.0, last=3.0),
             ("cid", "float_copy"): Cell(attempts=1, first=1.0, last=1.0)}
    state = ClassState(["ann", "ben", "cid"], ["float_copy", "transpose"], cells,
                       mistakes={"transpose": [(tallied, 1)]}, now=10.0)
    page = main_html(state, {"stuck_minutes": 10, "stuck_fails": 3, "recheck": True,
                             "guide_base": "/services/class-view/guide/"})
    stem = guide.notebook_of("transpose")
    assert f"href='/services/class-view/guide/{stem}#transpose-copied'" in page
    room = re.search(r"<p id=\"room\">(.*?)</p>", page, re.S).group(1)
    assert room.index(stem) < room.index(guide.notebook_of("float_copy"))   # two learners there
    assert "2 learners" in room
    served = guide.page(stem)
    assert 'id="transpose-copied"' in served and 'id="misconceptions-to-expect"' in served
    assert guide.page("../etc/passwd") is None


def test_the_days_are_built_from_the_guides_minutes():
    """Issue 56 point 3: docs/instructors.md's table of minutes and its three-day plan give each
    notebook the teaching and working minutes of its guide (a notebook split over two slots adds
    up to them), and the one-day plan is about notebooks 00 to 03 and one more."""
    text = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    table = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in re.finditer(
        r"^\| `(\d\d-[\w-]+)` \| \d+ \| (\d+) / (\d+) \|", text, re.M)}
    assert table == {nb.stem: guide.minutes(nb.stem) for nb in NOTEBOOKS}
    three = text[text.index("### Three days"):text.index("### Shorter workshops")]
    planned: dict[str, list[int]] = {}
    for m in re.finditer(r"^\| \d \| \d\d:\d\d \| `(\d\d-[\w-]+)`[^|]*\| (\d+) / (\d+) \|", three,
                         re.M):
        got = planned.setdefault(m.group(1), [0, 0])
        got[0], got[1] = got[0] + int(m.group(2)), got[1] + int(m.group(3))
    assert {k: tuple(v) for k, v in planned.items()} == table
    one = text[text.index("### One day"):text.index("### Three days")]
    day = re.findall(r"^\| \d\d:\d\d \| `(\d\d)-", one, re.M)
    assert day[:4] == ["00", "01", "02", "03"] and len(day) <= 5
