"""Run by every Jupyter kernel that the test suite starts (conftest.py copies it into the startup
folder of an IPython profile of the run's own, through IPYTHONDIR): under test, a warning that the
course's own code issues (a helpers module, a notebook's cell) is an error, and so is a driver's
chatter that pyopencl passes on as a CompilerWarning ("Non-empty compiler output encountered"). A
learner's notebook is never run this way."""

import warnings as _warnings

_warnings.filterwarnings("error", module=r"(helpers(\..*)?|__main__)$")
try:
    import pyopencl as _cl
except ImportError:
    pass
else:
    _warnings.filterwarnings("error", category=_cl.CompilerWarning)
    del _cl
del _warnings
