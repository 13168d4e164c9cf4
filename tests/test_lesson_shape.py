"""The shape of a lesson (docs/design.md), measured from the committed notebooks: at most 1,200 words
of prose each and a median of 800; objectives, prerequisites and a time of at most 45 minutes first,
a summary and what is next last; a diagram drawn by the course's figure module; a prediction, and
every question followed by its collapsible answer; the glossary linked; the sources cited by title
before their short names; at least 30 exercises, whose hints give ideas, not code; and, where a CPU
cannot show a GPU lesson, one sentence that says so and where to look instead."""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import pytest

from helpers import diagrams
from helpers.exercises import exercises as registered


def exercises():
    """The course's own exercises: those the helpers package defines (a test run also registers
    tests/exercises_for_tests.py's, which belong to no notebook)."""
    return [ex for ex in registered() if ex.reference.__module__.startswith("helpers.")]

pytestmark = pytest.mark.once   # the committed notebooks and the registry: no device

from helpers.paths import ROOT  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ANSWER = "<details><summary>Answer</summary>"
# the notebooks whose concept is a GPU's (warps, occupancy, registers, coalescing, banks, branches)
GPU_LESSONS = ("02-work-groups", "05-occupancy-and-latency", "06-registers-and-unrolling",
               "08-coalescing", "09-bank-conflicts", "10-divergence")
# a short name may stand for a source only after the source was named in full in that notebook
SOURCES = {
    "the training": "GPGPU Training",
    "the whitepaper": "OpenCL Programming for the CUDA Architecture",
    "Holk's post": "Access Patterns Matter",
    "Du et al.": "From CUDA to OpenCL",
}


def cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def markdown(path: Path) -> list[str]:
    return [text(c) for c in cells(path) if c["cell_type"] == "markdown"]


def prose_words(path: Path) -> int:
    """Words of prose, counted as the before-stop hook counts them: markdown cells, code blocks and
    HTML tags left out, the text of collapsed answers and hints counted. Only real tags are
    stripped (a name right after the ``<``): a ``<`` in prose or inline code is not a tag."""
    prose = re.sub(r"```.*?```", " ", "\n".join(markdown(path)), flags=re.S)
    tags = r"</?[A-Za-z][A-Za-z0-9]*(\s[^<>]*)?/?>"   # real tags only: `i < n` in prose is text
    return len(re.findall(r"[A-Za-z0-9][\w'-]*", re.sub(tags, " ", prose)))


def ids(paths):
    return [p.stem for p in paths]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_notebook_holds_at_most_1200_words_of_prose(path):
    assert prose_words(path) <= 1200, f"{path.name}: {prose_words(path)} words"


def test_the_median_notebook_holds_at_most_800_words():
    words = {p.stem: prose_words(p) for p in NOTEBOOKS}
    assert statistics.median(words.values()) <= 800, words


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_notebook_opens_with_objectives_prerequisites_time_and_the_glossary(path):
    first = text(cells(path)[0])
    assert first.startswith(f"# {path.stem[:2]} ·"), "the title first"
    for part in ("**You will:**", "**Prerequisites:**", "**Time:**"):
        assert part in first, f"{path.name}: no {part} in the first cell"
    minutes = int(re.search(r"\*\*Time:\*\* about (\d+) minutes", first).group(1))
    from helpers.guide import minutes as guide_minutes
    # the time it states is its facilitator's guide's
    assert minutes == sum(guide_minutes(path.stem)), f"{path.name}: {minutes} minutes"
    assert "(../docs/glossary.md)" in first, f"{path.name}: the glossary is not linked"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_notebook_closes_with_a_summary_and_what_is_next(path):
    last = text(cells(path)[-1])
    assert "## Summary" in last and "**Next:**" in last, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_notebook_draws_a_concept_with_the_figure_module(path):
    called = {name for c in cells(path) if c["cell_type"] == "code"
              for name in re.findall(r"\bdiagrams\.(\w+)\(", text(c))}
    assert called, f"{path.name} draws no diagram"
    assert all(callable(getattr(diagrams, name, None)) for name in called), called


# the exercises whose technique is new where they stand (issue 54 point 1): each gets a drawing
TECHNIQUE_EXERCISES = ("erosion_1d_local", "transpose", "bank_fix", "divergence_fix", "spill_fix",
                       "parallel_sum", "mat_vec_mul", "sgemm_tiled", "histogram")


def _kernel_cell(cells_: list[dict], name: str) -> int:
    return next(k for k, c in enumerate(cells_) if c["cell_type"] == "code"
                and text(c).startswith(f"%%kernel {name}\n"))


