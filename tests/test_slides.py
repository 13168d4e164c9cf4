"""Issue 56 point 1: every notebook's deck builds from the notebook itself, lays out what an
instructor projects (the concept, its figure, the prediction and then its answer, the live demo,
the exercise and then a solution; never a hint), and loads nothing from the network."""

from __future__ import annotations

import json
import re

import pytest

from helpers import slides
from helpers.paths import ROOT

pytestmark = pytest.mark.once

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


@pytest.fixture(scope="module")
def decks(tmp_path_factory):
    out = tmp_path_factory.mktemp("slides")
    written = slides.build(out)
    return out, written


def test_every_notebook_has_a_deck_and_reveal_beside_it(decks):
    out, written = decks
    assert {p.name for p in written if p.name.endswith(".slides.html")} == \
        {f"{nb.stem}.slides.html" for nb in NOTEBOOKS}
    assert (out / "reveal" / "dist" / "reveal.js").is_file()
    assert (out / "reveal" / "LICENSE").is_file()


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_a_deck_loads_nothing_from_the_network(decks, notebook):
    html = (decks[0] / f"{notebook.stem}.slides.html").read_text(encoding="utf-8")
    # the guide's plan in the speaker's view (reveal.js's notes, S)
    assert '<aside class="notes">' in html and "Demonstrate live" in html
    loads = re.findall(r"<(?:script|link|img)\b[^>]*\b(?:src|href)\s*=\s*[\"']([^\"']+)", html)
    remote = [u for u in loads if re.match(r"(?:https?:)?//", u)]
    assert remote == [], remote
    assert "@import" not in (decks[0] / "reveal" / "dist" / "theme" / "white.css").read_text()


def _cells(notebook):
    return [("".join(c["source"]) if isinstance(c["source"], list) else c["source"], c["cell_type"])
            for c in json.loads(notebook.read_text(encoding="utf-8"))["cells"]]


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_a_deck_lays_out_the_lesson_for_the_room(notebook):
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    laid = slides.layout(nb, slides.drawer(slides.imports_of(nb)))
    kinds = [(c["metadata"]["slideshow"]["slide_type"], slides._source(c)) for c in laid["cells"]]
    text = "\n".join(t for _, t in kinds)
    assert kinds[0][0] == "slide" and kinds[0][1].startswith("# ")
    assert "<summary>Hint" not in text and "<details>" not in text
    for source, kind in _cells(notebook):
        heading = re.match(r"## (.+)", source)
        if kind == "markdown" and heading:
            assert ("slide", source.split("\n\n")[0].strip()) in \
                [(k, t.split("\n\n")[0].strip()) for k, t in kinds], heading.group(1)
        exercise = re.match(r"%%kernel (\w+)", source)
        if exercise:                       # the exercise, then the course's solution after it
            name = exercise.group(1)
            at = next(i for i, (_, t) in enumerate(kinds) if f"**Exercise `{name}`:**" in t)
            assert any(f"solutions/{name}.cl" in t for _, t in kinds[at:])
        question = re.search(r"""predict\(\s*["'][^"']*["']\s*,\s*["']([^"']*)""", source)
        if question:                        # asked on a slide of its own, answered on a later one
            asked = next(i for i, (k, t) in enumerate(kinds) if k == "subslide" and (
                question.group(1) in t or t.lstrip().startswith("**Predict:**")))
            assert any(t.startswith("**Answer.**") for _, t in kinds[asked + 1:])
    figures = sum(1 for s, k in _cells(notebook) if k == "code" and slides._FIGURE.search(s))
    drawn = sum(1 for c in laid["cells"] if c["cell_type"] == "code" and c.get("outputs"))
    assert drawn >= figures - 1, (drawn, figures)     # at most one needs the notebook's state
