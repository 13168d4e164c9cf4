"""What the grader takes in: a folder or an archive of learners' folders, unpacked with limits (no
path that escapes, no link, no member past its size), the learner folders found, and what a notebook
handed in says it checks (read, never run)."""

from __future__ import annotations

import json
import re
import tarfile
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath

from ..learner import KERNEL_BYTES, NOTEBOOK_BYTES
from .report import shown_name


class GradeUsageError(ValueError):
    """The submissions cannot be graded as given (the sentence says why); exit 2."""


ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")


def _safe_members(names: list[str], archive: Path) -> None:
    for name in names:
        parts = PurePosixPath(name.replace("\\", "/")).parts
        if name.startswith(("/", "\\")) or ".." in parts or (parts and ":" in parts[0]):
            raise GradeUsageError(f"{archive.name} holds a path that leaves its folder ({name!r}): "
                                  f"it was not unpacked")


ARCHIVE_MB = 50              # an archive that would expand past this is refused (--max-archive-mb)


ARCHIVE_MEMBERS = 20000      # ... or that holds more members than this


# the only members unpacked: a learner's kernels and notebooks (the rest is never written)
_WANTED = re.compile(r"^(?:[^/]+/)*kernels/[^/]+\.cl$|^(?:[^/]+/)*notebooks/[^/]+\.ipynb$")


def _member_limit(name: str) -> int:
    return KERNEL_BYTES if name.endswith(".cl") else NOTEBOOK_BYTES


