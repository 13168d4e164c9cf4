"""The ``%%kernel NAME`` cell magic: write an exercise's kernel in a notebook cell and check it.

The cell's text is saved as ``kernels/NAME.cl`` (the file the editor route opens too), then checked
exactly as ``check("NAME")`` would. Nothing the learner wrote is lost: a file it replaces is kept
first in ``kernels/previous/NAME-N.cl`` (N counting up), and the first save of a session says where.
A cell that still holds the exercise's starting kernel (its digest is the shipped skeleton's,
``helpers/data/skeletons.json``) never replaces a file that differs from it: that file is the
learner's work by the editor route, and it is what the cell checks. So Run All never undoes work done
in the editor, and the one cell serves both routes. With the solutions switched on
(``COURSE_SOLUTIONS=1``: the course's own tests) the cell is not saved and the solution is checked,
so that no test ever writes into a learner's ``kernels/``.

``import helpers`` registers the magic in IPython (``helpers/__init__``); ``%load_ext helpers.magic``
does the same by hand.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from functools import cache
from pathlib import Path

from .kernels import display_path, kernel_path, solutions_on
from .paths import ROOT

SKELETONS = ROOT / "helpers" / "data" / "skeletons.json"

USAGE = "usage: %%kernel NAME, then the kernel's OpenCL C source in the rest of the cell"
_told: set[str] = set()   # the exercises whose way back was printed in this session


def digest(text: str) -> str:
    """A kernel's digest, blind to line endings and trailing blanks (an editor's habits)."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    return hashlib.sha256("\n".join(lines).strip("\n").encode()).hexdigest()


@cache
def skeleton_digests() -> dict[str, str]:
    """Exercise name -> the digest of its shipped skeleton (tools/sync_exercise_cells.py writes
    them; a test compares them with the skeletons git holds)."""
    try:
        return json.loads(SKELETONS.read_text())
    except (OSError, ValueError):
        return {}


def is_skeleton(name: str, text: str) -> bool:
    return skeleton_digests().get(name) == digest(text)


def keep_previous(path: Path) -> Path:
    """Copy ``path`` to ``kernels/previous/NAME-N.cl``, N one past the last kept; the copy's path."""
    folder = path.parent / "previous"
    folder.mkdir(exist_ok=True)
    pattern = re.compile(rf"{re.escape(path.stem)}-(\d+)\.cl")
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))]
    kept = folder / f"{path.stem}-{max(numbers, default=0) + 1}.cl"
    shutil.copyfile(path, kept)
    return kept


def save_kernel(name: str, text: str) -> tuple[Path, Path | None, bool]:
    """Write ``text`` as exercise ``name``'s kernel file, keeping the one it replaces.
    Returns (the file, the kept copy or None, whether anything was written)."""
    path = kernel_path(name, solutions=False)
    old = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    if old == text:
        return path, None, False
    kept = keep_previous(path) if old is not None else None
    path.write_text(text, encoding="utf-8")
    return path, kept, True


def kernel(line: str, cell: str) -> None:
    """``%%kernel NAME``: save the cell as ``kernels/NAME.cl`` and check it (see the module)."""
    from .checking import check
    from .exercises import get
    name = line.strip()
    if not re.fullmatch(r"\w+", name):
        print(USAGE)
        return
    try:
        get(name)
    except KeyError as e:
        print(f"{e.args[0]}\n{USAGE}")
        return
    if solutions_on():
        print(f"The solutions are switched on (COURSE_SOLUTIONS=1): this cell is not saved, and "
              f"the check runs {display_path(kernel_path(name))}.")
        check(name)
        return
    text = cell if cell.endswith("\n") else cell + "\n"
    path = kernel_path(name, solutions=False)
    if is_skeleton(name, text) and path.is_file() and not is_skeleton(name, path.read_text(
            encoding="utf-8", errors="replace")):
        print(f"This cell still holds the starting kernel, so it checks your "
              f"{display_path(path)} (write your kernel in this cell to check the cell instead).")
        check(name)
        return
    path, kept, written = save_kernel(name, text)
    if kept is not None and name not in _told:
        _told.add(name)
        print(f"Saved {display_path(path)}. Your previous version is kept as {display_path(kept)}: "
              f"each save keeps the file it replaces in kernels/previous/; to go back, copy one "
              f"over {display_path(path)} (or paste it into this cell).")
    elif written:
        print(f"Saved {display_path(path)}.")
    check(name)


def load_ipython_extension(ipython) -> None:
    """``%load_ext helpers.magic`` (and ``import helpers``): register ``%%kernel``."""
    ipython.register_magic_function(kernel, magic_kind="cell", magic_name="kernel")


def register_in_ipython() -> None:
    """Register the magic when this process is an IPython kernel that has imported IPython."""
    import sys
    if "IPython" not in sys.modules:
        return
    from IPython import get_ipython
    ipython = get_ipython()
    if ipython is not None:
        load_ipython_extension(ipython)
