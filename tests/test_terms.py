"""Terms before use (issue 54 point 5): each entry of docs/glossary.md ends with the notebook that
defines it, '(NN)'; that notebook sets the term in bold (the course's mark of a term defined there),
and no earlier notebook uses it unless its first use there is a link to the definition: the
glossary (with one of its headings' anchors, or none), the defining notebook, or a page the entry
itself links to. Later uses in that notebook lean on the link.

The prose read is every markdown cell, hints and answers included, less code blocks, inline code,
link targets and HTML tags; a term is found by the spellings that tests/data/glossary_terms.json
gives its entry (case-insensitive, between word boundaries). Notebook 00 also says, before its first
launch, what `__kernel`, `__global` and `const uint` mean and why the host passes `np.float32(...)`
and `np.uint32(...)`."""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.once   # the committed notebooks and the glossary: no device

from helpers.paths import ROOT  # noqa: E402

GLOSSARY = "docs/glossary.md"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
SPELLINGS = ROOT / "tests" / "data" / "glossary_terms.json"


@dataclass(frozen=True)
class Entry:
    term: str                  # the entry's first bold term
    home: str                  # the notebook that defines it, "NN"
    words: re.Pattern          # its spellings in prose
    code: re.Pattern | None    # its OpenCL names, in inline code
    pages: frozenset[str]      # what the entry links to, as paths from the course's root

    def first_use(self, text: Prose) -> re.Match | None:
        uses = [m for m in (self.words.search(text.text),
                            self.code.search(text.code) if self.code else None) if m]
        return min(uses, key=lambda m: m.start(), default=None)


def _blank(m: re.Match) -> str:
    return re.sub(r"[^\n]", " ", m.group(0))


def anchors(markdown: str) -> set[str]:
    """The anchors GitHub and JupyterLab's Markdown preview give the headings of ``markdown``."""
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", markdown, re.M)}


@cache
def glossary() -> str:
    return (ROOT / GLOSSARY).read_text(encoding="utf-8")


@cache
def _glossary_anchors() -> set[str]:
    return anchors(glossary())


@cache
def entries() -> tuple[Entry, ...]:
    """The glossary's entries (one bullet each), with their spellings from the data file."""
    spellings = json.loads(SPELLINGS.read_text(encoding="utf-8"))
    found = []
    for bullet in re.findall(r"^- .*?(?=^- |^#|\Z)", glossary(), re.M | re.S):
        term = re.search(r"\*\*(.+?)\*\*", bullet).group(1)
        home = re.search(r"\((\d\d)\)\s*$", bullet)
        assert home, f"the glossary's entry {term!r} names no notebook '(NN)' at its end"
        assert term in spellings, f"{term!r} has no spellings in {SPELLINGS.name}"
        pages = {posixpath.normpath(posixpath.join("docs", t))
                 for t in re.findall(r"\]\(([^)#\s]+)", bullet)}
        found.append(Entry(term, home.group(1), _pattern(spellings[term]["words"]),
                           _pattern(spellings[term].get("code")), frozenset(pages)))
    return tuple(found)


def _pattern(spellings: list[str] | None) -> re.Pattern | None:
    """One pattern for ``spellings``, each matched whole (no letter, digit or _ either side), a
    space in one matching any run of white space (a line may break there)."""
    if not spellings:
        return None
    alternatives = "|".join(f"(?:{s})" for s in spellings)
    alternatives = alternatives.replace("[- ]", r"[-\s]").replace(" ", r"\s+")
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I)