@pytest.mark.parametrize("name", TECHNIQUE_EXERCISES)
def test_a_new_technique_is_drawn_before_its_exercise(name):
    """Between the exercise before it (or the notebook's start) and the exercise's own kernel
    cell, a drawing of the figure module: the lesson shows the technique before it is asked for."""
    from helpers.exercises import get
    all_cells = cells(ROOT / "notebooks" / f"{get(name).teaching.notebook}.ipynb")
    at = _kernel_cell(all_cells, name)
    before = max([k for k, c in enumerate(all_cells[:at]) if c["cell_type"] == "code"
                  and text(c).startswith("%%kernel ")], default=-1)
    drawn = [k for k in range(before + 1, at) if all_cells[k]["cell_type"] == "code"
             and re.search(r"\bdiagrams\.\w+\(", text(all_cells[k]))]
    assert drawn, f"{name}: no diagrams.*( drawing between cell {before} and its kernel cell {at}"


def test_every_technique_lesson_sets_the_model_beside_the_clock():
    """Each exercise that starts from a slow kernel the warp model sees (issue 54 point 3): after
    its kernel cell, its notebook counts the start, the learner's kernel and the solution and times
    them (counters.model_and_times), and draws both (plots.model_beside_time)."""
    from helpers.checking.counters import lesson_exercises
    from helpers.exercises import get
    for name in lesson_exercises():
        all_cells = cells(ROOT / "notebooks" / f"{get(name).teaching.notebook}.ipynb")
        after = [text(c) for c in all_cells[_kernel_cell(all_cells, name) + 1:]
                 if c["cell_type"] == "code"]
        assert any(f'counters.model_and_times(ctx, queue, "{name}")' in t
                   and "plots.model_beside_time(" in t for t in after), name
    # those whose start is a step of a study's ladder, or the exercise before (notebook 03's
    # erosion_1d): the start and the learner's kernel
    for name, start in (("erosion_1d_local", "erosion_1d"),
                        ("parallel_sum", "parallel_sum:sum_local"),
                        ("mat_vec_mul", "mat_vec_mul:mv_item_per_row"),
                        ("sgemm_tiled", "sgemm_tiled:sgemm_plain")):
        all_cells = cells(ROOT / "notebooks" / f"{get(name).teaching.notebook}.ipynb")
        after = [text(c) for c in all_cells[_kernel_cell(all_cells, name) + 1:]
                 if c["cell_type"] == "code"]
        assert any("counters.exercises_and_times(" in t and f'"{start}"' in t
                   and "plots.model_beside_time(" in t for t in after), name


def _questions(cell: str) -> list[int]:
    """Where the prose of a markdown cell asks a question: a '?' outside headings, code and
    collapsed blocks (whose '?' belong to the hint or answer)."""
    blanked = re.sub(r"<details>.*?</details>", lambda m: " " * len(m.group(0)), cell, flags=re.S)
    blanked = re.sub(r"```.*?```|`[^`\n]*`", lambda m: " " * len(m.group(0)), blanked,
                     flags=re.S)
    blanked = re.sub(r"^#.*$", lambda m: " " * len(m.group(0)), blanked, flags=re.M)
    blanked = re.sub(r"\]\([^)]*\)", lambda m: " " * len(m.group(0)), blanked)   # links
    return [m.start() for m in re.finditer(r"\?", blanked)]


def _answered_later(cells_: list[dict], k: int) -> bool:
    """Whether markdown cell ``k``'s question is a prediction locked in first: the next cell
    calls ``predict(`` and the markdown cell after that opens with the collapsed answer."""
    rest = cells_[k + 1:k + 3]
    return (len(rest) == 2 and rest[0]["cell_type"] == "code" and "predict(" in text(rest[0])
            and rest[1]["cell_type"] == "markdown" and text(rest[1]).lstrip().startswith(ANSWER))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_every_question_has_its_answer_collapsed_right_after_it(path):
    all_cells = cells(path)
    for k, c in enumerate(all_cells):
        if c["cell_type"] != "markdown":
            continue
        cell = text(c)
        for at in _questions(cell):
            assert ANSWER in cell[at:] or _answered_later(all_cells, k), (
                f"{path.name}, cell {k}: a question with no answer after it: "
                f"{cell[max(0, at - 120):at + 1]!r}")


