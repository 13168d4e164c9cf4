"""What the course remembers of passed checks: the digests of the kernel texts that passed each
exercise, so that demos and measurements run the learner's own kernel once it is right (and the
solution until then). The checker writes it; the explorer, the sweeps and the bench read it.
"""

from __future__ import annotations

from pathlib import Path

from .. import cache
from ..kernels import kernel_path, solution_file

PASSED = "passed-checks"  # cache document: exercise -> digests of kernel texts that passed


def text_digest(text: str) -> str:
    """A kernel text's digest, as the check read it (UTF-8)."""
    import hashlib
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def remember_pass(name: str, digest: str) -> None:
    """Record that the kernel text of ``digest`` (:func:`text_digest` of the one text the check
    read and judged, its submission's, never the file read again) passed exercise ``name``."""
    try:
        record = cache.read(PASSED)
        record.setdefault(name, [])
        if digest not in record[name]:
            record[name] = (record[name] + [digest])[-20:]
            cache.write(PASSED, record)
    except OSError:  # a read-only home: the explorer then keeps using the solution
        pass


def has_passed(name: str, path: Path) -> bool:
    """Whether the kernel file at ``path``, as it is now, has passed the check of ``name``."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
        return path.is_file() and text_digest(text) in cache.read(PASSED).get(name, [])
    except (OSError, UnicodeDecodeError):
        return False


class NotPassedYet(FileNotFoundError):
    """A measurement of an exercise whose solution is not here (a graded day) and whose kernel
    has not passed its check yet."""


def kernel_to_measure(name: str) -> Path:
    """The kernel file that demos and measurements of exercise ``name`` run: the learner's own
    once its current text has passed the check, the solution until then (where there is none, a
    graded day's copy, :class:`NotPassedYet` says so)."""
    mine = kernel_path(name, solutions=False)
    if has_passed(name, mine):
        return mine
    theirs = solution_file(name)
    if theirs is None:
        raise NotPassedYet(f"This cell measures your {name} once it passes check(\"{name}\"), and "
                           f"it has not yet (as it is now): the solutions are not on this server, "
                           f"so there is nothing else to measure. Check it first.")
    return theirs


def kernel_and_role(name: str) -> tuple[Path, str]:
    """:func:`kernel_to_measure`'s file and whose it is: ``"yours"`` or ``"solution"``."""
    path = kernel_to_measure(name)
    return path, "solution" if path == solution_file(name) else "yours"
