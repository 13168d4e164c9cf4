"""A tidy workshop (issue 43): every path into results/ that the course names exists; the reference
results hold what the course reads, each with its provenance, and the history the rest."""

from __future__ import annotations

import fnmatch
import json
import re

from helpers.paths import RESULTS, ROOT

HISTORY = ROOT / "results" / "history"
# where the course names files of results/: its code, notebooks, tests, tools and documents
NAMING = ("helpers/**/*.py", "notebooks/*.ipynb", "tests/**/*.py", "tools/*", "kernels/**/*.cl",
          "docs/*.md", "README.md", "results/README.md", "Makefile")
# code that reads results: a file named there (by path, by load_result's name, or by a glob)
READERS = ("helpers/**/*.py", "notebooks/*.ipynb", "tests/**/*.py", "tools/*")
_PATH = re.compile(r"(?<![\w/.])results/[^\s`'\"()\[\],;:|]*")


def _text(path) -> str:
    if path.suffix == ".ipynb":
        return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])
    return path.read_text(errors="replace")


def _files(patterns) -> dict[str, str]:
    found = {}
    for pattern in patterns:
        for p in sorted(ROOT.glob(pattern)):
            if p.is_file() and "__pycache__" not in p.parts:
                found[str(p.relative_to(ROOT))] = _text(p)
    return found


def _is_template(path: str) -> bool:
    """A path written as a pattern for a new file (``results/history/load-<machine>.json``,
    ``results/reference/{name}.json``, ``.../check-times-....json``, ``...-HOST.json``)."""
    return bool(re.search(r"[<{]|\.\.\.\.|[A-Z]{3,}", path))


def named_paths() -> dict[str, list[str]]:
    """Every results/ path the course names (patterns of new files left out) -> where."""
    named: dict[str, list[str]] = {}
    for where, text in _files(NAMING).items():
        for m in _PATH.finditer(text):
            path = m.group(0).rstrip(".")
            if _is_template(path):
                continue
            named.setdefault(path, []).append(where)
    return named


def test_every_results_path_the_course_names_exists():
    named = named_paths()
    assert any(p.startswith("results/reference/") for p in named)   # the scan finds them
    missing = {p: where for p, where in named.items()
               if not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())}
    assert not missing, f"named but not there: {missing}"


def _readme_rows(readme) -> dict[str, str]:
    """file name -> its table row, for every file a row's first cell names."""
    rows = {}
    for line in readme.read_text().splitlines():
        if line.startswith("| `"):
            for name in re.findall(r"`([^`]+)`", line.split(" | ")[0]):
                rows[name] = line
    return rows


def test_every_reference_file_is_read_and_listed_with_its_provenance():
    readers = _files(READERS)
    text = "\n".join(readers.values())
    globs = set(re.findall(r"""glob\(["']([^"']+)["']\)""", text))
    rows = _readme_rows(RESULTS / "README.md")
    files = sorted(p.name for p in RESULTS.iterdir() if p.name != "README.md")
    assert "nvidia-h100.json" in files
    for name in files:
        stem = name.rsplit(".", 1)[0]
        read = (f'"{stem}"' in text or f"results/reference/{name}" in text
                or any(fnmatch.fnmatch(name, g) for g in globs))
        assert read, f"results/reference/{name}: no code, notebook, test or tool reads it"
        assert name in rows, f"results/reference/{name} is not in results/reference/README.md"
        cells = rows[name].split(" | ")
        assert len(cells) >= 3 and re.search(r"20\d\d-\d\d-\d\d", cells[2]), \
            f"results/reference/README.md: {name}'s row says who wrote it and when"
    assert set(rows) <= set(files), "results/reference/README.md lists a file not there"


def test_every_measurement_of_the_history_is_described():
    rows = _readme_rows(HISTORY / "README.md")
    files = sorted(p.name for p in HISTORY.iterdir() if p.name != "README.md")
    assert files and not set(files) & {p.name for p in RESULTS.iterdir()}
    assert not [f for f in files if f not in rows], "results/history/README.md misses these"
    assert not [f for f in rows if f not in files and not (RESULTS / f).exists()]
