"""Settings for every pytest run, tests and notebooks alike (``pytest notebooks/01-...ipynb`` too):
the solutions switched on, small sizes, no display, and an empty cache of measured peaks, probes and
passed checks. Set before collection, so that the Jupyter kernels nbval starts inherit them; tests
that check the learner's skeletons pass ``solutions=False`` explicitly.

Every Jupyter kernel of the run starts with tests/notebook_startup.py: a warning of the course's
own code is an error there.

The course's notebooks are run as the learner's checkout holds them (outputs saved by JupyterLab do
not matter to nbval's lax mode; a ``%%kernel`` cell checks the solution with the switch on and saves
nothing); notebooks git does not hold are left out.

Everything a run writes to temporary files goes into one folder of its own (``TMPDIR`` points there
for this process and every process it starts: checks, probes, Jupyter kernels, drivers), which is
removed when the run ends: the suite leaves nothing behind in /tmp.
"""

from __future__ import annotations

import os
import shutil
import tempfile

os.environ.setdefault("COURSE_SOLUTIONS", "1")
os.environ.setdefault("COURSE_SMALL", "1")
os.environ.setdefault("COURSE_STRICT_CHECKS", "1")   # as the course's pytest plugin sets it
os.environ.setdefault("MPLBACKEND", "Agg")

_RUN_FOLDER: str | None = None
_NOTEBOOKS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notebooks")


def pytest_ignore_collect(collection_path, config):
    """A notebook git does not hold (a learner's Untitled.ipynb, a copy of a lesson) is theirs, not
    the course's: nbval leaves it alone."""
    if collection_path.suffix != ".ipynb" or str(collection_path.parent) != _NOTEBOOKS:
        return None
    from tests.shipped import tracked
    known = tracked()
    if known is not None and f"notebooks/{collection_path.name}" not in known:
        return True
    return None


def pytest_configure(config) -> None:
    global _RUN_FOLDER
    config.addinivalue_line("markers", "once: does not depend on the OpenCL device; "
                            "python -m tests.every_cpu runs it with the first CPU implementation "
                            "only")
    if _RUN_FOLDER is not None or hasattr(config, "workerinput"):
        return
    _RUN_FOLDER = tempfile.mkdtemp(prefix="course-tests-")
    os.environ["TMPDIR"] = _RUN_FOLDER
    tempfile.tempdir = None  # tempfile reads TMPDIR again
    os.environ.setdefault("COURSE_CACHE", os.path.join(_RUN_FOLDER, "course-cache"))
    # every Jupyter kernel of the run turns the course's own warnings into errors
    startup = os.path.join(_RUN_FOLDER, "ipython", "profile_default", "startup")
    os.makedirs(startup)
    shutil.copyfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests",
                                 "notebook_startup.py"),
                    os.path.join(startup, "00-course-warnings-are-errors.py"))
    os.environ["IPYTHONDIR"] = os.path.join(_RUN_FOLDER, "ipython")
    if config.option.basetemp is None:
        config.option.basetemp = os.path.join(_RUN_FOLDER, "pytest")


def pytest_unconfigure(config) -> None:
    global _RUN_FOLDER
    if _RUN_FOLDER is not None:
        shutil.rmtree(_RUN_FOLDER, ignore_errors=True)
        _RUN_FOLDER = None