def _predictions(path: Path) -> list[tuple[int, str]]:
    """Each **Predict:** of a notebook: its markdown cell's index and text."""
    return [(k, text(c)) for k, c in enumerate(cells(path))
            if c["cell_type"] == "markdown" and "**Predict:**" in text(c)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_notebook_asks_the_learner_to_predict(path):
    assert _predictions(path), f"{path.name} asks for no prediction"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_prediction_is_locked_in_before_its_answer_can_be_read(path):
    """The learner's answer is captured first (helpers/predict.py), the collapsed answer comes
    after it, and no cell before the prompt gives the answer away in its prose."""
    all_cells = cells(path)
    for k, cell in _predictions(path):
        assert ANSWER not in cell[cell.index("**Predict:**"):], \
            f"{path.name}, cell {k}: the answer sits beside the prompt, before any lock-in"
        assert _answered_later(all_cells, k), \
            f"{path.name}, cell {k}: no predict(...) cell, then the collapsed answer, after it"


def test_at_most_one_prediction_in_ten_asks_for_a_device_the_learner_lacks():
    calls = [text(c) for p in NOTEBOOKS for c in cells(p)
             if c["cell_type"] == "code" and "predict(" in text(c)]
    recall = [c for c in calls if re.search(r"recall\s*=\s*True", c)]
    assert calls and len(recall) * 10 <= len(calls), (len(recall), len(calls))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_a_source_is_named_in_full_before_its_short_name(path):
    prose = "\n".join(markdown(path))
    for short, full in SOURCES.items():
        first = prose.find(short)
        if first >= 0:
            named = prose.find(full)   # "Du et al., *From CUDA to OpenCL*" names it at once
            assert 0 <= named <= first + len(short) + 40, \
                f"{path.name}: {short!r} before {full!r} is named"


@pytest.mark.parametrize("stem", GPU_LESSONS)
def test_a_gpu_lesson_says_what_a_cpu_shows(stem):
    prose = "\n".join(markdown(ROOT / "notebooks" / f"{stem}.ipynb"))
    said = re.search(r"\*\*On a CPU:\*\*([^\n]*(?:\n(?!\n)[^\n]*)*)", prose)
    assert said, f"{stem}: no '**On a CPU:**' sentence"
    assert "warp model" in said.group(1) or "H100" in said.group(1), said.group(1)


def test_the_course_has_at_least_30_exercises_each_in_its_notebook():
    course = exercises()
    assert len(course) >= 30, len(course)
    for ex in course:
        assert (ROOT / "notebooks" / f"{ex.teaching.notebook}.ipynb").is_file(), ex.name


def test_an_exercise_modules_text_names_its_own_notebook():
    """The notebooks were renumbered once: a module's "notebook NN" is its exercise's notebook."""
    import importlib
    for ex in exercises():
        doc = importlib.import_module(f"helpers.exercises.{ex.name}").__doc__ or ""
        named = set(re.findall(r"notebook (\d\d)", doc))
        assert named <= {ex.teaching.notebook[:2]}, (ex.name, named, ex.teaching.notebook)


def test_hints_give_ideas_not_code():
    """No hint holds a statement, a block or an assignment: it names the idea and the built-in
    to use, and the solution is revealed after the hints."""
    for ex in exercises():
        for k, hint in enumerate(ex.teaching.hints, 1):
            assert "```" not in hint, f"{ex.name} hint {k}"
            for span in re.findall(r"`([^`]+)`", hint):
                assert not re.search(r";|\{|\+=|-=|[^=!<>]=[^=]", span), \
                    f"{ex.name} hint {k} gives code: `{span}`"


def test_the_glossary_defines_the_terms_the_lessons_lean_on():
    glossary = (ROOT / "docs" / "glossary.md").read_text()
    for term in ("NDRange", "Work-item", "Work-group", "Warp", "Occupancy", "Coalescing", "Bank",
                 "Divergence", "Roofline", "TLP, ILP, MLP", "PTX", "clpeak", "Dependent chain",
                 "Issue latency λ", "Sub-group", "Barrier", "Halo"):
        assert re.search(r"\*\*" + re.escape(term), glossary, re.I), term


def test_the_readmes_course_map_lists_every_notebook_with_its_exercises():
    from helpers.exercises.cells import with_course_map
    text = (ROOT / "README.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\d\d-[a-z0-9-]+)` \|(.*)$",
                                                        text, re.M)}
    assert set(rows) == {p.stem for p in NOTEBOOKS}
    for ex in exercises():
        where = ex.teaching.notebook
        assert f"`{ex.name}`" in rows[where], f"{ex.name} is not in {where}'s row"
    assert with_course_map(text) == text, "run python tools/sync_exercise_cells.py"


def test_the_readme_holds_at_most_700_words():
    prose = re.sub(r"```.*?```", " ", (ROOT / "README.md").read_text(), flags=re.S)
    words = len(re.findall(r"[A-Za-z0-9][\w'-]*", re.sub(r"<[^>]+>", " ", prose)))
    assert words <= 700, words
