"""Grading a class: every learner's kernels through the same check as ``check("NAME")``.

``python -m helpers grade SUBMISSIONS [--out DIR] [--jobs N] [--only NAME ...] [--require-speed]``

SUBMISSIONS is a folder with one folder per learner, each laid out like the course (its ``kernels/``),
or a ``.zip`` / ``.tar`` / ``.tar.gz`` of such folders. Every learner's kernel files are copied into
a private folder first (SUBMISSIONS is only read), and each check runs the kernel in its own child
process with the course's time limits (:func:`helpers.checking.run_check`), up to ``jobs`` at once,
so that one learner's crash, hang or endless output neither stops nor skews the others.

Written to ``--out`` (default ``./grades``): ``grades.csv`` (a row per learner, a column per
exercise: passed, failed, missing, crashed or timed out, and the number passed), ``details.json``
(every diagnosis) and ``report.html`` (the class as a colored matrix; each cell opens its diagnosis;
per exercise the share that passed and the most common likely mistake).

- :mod:`.intake`: the submissions read, archives unpacked with limits, notebooks read (never run);
- :mod:`.running`: the checks side by side, in the sandbox (:mod:`..sandbox`);
- :mod:`.notebooks`, :mod:`.judging`: the notebooks run under nbval in the sandbox, and judged;
- :mod:`.report`: grades.csv, details.json, report.html and the summary.
"""

from .intake import GradeUsageError
from .report import STATUSES, Grade, csv_cell, shown_name, summary
from .running import GradeOptions, grade

__all__ = ["STATUSES", "Grade", "GradeOptions", "GradeUsageError", "csv_cell", "grade",
           "shown_name", "summary"]
