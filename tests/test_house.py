"""The house of ``helpers/`` holds (issue 43): the floors named in docs/design.md's table, every
import pointing down or across, no circle, no module over 600 lines, no function over 80.
``tools/house.py`` draws the house from the imports; these tests read the same drawing."""

from __future__ import annotations

import ast
import importlib.util

import pytest

from helpers.paths import ROOT

pytestmark = pytest.mark.once   # no device

_spec = importlib.util.spec_from_file_location("house", ROOT / "tools" / "house.py")
house = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(house)

MAX_FLOORS, MAX_MODULE_LINES, MAX_FUNCTION_LINES = 7, 600, 80


floor_table, arrows_up = house.floor_table, house.arrows_up


def test_the_table_has_every_room_and_at_most_seven_floors():
    table, graph = floor_table(), house.arrows()
    assert table, "docs/design.md has no floor table"
    assert sorted(set(graph) - set(table)) == [], "rooms the floor table does not place"
    assert sorted(set(table) - set(graph)) == [], "rooms in the floor table that do not exist"
    assert len(set(table.values())) <= MAX_FLOORS and max(table.values()) <= MAX_FLOORS


def test_every_import_points_down_or_across():
    assert arrows_up(house.arrows(), floor_table()) == []


def test_no_circle_among_the_rooms():
    assert house.circles(house.arrows()) == []


def test_an_arrow_up_and_a_circle_are_seen():
    """The checks above can fail: a made-up house with a room importing one above it."""
    table = floor_table("| 2 | show | `plots` | x |\n| 1 | device | `device`, `paths` | y |")
    assert table == {"plots": 2, "device": 1, "paths": 1}
    assert arrows_up({"device": {"plots"}, "plots": {"paths"}}, table) == [
        "device (floor 1) -> plots (floor 2)"]
    assert house.circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [{"a", "b"}]


def test_the_graph_sees_imports_of_every_kind():
    graph = house.module_graph()
    assert "helpers.timing" in graph["helpers.studies.harness"]        # from ..timing import
    assert "helpers.exercises.query_work_space" in graph["helpers.ndrange"]  # from .exercises.x
    assert "helpers.driver_probe" in graph["helpers.kernels"]                 # inside a function
    assert "helpers.checking.observers" in graph["helpers.hub.events"]  # from ..checking.x


def _sizes():
    modules, functions = [], []
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        text = path.read_text()
        rel = str(path.relative_to(ROOT))
        modules.append((rel, text.count("\n")))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((f"{rel}:{node.name}", node.end_lineno - node.lineno + 1))
    return modules, functions


def test_no_module_over_600_lines_and_no_function_over_80():
    modules, functions = _sizes()
    assert [m for m in modules if m[1] > MAX_MODULE_LINES] == []
    assert [f for f in functions if f[1] > MAX_FUNCTION_LINES] == []


def test_every_package_hands_on_what_it_offers():
    """``from helpers.PACKAGE import *`` works for every package (a name in ``__all__`` that is not
    there raised AttributeError), and importing one module of the checker does not import the
    check's run (the package hands its names on lazily)."""
    import subprocess
    import sys
    packages = sorted(".".join(p.parent.relative_to(ROOT).parts)
                      for p in (ROOT / "helpers").rglob("__init__.py"))
    code = "".join(f"exec('from {p} import *')\n" for p in packages)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    alone = subprocess.run([sys.executable, "-c", "import sys, helpers.checking.observers\n"
                            "print('helpers.checking.checker' in sys.modules)"], cwd=ROOT,
                           capture_output=True, text=True, timeout=120)
    assert alone.stdout.strip() == "False", alone.stdout + alone.stderr


def test_one_place_computes_the_course_folder():
    """helpers/paths.py computes the course folder; every other file takes ROOT from it (a script
    outside the package only puts its checkout's helpers on the import path first)."""
    import re
    computed = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?\.(?:parent\.parent\b|parents\[1\])")
    found = []
    for path in sorted(ROOT.glob("**/*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in (".venv", ".git", "node_modules") or \
                relative.as_posix() == "helpers/paths.py":
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if computed.search(line) and not line.lstrip().startswith("sys.path.insert(0, "):
                found.append(f"{relative}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
