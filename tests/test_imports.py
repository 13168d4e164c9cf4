"""The helper package's modules import one another without circles: every import counts, the ones
inside functions too (a circle there is a circle in the design, only deferred)."""

from __future__ import annotations

import pytest

from .test_house import house


def import_graph() -> dict[str, set[str]]:
    return house.module_graph()


@pytest.mark.once
@pytest.mark.parametrize("module", ["helpers.studies", "helpers.studies.harness",
                                    "helpers.studies.registry", "helpers.studies.transfers"])
def test_the_measurements_build_on_timing_not_on_bench(module):
    assert "helpers.bench" not in import_graph()[module]


@pytest.mark.once
def test_no_module_of_the_package_imports_itself_through_others():
    assert house.circles(import_graph()) == []


def test_a_process_that_only_checks_imports_no_figures_or_widgets():
    """``helpers/__init__`` hands its names on lazily: a check, and the child processes it starts,
    never import matplotlib or ipywidgets (half a second of every check's start-up)."""
    import subprocess
    import sys
    code = ("import sys\n"
            "import helpers.checking.worker_side\n"
            "assert not {'matplotlib', 'ipywidgets'} & set(sys.modules), 'the child'\n"
            "from helpers import run_check\n"
            "report = run_check('float_copy', solutions=True)\n"
            "assert report.passed, report.message\n"
            "print(sorted({'matplotlib', 'ipywidgets'} & set(sys.modules)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=house.HELPERS.parent, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_lazy_names_are_the_ones_the_notebooks_use():
    import helpers
    from helpers import bench, check, course_context, plots  # noqa: F401
    assert callable(check) and callable(course_context) and hasattr(plots, "roofline")
    assert helpers.studies.HISTORY and "bench" in dir(helpers)
    with pytest.raises(AttributeError):
        helpers.no_such_name  # noqa: B018
