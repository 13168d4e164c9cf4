"""Slides for every notebook, made from the notebooks themselves (``make slides``, ``python -m
helpers slides``), so that they never drift from the lessons: nbconvert's reveal.js slides.

Each notebook's cells are laid out for a projector, in the notebook's order:

- its title and each section (``##``, and ``### Exercise``) open a slide; the section's text and
  its diagram (the figure the notebook draws, drawn here: the cell's code is left out) share it;
- a prediction is a slide below of its own (its question, from the text or the ``predict(...)``
  cell), and its answer the next one (the notebook's ``Answer`` block, opened);
- a live demo (any other code cell but the set-up) is a slide below with its code, to run in
  the notebook in front of the room;
- an exercise (its ``%%kernel`` cell) shows its kernel's starting point, then a slide "after the
  exercise" with the course's solution; hints are left out (they are for the learner alone).

The decks load nothing from the network: reveal.js 4.6.1 (MIT, ``helpers/data/reveal``, its
white theme without its web fonts) is copied beside them, and nbconvert's references to jQuery,
RequireJS, MathJax and Mermaid on CDNs are left out of the template (the notebooks use none).
The facilitator's guides (``docs/guide/``) are rendered beside the decks.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import re
import shutil
from pathlib import Path

from .exercises.cells import source as _source
from .guide import page
from .paths import ROOT, remove_tree

DECKS = ROOT / "build" / "slides"
REVEAL = Path(__file__).parent / "data" / "reveal"
NOTEBOOKS = ROOT / "notebooks"
# code cells that draw one of the course's figures: drawn here, shown without their code
_FIGURE = re.compile(r"^\s*(diagrams|technique_diagrams|plots\.ndrange_grid)\b|"
                     r"^\s*plots\.\w+\(ndrange\.", re.M)
_PREDICT = re.compile(r"""predict\(\s*(["'])[^"']*\1\s*,\s*(?:"([^"]*)"|'([^']*)')""")
_KERNEL = re.compile(r"\A\s*%%kernel[ \t]+(\w+)")
_DETAILS = re.compile(r"\A\s*<details>\s*<summary>\s*(\w+)")
_LONG = 18           # lines of a demo's code on a slide; the rest is in the notebook


def _markdown(text: str, slide: str) -> dict:
    # links relative to notebooks/ (the notes, the glossary) still reach them from build/slides/
    text = re.sub(r"\]\(\.\./", "](../../", text)
    return {"cell_type": "markdown", "metadata": {"slideshow": {"slide_type": slide}},
            "source": text}


def _code(text: str, slide: str, outputs: list | None = None, input_shown: bool = True) -> dict:
    meta = {"slideshow": {"slide_type": slide}}
    if not input_shown:
        meta["tags"] = ["figure-only"]
    return {"cell_type": "code", "metadata": meta, "source": text, "outputs": outputs or [],
            "execution_count": None}


def layout(nb: dict, draw=None) -> dict:
    """The notebook ``nb`` laid out as slides (see the module): a new notebook whose cells carry
    reveal.js's slide types. ``draw(code)`` returns a figure cell's outputs (None: not drawn)."""
    out = copy.deepcopy(nb)
    cells: list[dict] = []
    setup_seen = False
    for cell in nb["cells"]:
        text = _source(cell).strip("\n")
        if not text.strip():
            continue
        if cell["cell_type"] == "markdown":
            for block in _blocks(text):
                cells += _markdown_slides(block)
            continue
        if not setup_seen and re.match(r"\s*(import|from)\s", text):   # the imports and the
            setup_seen = True                                          # device: nothing to show
            continue
        kernel = _KERNEL.match(text)
        if kernel:
            cells += _exercise_slides(kernel.group(1), text)
        elif _PREDICT.search(text):
            if not any("**Predict:**" in _source(c) for c in cells[-1:]):
                found = _PREDICT.search(text)
                question = found.group(2) or found.group(3)
                cells.append(_markdown(f"**Predict:** {question}", "subslide"))
        elif _FIGURE.search(text):
            drawn = draw(text) if draw is not None else None
            cells.append(_code(text, "-", drawn, input_shown=drawn is None))
        else:
            lines = text.splitlines()
            shown = "\n".join(lines[:_LONG]) + (
                f"\n# ... {len(lines) - _LONG} more lines in the notebook" if len(lines) > _LONG
                else "")
            cells.append(_markdown("*Live demo: run it in the notebook.*", "subslide"))
            cells.append(_code(shown, "-"))
    for k, cell in enumerate(cells):
        cell["id"] = f"slide-{k}"
    out["cells"] = cells
    out["metadata"] = {k: v for k, v in nb.get("metadata", {}).items() if k != "widgets"}
    return out


def _blocks(text: str) -> list[str]:
    """A markdown cell cut where a slide may change: before each heading and each prediction,
    and around each ``<details>`` block (a hint, an answer)."""
    blocks: list[list[str]] = [[]]
    inside = fenced = False
    for line in text.splitlines():
        fenced ^= line.lstrip().startswith("```")      # a '#' in a code block is code
        if not inside and not fenced and (line.startswith(("#", "**Predict:**"))
                                          or line.lstrip().startswith("<details>")):
            blocks.append([])
            inside = line.lstrip().startswith("<details>")
        blocks[-1].append(line)
        if inside and "</details>" in line:
            inside = False
            blocks.append([])
    return [t for t in ("\n".join(b).strip("\n") for b in blocks) if t.strip()]


def _markdown_slides(text: str) -> list[dict]:
    details = _DETAILS.match(text)
    if details and details.group(1).lower() != "answer":
        return []                # hints and the solution's pointer: the learner's, not the room's
    if details:                                      # an answer: opened, on a slide below
        body = re.sub(r"\A\s*<details>\s*<summary>[^<]*</summary>\s*", "", text)
        body = re.sub(r"</details>\s*\Z", "", body).strip()
        return [_markdown(f"**{details.group(1)}.** {body}", "subslide")]
    if text.startswith(("# ", "## ", "### Exercise")):
        return [_markdown(text, "slide")]
    if text.lstrip().startswith("**Predict:**"):
        return [_markdown(text, "subslide")]
    return [_markdown(text, "-")]


def _exercise_slides(name: str, text: str) -> list[dict]:
    kernel = "\n".join(text.splitlines()[1:]).strip()
    cells = [_markdown(f"**Exercise `{name}`:** the kernel starts as `kernels/{name}.cl`; "
                       f"`check(\"{name}\")` (this cell) judges it.", "subslide"),
             _markdown(f"```c\n{kernel}\n```", "-")]
    solution = ROOT / "solutions" / f"{name}.cl"
    if solution.is_file():
        cells += [_markdown(f"**After the exercise:** a solution (`solutions/{name}.cl`).",
                            "subslide"),
                  _markdown(f"```c\n{solution.read_text(encoding='utf-8').strip()}\n```", "-")]
    return cells


def drawer(setup: str):
    """``draw(code)``: the figure a notebook's figure cell draws, as a cell's outputs (PNG),
    run here with the notebook's imports (``setup``: its import lines) and matplotlib's Agg."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    space: dict = {}
    exec(setup, space)        # the course's own notebooks' imports

    def draw(code: str) -> list | None:
        plt.close("all")
        try:
            exec(code, dict(space))
        except Exception:      # a figure that needs the notebook's state: shown as code instead
            plt.close("all")
            return None
        outputs = []
        for number in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(number).savefig(buf, format="png", dpi=110, bbox_inches="tight")
            outputs.append({"output_type": "display_data", "metadata": {},
                            "data": {"image/png": base64.b64encode(buf.getvalue()).decode()}})
        plt.close("all")
        return outputs or None
    return draw


def imports_of(nb: dict) -> str:
    """The import lines of a notebook's code (what its figure cells need)."""
    lines = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            lines += [x for x in _source(cell).splitlines()
                      if re.match(r"(import|from)\s+\w", x) and "pyopencl" not in x]
    return "\n".join(dict.fromkeys(lines))


def speaker_notes(stem: str) -> str:
    """The facilitator's guide's minutes, plan and live demos for notebook ``stem`` (its
    sections up to its questions), or "" without a guide."""
    from .guide import GUIDES
    path = GUIDES / f"{stem}.md"
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    body = text.split("\n", 1)[1] if "\n" in text else ""
    return body.split("## Questions for the room", 1)[0].strip()


def deck(notebook: Path, out: Path) -> Path:
    """One notebook's deck, ``out/<stem>.slides.html``."""
    import nbformat
    from nbconvert import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor
    from traitlets.config import Config

    nb = json.loads(notebook.read_text(encoding="utf-8"))
    laid = layout(nb, drawer(imports_of(nb)))
    notes = speaker_notes(notebook.stem)
    if notes:        # the guide's plan, in the speaker's view (S) beside the title slide
        laid["cells"].insert(1, {"cell_type": "markdown", "id": "slide-notes", "source": notes,
                                 "metadata": {"slideshow": {"slide_type": "notes"}}})
    laid = nbformat.from_dict(laid)
    c = Config()
    c.TagRemovePreprocessor.remove_input_tags = {"figure-only"}
    c.TagRemovePreprocessor.enabled = True
    c.SlidesExporter.extra_template_paths = [str(Path(__file__).parent / "data")]
    c.SlidesExporter.template_file = "slides.html.j2"
    c.SlidesExporter.reveal_url_prefix = "reveal"
    c.SlidesExporter.reveal_theme = "white"
    c.SlidesExporter.reveal_scroll = True
    c.SlidesExporter.exclude_input_prompt = c.SlidesExporter.exclude_output_prompt = True
    exporter = SlidesExporter(config=c)
    exporter.register_preprocessor(TagRemovePreprocessor(config=c), enabled=True)
    body, _ = exporter.from_notebook_node(laid, resources={"metadata": {"name": notebook.stem}})
    target = out / f"{notebook.stem}.slides.html"
    target.write_text(body, encoding="utf-8")
    return target


def build(out: Path = DECKS, only: list[str] | None = None) -> list[Path]:
    """Every notebook's deck (or ``only`` those whose stems start with one of them) and every
    guide, into ``out`` with reveal.js beside them; the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    remove_tree(out / "reveal")
    shutil.copytree(REVEAL, out / "reveal")
    written = []
    for notebook in sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        if only and not notebook.stem.startswith(tuple(x.zfill(2) if x.isdigit() else x
                                                        for x in only)):
            continue
        written.append(deck(notebook, out))
        guide = page(notebook.stem)
        if guide is not None:
            written.append(out / f"{notebook.stem}.guide.html")
            written[-1].write_text(guide, encoding="utf-8")
    return written
