"""A learner's notebook graded: run in the sandbox (:mod:`..sandbox`), and judged on what the grader
can verify, not on what the notebook's own code reports.

- The notebook runs under nbval inside bubblewrap: the learner's copy of the course is readable,
  and copied first into the sandbox's /tmp, a tmpfs of ``NOTEBOOK_DISK_MB`` (the bound on all it
  writes), where it runs: nothing a notebook writes outlives it or reaches the grader's folders.
- Its column is ``passed`` only when every cell ran (nbval's exit code, which the notebook's
  processes cannot set), every exercise it checks passed the grader's own check of the kernel that
  was handed in, and each check stands in a cell of its own as the course wrote it (a check inside
  ``try``/``except``, an ``if`` or a function is a check whose failure the notebook could swallow).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from ..sandbox import Jail

NOTEBOOK_DISK_MB = 512        # the tmpfs a notebook's copy of the course runs in
JUNIT_MARK = "@@course-junit@@"
# a cell that checks: check("NAME") as the whole cell, or an exercise's %%kernel NAME cell
_CHECK_ALONE = re.compile(r"""\A\s*(?:helpers\.)?check\(\s*["'](\w+)["']\s*\)\s*;?\s*\Z""")
_KERNEL_CELL = re.compile(r"\A\s*%%kernel[ \t]+(\w+)[ \t]*(?:\n|\Z)")
_MENTIONS = re.compile(r"""\bcheck\(\s*["'](\w+)["']""")


def checks_out_of_place(cells: list[str]) -> str:
    """The first check of an exercise that is not a cell of its own (the course's form), as the
    sentence's subject, or ""."""
    for text in cells:
        if _CHECK_ALONE.match(text) or _KERNEL_CELL.match(text):
            continue
        found = _MENTIONS.search(text)
        if found:
            line = text[:found.start()].count("\n") + 1
            return (f"its check of {found.group(1)} (cell line {line}: "
                    f"{text.splitlines()[line - 1].strip()[:80]}) is not a cell of its own")
    return ""


def sandboxed_command(pytest_args: list[str], copy: Path, hidden: list[Path],
                      uid: int | None = None) -> list[str]:
    """nbval over the learner's notebook, inside the sandbox (as user ``uid``, when the grader
    is root): the copy read-only at its place, copied into the sandbox's own tmpfs, run there;
    the junit report printed after a mark (it only explains a failure: the exit code decides)."""
    inner = "/tmp/course"
    script = (f'cp -R "$0"/. {inner}/ && cd {inner} && "$1" -m pytest "${{@:2}}"; code=$?; '
              f'printf "\\n{JUNIT_MARK}\\n"; cat {inner}/junit.xml 2>/dev/null; exit $code')
    jail = Jail(scratch=Path("/"), hidden=hidden, readable=[copy], tmp_mb=NOTEBOOK_DISK_MB,
                uid=uid)
    return jail.command(["bash", "-c", script, str(copy), sys.executable, *pytest_args,
                         f"--rootdir={inner}", f"--junitxml={inner}/junit.xml"])


def junit_of(stdout: str) -> str:
    """The junit report a sandboxed run printed after its mark ("" if none)."""
    return stdout.rsplit(JUNIT_MARK, 1)[1].strip() if JUNIT_MARK in stdout else ""


def judged(notebook_passed: bool, checked: list[str], kernel_status: dict[str, str]) -> str:
    """"" when the notebook's column may pass: every exercise it checks passed the grader's own
    check of the handed-in kernel; else the sentence that says which did not."""
    if not notebook_passed:
        return ""
    failing = [f"{n} ({kernel_status.get(n, 'not graded')})" for n in checked
               if kernel_status.get(n) != "passed"]
    if not failing:
        return ""
    return (f"every cell ran, but the grader's own check of the kernel handed in did not pass for "
            f"{', '.join(failing)}: a notebook passes only with kernels that pass")
