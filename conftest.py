"""Settings for every pytest run, tests and notebooks alike (``pytest notebooks/01-...ipynb`` too):
the solutions switched on, small sizes, no display, and an empty cache of measured peaks and passed
checks. Set at import, so that the Jupyter kernels nbval starts inherit them; tests that check the
learner's skeletons pass ``solutions=False`` explicitly.
"""

from __future__ import annotations

import os
import tempfile

os.environ.setdefault("COURSE_SOLUTIONS", "1")
os.environ.setdefault("COURSE_SMALL", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("COURSE_CACHE", tempfile.mkdtemp(prefix="course-cache-"))
