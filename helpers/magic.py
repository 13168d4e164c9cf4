"""The ``%%kernel NAME`` cell magic: write an exercise's kernel in a notebook cell and check it.

One kernel, one truth: the file ``kernels/NAME.cl`` (the file the editor route opens too). Running
the cell saves the cell's text there, then checks the file exactly as ``check("NAME")`` would; the
text it replaces is kept in ``kernels/previous/NAME-N.cl`` (N counting up), and every such save says
where. But when the file holds text this cell did not put there (edited in JupyterLab's editor, or
copied back from ``kernels/previous/``), the cell never overwrites it: the cell takes the file's
text (IPython's ``set_next_input``, which JupyterLab applies to the running cell), keeps its own
text in ``kernels/previous/`` if it differs, says both, and checks the file. What the cell last
saved or took is recorded per exercise in ``kernels/previous/.cells.json`` (a digest), so the rule
holds across restarts; a file holding the shipped skeleton (``helpers/data/skeletons.json``) is
the cell's to write (the skeleton is never lost: git and the course ship it). So Run All never
undoes work done in the editor, and no order of editing checks or saves an older text without
saying so. With the solutions switched on
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


def _next_kept(path: Path) -> Path:
    """``kernels/previous/NAME-N.cl``, N one past the last kept."""
    folder = path.parent / "previous"
    folder.mkdir(exist_ok=True)
    pattern = re.compile(rf"{re.escape(path.stem)}-(\d+)\.cl")
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := pattern.fullmatch(p.name))]
    return folder / f"{path.stem}-{max(numbers, default=0) + 1}.cl"


def keep_previous(path: Path) -> Path:
    """Copy ``path`` to ``kernels/previous/NAME-N.cl``, N one past the last kept; the copy's path."""
    kept = _next_kept(path)
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


def _record_file(path: Path) -> Path:
    return path.parent / "previous" / ".cells.json"


def last_synced(path: Path) -> str | None:
    """The digest of the text a ``%%kernel`` cell last saved to (or took from) ``path``."""
    try:
        return json.loads(_record_file(path).read_text()).get(path.stem)
    except (OSError, ValueError, AttributeError):
        return None


def remember_synced(path: Path, text: str) -> None:
    record = _record_file(path)
    try:
        known = json.loads(record.read_text())
        known = known if isinstance(known, dict) else {}
    except (OSError, ValueError):
        known = {}
    record.parent.mkdir(exist_ok=True)
    record.write_text(json.dumps({**known, path.stem: digest(text)}, indent=1))


def changed_elsewhere(name: str, path: Path) -> str | None:
    """The file's text when it holds text no ``%%kernel`` cell put there (nor the shipped
    skeleton): the learner's work by the editor route. None when the file is the cell's to write."""
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if digest(text) == last_synced(path) or is_skeleton(name, text):   # the skeleton: shipped
        return None
    return text


def keep_text(path: Path, text: str) -> Path:
    """Keep ``text`` in ``kernels/previous/NAME-N.cl`` as :func:`keep_previous` keeps a file."""
    kept = _next_kept(path)
    kept.write_text(text, encoding="utf-8")
    return kept


def take_into_cell(name: str, text: str) -> bool:
    """Replace the running cell's text with ``%%kernel NAME`` and ``text`` (JupyterLab applies
    IPython's set_next_input with replace to the cell that ran). False outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    ipython = get_ipython()
    if ipython is None:
        return False
    ipython.set_next_input(f"%%kernel {name}\n{text}", replace=True)
    return True


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
    theirs = changed_elsewhere(name, path)
    if theirs is not None and digest(theirs) != digest(text):
        take_file(name, path, text, theirs)
    else:
        path, kept, written = save_kernel(name, text)
        remember_synced(path, text)
        if kept is not None:
            print(f"Saved {display_path(path)}; the text it replaced is kept as "
                  f"{display_path(kept)} (copy it back, or paste it here, to return to it).")
        elif written:
            print(f"Saved {display_path(path)}.")
    check(name)


def take_file(name: str, path: Path, text: str, theirs: str) -> None:
    """The file changed outside this cell: the cell takes the file's text, keeping its own."""
    kept = None if is_skeleton(name, text) else keep_text(path, text)
    shown = take_into_cell(name, theirs)
    remember_synced(path, theirs)
    # JupyterLab puts the text into the cell once the cell's run has ended; another front end
    # may not: the file stays the truth either way (and a later save keeps what it replaces)
    where = "the cell takes its text" if shown else "run check() on it"
    print(f"{display_path(path)} was changed outside this cell (in the editor?) since the cell "
          f"last saved it, so the cell did not overwrite it: {where}, and the check runs on it."
          + (f" The cell's own text is kept as {display_path(kept)}." if kept else ""))


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
