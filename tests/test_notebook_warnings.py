"""Under test, a notebook's kernel turns the warnings of the course's own code into errors
(tests/notebook_startup.py, installed by conftest.py): a cell that prints a driver's chatter or a
warning of helpers fails, one of another library's warnings does not."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.once


def _run(tmp_path, source: str) -> subprocess.CompletedProcess:
    nb = tmp_path / "w.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "id": "a", "metadata": {},
                                         "outputs": [], "execution_count": None,
                                         "source": source}],
                              "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "--nbval-lax", "--nbval-current-env", str(nb)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=os.environ.copy())


@pytest.mark.parametrize("source", [
    "import warnings\nwarnings.warn('a cell of the course warns')",
    "import warnings\nwarnings.warn_explicit('a helper warns', UserWarning, 'k.py', 1, "
    "module='helpers.kernels')",
    "import warnings, pyopencl\nwarnings.warn_explicit('Non-empty compiler output encountered', "
    "pyopencl.CompilerWarning, 'program.py', 1, module='pyopencl')",
])
def test_the_courses_own_warnings_fail_a_notebook_cell(tmp_path, source):
    run = _run(tmp_path, source)
    assert run.returncode != 0 and "1 failed" in run.stdout, run.stdout[-2000:]


def test_another_librarys_warning_does_not(tmp_path):
    run = _run(tmp_path, "import warnings\nwarnings.warn_explicit('deprecated', FutureWarning, "
                         "'x.py', 1, module='numpy')")
    assert run.returncode == 0, run.stdout[-2000:]