def unpack(archive: Path, into: Path, max_mb: float = ARCHIVE_MB,
           refused: list[str] | None = None) -> Path:
    """Unpack the kernels and notebooks of a zip or tar archive into ``into``: its members counted
    and their sizes summed first (refused past ``max_mb`` MB or ARCHIVE_MEMBERS members), no path
    that escapes (``..``, absolute), no link or device (each one's path and why, in ``refused``),
    each file within its own size limit."""
    refused = [] if refused is None else refused
    try:
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as z:
                infos = z.infolist()
                _safe_members([i.filename for i in infos], archive)
                _within(archive, len(infos), sum(i.file_size for i in infos), max_mb)
                for info in infos:
                    if not info.is_dir() and _WANTED.match(info.filename):
                        with z.open(info) as src:
                            _write_capped(src, into, info.filename, refused)
        else:
            with tarfile.open(archive) as t:
                members = t.getmembers()
                _safe_members([m.name for m in members], archive)
                # a link, a device or a FIFO is never unpacked: refused for its learner alone
                refused.extend(f"{m.name}: not a plain file or folder (a link, a device or a "
                               f"FIFO), so it was not unpacked" for m in members
                               if not (m.isfile() or m.isdir()))
                _within(archive, len(members), sum(m.size for m in members), max_mb)
                for m in members:
                    if m.isfile() and _WANTED.match(m.name):
                        src = t.extractfile(m)
                        if src is not None:
                            _write_capped(src, into, m.name, refused)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
        raise GradeUsageError(f"{archive} could not be read as an archive ({e})") from None
    into.mkdir(parents=True, exist_ok=True)
    # an archive of one folder that holds the learners: grade inside it
    entries = [p for p in into.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    if len(entries) == 1 and entries[0].is_dir() and not (entries[0] / "kernels").is_dir():
        return entries[0]
    return into


def _within(archive: Path, count: int, total: int, max_mb: float) -> None:
    if count > ARCHIVE_MEMBERS:
        raise GradeUsageError(f"{archive.name} holds {count} members, more than the "
                              f"{ARCHIVE_MEMBERS} a class's archive may have: it was not unpacked")
    if total > max_mb * 1e6:
        raise GradeUsageError(f"{archive.name} would expand to {total / 1e6:.0f} MB, more than "
                              f"the {max_mb:g} MB allowed (--max-archive-mb raises it): it was not "
                              f"unpacked")


def _write_capped(src, into: Path, name: str, refused: list[str]) -> None:
    """One member written under ``into``, read no further than its limit (a member's declared
    size may lie); one past it is refused for its learner alone (its path and why, in
    ``refused``)."""
    limit = _member_limit(name)
    data = src.read(limit + 1)
    if len(data) > limit:
        refused.append(f"{name}: larger than the {limit >> 20} MiB a {Path(name).suffix} file may "
                       f"have, so it was not unpacked")
        return
    target = into / PurePosixPath(name.replace("\\", "/"))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def learners(root: Path) -> tuple[dict[str, Path], dict[str, str]]:
    """The learner folders under ``root`` that can be graded, by name, and those refused, each
    with why (for that learner alone); a sentence when ``root`` holds no learner at all."""
    if not root.is_dir():
        raise GradeUsageError(f"{root} is not a folder or an archive of learners' folders")
    entries = sorted(p for p in root.iterdir() if (p.is_dir() or p.is_symlink())
                     and not p.name.startswith((".", "__")))
    if not entries:
        raise GradeUsageError(f"{root} holds no learner folders: put one folder per learner in it, "
                              f"each with its kernels/ folder")
    found: dict[str, Path] = {}
    refused: dict[str, str] = {}
    seen: dict[str, str] = {}
    for p in entries:
        key = unicodedata.normalize("NFC", p.name).casefold()
        # a link is never followed: a learner's folder, or its kernels/, that is a link is not theirs
        if p.is_symlink():
            refused[p.name] = "the learner's folder is a link, which the grader never follows"
        elif (p / "kernels").is_symlink():
            refused[p.name] = "its kernels/ folder is a link, which the grader never follows"
        elif not (p / "kernels").is_dir():
            refused[p.name] = ("it has no kernels/ folder (a learner's folder is laid out like "
                               "the course)")
        elif key in seen:
            refused[p.name] = (f"its name differs from {shown_name(seen[key])!r}'s only in case or "
                               f"in how its letters are encoded, so a gradebook could not tell "
                               f"their rows apart (the first of the two was graded)")
        else:
            seen[key] = p.name
            found[p.name] = p
    return found, refused


def _missing(learner: str, exercise: str, root: Path, tmp: Path, skipped: list[str]) -> str:
    """Why a learner's kernel is missing: not handed in, or refused when the archive was unpacked
    (a link in its place)."""
    inside = root.relative_to(tmp / "unpacked").as_posix() if root.is_relative_to(
        tmp / "unpacked") else ""
    wanted = "/".join(p for p in (inside, learner, "kernels", f"{exercise}.cl") if p and p != ".")
    why = next((s for s in skipped if s.startswith(wanted + ":")), None)
    return f"kernels/{exercise}.cl was refused ({why})" if why else \
        f"kernels/{exercise}.cl was not handed in"


# a check: check("NAME"), or an exercise's %%kernel NAME cell (helpers.magic), which checks too
_CHECK_CALL = re.compile(r"""\bcheck\(\s*["'](\w+)["']|\A\s*%%kernel[ \t]+(\w+)""")


def code_cells(notebook: Path) -> list[str]:
    """The sources of a notebook's code cells ([] for a file that is not a notebook)."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return []
    out = []
    for cell in cells if isinstance(cells, list) else []:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            text = cell.get("source", "")
            out.append("".join(text) if isinstance(text, list) else str(text))
    return out


def check_calls(notebook: Path) -> list[str]:
    """The exercises a notebook's code cells check (``check("NAME")`` or ``%%kernel NAME``), in
    order."""
    found: list[str] = []
    for text in code_cells(notebook):
        for a, b in _CHECK_CALL.findall(text):
            if (a or b) not in found:
                found.append(a or b)
    return found


def rebinds_check(notebook: Path) -> str:
    """The first line of the notebook's code that puts something else in place of the course's
    ``check`` (a def, an assignment, an import from elsewhere, an attribute set), or ""."""
    import ast
    for text in code_cells(notebook):
        # IPython's magics and shell lines are not Python
        source = "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln
                           for ln in text.splitlines())
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            bound = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr,
                                   ast.For, ast.With, ast.Delete)):
                targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
                for item in getattr(node, "items", []):
                    targets.append(item.optional_vars)
                for t in targets:
                    for sub in ast.walk(t) if t is not None else ():
                        if isinstance(sub, ast.Name):
                            bound.append(sub.id)
                        elif isinstance(sub, ast.Attribute):
                            bound.append(sub.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                ours = isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] \
                    == "helpers" and node.level == 0
                bound = [a.asname or a.name for a in node.names
                         if not (ours and a.name == "check" and a.asname in (None, "check"))]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "setattr":
                bound = ["check"]   # setattr(...) with a name spelled at run time: not allowed
            if "check" in bound:
                return ast.get_source_segment(source, node).splitlines()[0].strip()
    return ""


def missing_checks(notebook: Path) -> str:
    """What the learner's notebook lacks of the course's notebook of the same name ("" when
    nothing): a cell that checks an exercise, or most of its code cells."""
    from ...kernels import ROOT
    course = ROOT / "notebooks" / notebook.name
    mine = set(check_calls(notebook))
    lacking = [n for n in check_calls(course) if n not in mine]
    if lacking:
        return f"lacks the cells that check {', '.join(lacking)}"
    have, want = len(code_cells(notebook)), len(code_cells(course))
    if have < want:
        return f"has {have} code cells where the course's has {want}"
    return ""
