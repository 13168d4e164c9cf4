"""A tidy workshop (issue 43): every path into results/ that the course names exists; the reference
results hold what the course reads, each with its provenance, and the history the rest."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys

import pytest

from helpers.paths import RESULTS, ROOT

pytestmark = pytest.mark.once   # results/, tools/ and the driver data: no device

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


TOOLS = ROOT / "tools"
# Import every Python tool in one fresh process (a tool may put the course on sys.path, or start
# nothing but its imports): none may need OpenCL, a device or a network to load.
_IMPORT_ALL = """
import importlib.util, sys
for path in sys.argv[1:]:
    name = "tool_" + path.rsplit("/", 1)[-1][:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    assert callable(getattr(module, "main", None)) or name == "tool_local_hub", path
print("imported", len(sys.argv) - 1)
"""


def test_every_tool_is_in_the_tools_readme():
    readme = (TOOLS / "README.md").read_text()
    listed = set(re.findall(r"^\| `([\w.]+)[ `]", readme, re.MULTILINE))
    scripts = {p.name for p in TOOLS.iterdir() if p.suffix in (".py", ".sh")}
    assert scripts - listed == set(), "tools/README.md does not list these"
    assert listed - scripts == set(), "tools/README.md lists scripts that are not there"


def test_every_tool_loads_without_running_anything():
    pythons = sorted(str(p) for p in TOOLS.glob("*.py"))
    done = subprocess.run([sys.executable, "-c", _IMPORT_ALL, *pythons], cwd=ROOT, text=True,
                          capture_output=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    for script in sorted(TOOLS.glob("*.sh")):
        syntax = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert syntax.returncode == 0, f"{script.name}: {syntax.stderr}"


def test_the_driver_facts_are_data_with_why_and_where_each_was_seen():
    from helpers import device, driver_facts, studies, workers

    facts = driver_facts.drivers()
    gaps = facts["oclgrind_gaps"]
    explained = (*facts["cpu_preference"], *facts["known_wrong"], gaps, facts["crash_words"],
                 *facts["environment"])
    assert all(e["why"].strip() for e in explained)
    sourced = (*facts["cpu_preference"], *facts["known_wrong"], *gaps["seen"], facts["crash_words"])
    assert all(e["source"].strip() for e in sourced)
    # the code reads its tables from the data
    assert device.CPU_PREFERENCE == driver_facts.cpu_preference() == (
        "Intel(R) OpenCL", "Portable Computing Language")
    assert studies.KNOWN_WRONG == driver_facts.known_wrong()
    assert set(driver_facts.driver_variables()[1]) <= set(workers.KEPT_PREFIXES)
    assert workers.crash_summary(-6, "LLVM ERROR: Cannot select: t1\nbye")[1].startswith("LLVM")


def test_the_data_file_ships_with_the_package():
    tomllib = __import__("pytest").importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(fnmatch.fnmatch("drivers.json", p) for p in data["helpers.data"])


def test_docs_platforms_driver_section_is_rendered_from_the_data():
    from helpers.driver_facts import platforms_markdown

    text = (ROOT / "docs" / "platforms.md").read_text(encoding="utf-8")
    heading = platforms_markdown().splitlines()[0]
    assert text.count(heading) == 1
    assert text[text.index(heading):] == platforms_markdown(), \
        "docs/platforms.md differs from helpers/data/drivers.json: run python tools/platforms_doc.py"


def test_install_md_quotes_the_measured_cell_times():
    """docs/install.md's table of each notebook's slowest cell is the record's (tools/
    notebook_times.py --cells), which holds every notebook, each run through, each cell within the
    course's minute."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("notebook_times", TOOLS / "notebook_times.py")
    times = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(times)
    record = json.loads((ROOT / "results/history/cell-times-amd-epyc-2cores-intel.json").read_text())
    assert times.cell_table(record) in (ROOT / "docs/install.md").read_text(), \
        "docs/install.md's cell times differ from the record: tools/notebook_times.py --markdown"
    notebooks = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert [r["notebook"] for r in record["rows"]] == notebooks
    assert all(r["passed"] for r in record["rows"])
    assert max(c["seconds"] for r in record["rows"] for c in r["cells"]) < 60


def test_the_docs_name_the_technique_exercises_as_the_code_judges_them():
    """docs/checks.md and docs/design.md list exactly the exercises with a technique (issue 53
    point 7), and each technique exercise's contract and skeleton state what its technique asks."""
    from helpers.exercises import exercises
    judged = {ex.name for ex in exercises() if ex.technique is not None}
    for doc in ("docs/checks.md", "docs/design.md"):
        text = (ROOT / doc).read_text()
        said = re.search(r"technique exercises \(([^)]*)\)", text.replace("\n", " "))
        assert said, doc
        assert set(re.findall(r"`(\w+)`", said.group(1))) == judged, (doc, said.group(1))
    from helpers.exercises import common
    # each criterion a technique verdict applies (the functions it calls), as the texts name it
    words = {"coalesced": ("coalesc", "neighbour"), "conflict_free_reads": ("bank",),
             "undivided": ("branch",), "in_registers": ("register",)}

    def criteria(f) -> set[str]:
        names = set(f.__code__.co_names)
        for n in list(names):
            inner = getattr(common, n, None)
            if callable(inner) and n not in words and hasattr(inner, "__code__"):
                names |= set(inner.__code__.co_names)
        return names & set(words) | ({f.__name__} & set(words))
    for ex in exercises():
        if ex.technique is None:
            continue
        found = criteria(ex.technique.judge)
        assert found, ex.name
        skeleton = (ROOT / "kernels" / f"{ex.name}.cl").read_text().lower()
        for what in found:
            assert any(w in ex.contract.lower() for w in words[what]), (ex.name, what, "contract")
            assert any(w in skeleton for w in words[what]), (ex.name, what, "skeleton")
