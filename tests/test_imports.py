"""The helper package's modules import one another without circles: every import counts, the ones
inside functions too (a circle there is a circle in the design, only deferred)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "helpers"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package's modules that the file at ``path`` imports, anywhere in it."""
    here = module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [f"{target}.{a.name}" for a in node.names]
            found.update(n for n in names if n in modules)  # from . import bench: the module
            if target in modules and any(n not in modules for n in names):
                found.add(target)                           # from .exercises import Case
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in modules)
    found.discard(here)
    return found


def import_graph() -> dict[str, set[str]]:
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {m: imports_of(p, set(files)) for m, p in files.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.once
def test_the_graph_sees_imports_of_every_kind():
    graph = import_graph()
    assert "helpers.timing" in graph["helpers.studies.harness"]            # from .timing import ...
    assert "helpers.exercises.query_work_space" in graph["helpers.ndrange"]  # from .exercises...
    assert "helpers.exercises.level3" in graph["helpers.exercises"]  # from . import level3
    assert "helpers.probe" in graph["helpers.kernels"]             # inside a function


@pytest.mark.once
def test_a_circle_is_found():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.once
@pytest.mark.parametrize("module", ["helpers.studies", "helpers.studies.harness",
                                    "helpers.studies.registry", "helpers.transfers"])
def test_the_measurements_build_on_timing_not_on_bench(module):
    assert "helpers.bench" not in import_graph()[module]


@pytest.mark.once
def test_no_module_of_the_package_imports_itself_through_others():
    assert circles(import_graph()) == []


def test_a_process_that_only_checks_imports_no_figures_or_widgets():
    """``helpers/__init__`` hands its names on lazily: a check, and the child processes it starts,
    never import matplotlib or ipywidgets (half a second of every check's start-up)."""
    import subprocess
    import sys
    code = ("import sys\n"
            "import helpers.checking.runner\n"
            "assert not {'matplotlib', 'ipywidgets'} & set(sys.modules), 'the child'\n"
            "from helpers import run_check\n"
            "report = run_check('float_copy', solutions=True)\n"
            "assert report.passed, report.message\n"
            "print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=PACKAGE.parent, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_lazy_names_are_the_ones_the_notebooks_use():
    import helpers
    from helpers import bench, check, course_context, plots  # noqa: F401
    assert callable(check) and callable(course_context) and hasattr(plots, "roofline")
    assert helpers.studies.HISTORY and "bench" in dir(helpers)
    with pytest.raises(AttributeError):
        helpers.no_such_name  # noqa: B018