def markdown_of(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@dataclass(frozen=True)
class Prose:
    text: str                               # the prose, everything else blanked in place
    code: str                               # the inline code, everything else blanked
    links: tuple[tuple[int, int, str], ...]  # (start, end) of a link's text, and its target


def prose(markdown: str) -> Prose:
    """``markdown`` with code blocks, inline code, link targets and HTML tags blanked (so that
    positions hold), its inline code alone, and where each link's text lies."""
    text = re.sub(r"```.*?```", _blank, markdown, flags=re.S)
    code = re.sub(r"[^\n]", " ", text)
    for m in re.finditer(r"`[^`\n]*`", text):
        code = code[:m.start()] + m.group(0) + code[m.end():]
    text = re.sub(r"`[^`\n]*`", _blank, text)
    links = []

    def link(m: re.Match) -> str:
        links.append((m.start(1), m.end(1), m.group(2)))
        return m.group(0)[:m.end(1) - m.start()] + " " * (m.end() - m.end(1))

    text = re.sub(r"\[([^\]\n]*)\]\(([^)\s]*)\)", link, text)
    text = re.sub(r"<[^>\n]+>", _blank, text)
    return Prose(text, code, tuple(links))


def defines(target: str, entry: Entry, home: str) -> bool:
    """Whether a link from a notebook to ``target`` leads to ``entry``'s definition."""
    path, _, anchor = target.partition("#")
    path = posixpath.normpath(posixpath.join("notebooks", path))
    if path == GLOSSARY:
        return not anchor or anchor in _glossary_anchors()
    return path == f"notebooks/{home}.ipynb" or path in entry.pages


def offences(notebooks: dict[str, str]) -> list[str]:
    """What breaks the rule in ``notebooks`` (stem -> markdown): a term used, unlinked, before the
    notebook that defines it; a defining notebook that does not set its term in bold."""
    stems = sorted(notebooks)
    texts = {stem: prose(notebooks[stem]) for stem in stems}
    found = []
    for entry in entries():
        homes = [s for s in stems if s[:2] == entry.home]
        if not homes:
            found.append(f"the glossary says notebook {entry.home} defines {entry.term!r}: "
                         "there is none")
            continue
        home = homes[0]
        for stem in stems:
            text = texts[stem]
            if stem == home:
                bold = re.findall(r"\*\*(.+?)\*\*", text.text, re.S)
                if not any(entry.words.search(b) for b in bold):
                    found.append(f"{stem} never sets {entry.term!r} in bold, yet the glossary "
                                 "says it defines it there")
            if stem >= home:
                continue
            first = entry.first_use(text)
            if first and not any(start <= first.start() < end and defines(target, entry, home)
                                 for start, end, target in text.links):
                around = " ".join(text.text[max(0, first.start() - 60):first.end() + 40].split())
                found.append(f"{stem} uses {first.group(0)!r} ({entry.term}, defined in {home}) "
                             f"without a link to its definition: ...{around}...")
    return found


@cache
def course() -> dict[str, str]:
    return {p.stem: markdown_of(p) for p in NOTEBOOKS}


def test_every_glossary_entry_has_its_spellings_and_every_spelling_an_entry():
    spellings = {k for k in json.loads(SPELLINGS.read_text(encoding="utf-8")) if k != "_about"}
    assert spellings == {e.term for e in entries()}


def test_no_notebook_uses_a_term_before_the_notebook_that_defines_it():
    assert offences(course()) == []


def test_the_rule_catches_a_term_used_early_or_left_undefined_and_accepts_a_link():
    stem = NOTEBOOKS[0].stem

    def with_first(text: str) -> list[str]:
        """The offences of the course with ``text`` put first in notebook 00."""
        changed = dict(course())
        changed[stem] = text + "\n\n" + changed[stem]
        return offences(changed)

    found = with_first("Each work-group shares its local memory.")
    assert any(f.startswith(f"{stem} uses 'work-group'") for f in found), found
    assert any(f.startswith(f"{stem} uses 'local memory'") for f in found), found
    for target in ("../docs/glossary.md", "../docs/glossary.md#the-programming-model",
                   "02-work-groups.ipynb"):
        found = with_first(f"A [work-group]({target}) of work-items; each work-group.")
        assert not any("'work-group'" in f for f in found), (target, found)
    for target in ("../docs/glossary.md#no-such-heading", "03-local-memory.ipynb",
                   "https://example.org/work-group"):
        found = with_first(f"A [work-group]({target}) of work-items.")
        assert any("'work-group'" in f for f in found), target
    assert with_first("```c\nbarrier(CLK_LOCAL_MEM_FENCE); // atomic\n```") == offences(course())
    assert any(f.startswith(f"{stem} uses '__constant'")
               for f in with_first("The table is `__constant`."))

    unbolded = dict(course())
    home = next(s for s in unbolded if s.startswith("09"))
    unbolded[home] = unbolded[home].replace("**", "")
    assert any(f.startswith(f"{home} never sets 'Bank'") for f in offences(unbolded))


def test_a_heading_anchor_is_made_as_the_markdown_previews_make_it():
    assert {"the-programming-model", "memory", "execution", "measuring", "tools"} <= \
        anchors(glossary())


def _before_first_launch(path: Path) -> str:
    """The prose of notebook ``path`` (code blocks left out) before its first code cell that passes
    ``np.float32(``."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = []
    for c in cells:
        source = "".join(c["source"])
        if c["cell_type"] == "code" and "np.float32(" in source:
            return re.sub(r"```.*?```", " ", "\n\n".join(text), flags=re.S)
        if c["cell_type"] == "markdown":
            text.append(source)
    raise AssertionError(f"{path.name} launches no kernel with np.float32(...)")


def test_notebook_00_says_what_the_words_of_its_first_kernel_mean():
    """The first kernel's `__kernel`, `__global` and `const uint`, and the host's numpy scalars
    with the reason for them (a Python float is a double), said before the first launch."""
    said = _before_first_launch(NOTEBOOKS[0])
    for word in ("`__kernel`", "`__global`", "`const uint`", "`np.float32", "`np.uint32"):
        assert word in said, f"{NOTEBOOKS[0].name} does not explain {word} before its first launch"
    assert re.search(r"\bdouble\b", said), \
        "say why the host passes np.float32: a Python float is a double, 8 bytes"
