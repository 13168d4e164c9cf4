"""The course as git holds it, for tests that are about what the course ships: a learner's checkout
has solved or half-written kernels in kernels/ and notebooks saved with outputs, and the suite must
pass there without reading (or changing) the learner's files.

:func:`committed` reads a file from git's index (what was committed, unless the learner staged
something); outside a git checkout (a course unpacked from an archive) it is the file itself.
"""

from __future__ import annotations

import functools
import subprocess
import tempfile
from pathlib import Path

from helpers.paths import ROOT

# what a test of the shipped course adds to its advice: it reads git's index, not the working tree
STAGE = (", then stage what it wrote (git add): this test reads git's index, not the working "
         "tree (docs/design.md, section 4)")


@functools.cache
def tracked() -> frozenset[str] | None:
    """The paths git tracks (relative, with '/'), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return frozenset(p for p in out.stdout.decode().split("\0") if p)


def committed(relative: str) -> bytes:
    """The bytes git holds for ``relative`` (a path under the course folder, with '/')."""
    if tracked() is None or relative not in tracked():
        return (ROOT / relative).read_bytes()
    return subprocess.run(["git", "show", f":{relative}"], cwd=ROOT, capture_output=True,
                          timeout=60, check=True).stdout


@functools.cache
def _folder() -> Path:
    return Path(tempfile.mkdtemp(prefix="course-shipped-"))


def shipped_file(relative: str) -> Path:
    """A file holding what the course ships at ``relative``: the file itself when it is unchanged,
    else a copy of git's version under the run's temporary folder (same file name, so that
    diagnoses cite it as kernels/NAME.cl would be cited, by its name)."""
    data = committed(relative)
    here = ROOT / relative
    if here.is_file() and here.read_bytes() == data:
        return here
    copy = _folder() / relative
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(data)
    return copy


def shipped_skeleton(name: str) -> Path:
    """Exercise ``name``'s skeleton as shipped (``kernels/NAME.cl`` in git)."""
    return shipped_file(f"kernels/{name}.cl")
