"""A learner's files as hostile input: read only what is a regular file, within a size, as text; a
kernel checked from its own text alone (no ``#include``: an exercise kernel is self-contained, and
an include is how a kernel would copy the solution or read a file it has no business reading).

The children that build and run learner code get their bounds in :mod:`helpers.workers`
(:func:`~helpers.workers.learner_limits`); the grader's copies and archives use :func:`read_regular`.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

KERNEL_BYTES = 1 << 20        # a kernel file larger than this is refused (the course's are < 10 KB)
NOTEBOOK_BYTES = 20 << 20     # a notebook, outputs included


class RefusedFile(ValueError):
    """A learner's file that is not read; the sentence says why."""


def read_regular(path: Path, limit: int, shown: str | None = None,
                 follow: bool = False) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes; never through a
    symbolic link unless ``follow`` (a learner's own check may use one; the grader never does)."""
    shown = shown or str(path)
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if not follow and os.path.islink(path):
            raise RefusedFile(f"{shown} is a symbolic link, not a file: hand in the file "
                              f"itself") from None
        raise RefusedFile(f"{shown} could not be read ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RefusedFile(f"{shown} is not a regular file")
        if st.st_size > limit:
            raise RefusedFile(f"{shown} is {st.st_size / 2**20:.1f} MiB, more than the "
                              f"{limit / 2**20:g} MiB a file of this kind may have")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
        if len(data) > limit:
            raise RefusedFile(f"{shown} grew past {limit / 2**20:g} MiB while it was read")
        return data
    finally:
        os.close(fd)


def kernel_text(path: Path, shown: str, follow: bool = True) -> str:
    """A kernel file's text: UTF-8 (a byte-order mark allowed), no NUL bytes, at most
    KERNEL_BYTES; RefusedFile with a sentence otherwise."""
    data = read_regular(path, KERNEL_BYTES, shown, follow=follow)
    if b"\0" in data:
        raise RefusedFile(f"{shown} is not a text file (it holds NUL bytes): a kernel is OpenCL C "
                          f"source, saved as plain UTF-8 text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise RefusedFile(f"{shown} is not UTF-8 text (byte 0x{data[e.start]:02x} on line "
                          f"{line}): save it as UTF-8, the encoding the course's files use") \
            from None


@dataclass(frozen=True)
class Submission:
    """A kernel handed in, read once when its check starts (:meth:`read`): what every pass
    builds, what the warp model counts, what the verdict names, what the record of passed checks
    keeps (its digest) and what the class view's re-check is given. Nothing after it opens the
    kernel file again (which may change meanwhile, or be a link)."""

    path: Path
    text: str
    refused: str | None = None     # why it cannot be built as handed in (None: it can)

    @classmethod
    def read(cls, path: Path, shown: str | None = None) -> Submission:
        shown = shown or str(path)
        try:
            text = kernel_text(path, shown)
        except RefusedFile as e:
            return cls(path, "", str(e))
        return cls(path, text, self_contained(text, shown))

    @property
    def digest(self) -> str:
        """The text's digest (SHA-256 of its UTF-8), as the record of passed checks keeps it."""
        from ..exercises.passed import text_digest
        return text_digest(self.text)


# the nine trigraphs, which a C compiler may replace before anything else (clang does in OpenCL C's
# modes): '??/' is a backslash, so it splices lines too
_TRIGRAPHS = {"=": "#", "/": "\\", "'": "^", "(": "[", ")": "]", "!": "|", "<": "{", ">": "}",
              "-": "~"}
_TRIGRAPH = re.compile(r"\?\?([=/'()!<>-])")
# a backslash, blanks, then the end of the line: clang and gcc splice it as they do backslash-newline
_BLANKS_BEFORE_SPLICE = re.compile(r"\\[ \t\f\v]+\n")


def _code_only(source: str) -> str:
    """The source with trigraphs replaced, lines spliced (backslash-newline, blanks allowed between)
    and comments replaced by a space, string and character literals kept: what the preprocessor's
    directives are read from. A newline is kept for each one removed, so that line numbers stay
    those of the file."""
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    text = _TRIGRAPH.sub(lambda m: _TRIGRAPHS[m.group(1)], text)
    text = _BLANKS_BEFORE_SPLICE.sub("\\\n", text)
    out: list[str] = []
    i, n, pending = 0, len(text), 0
    quote = None
    while i < n:
        c = text[i]
        if c == "\\" and text.startswith("\n", i + 1):      # a spliced line
            pending += 1
            i += 2
            continue
        if c == "\n":
            out.append("\n" * (pending + 1))
            pending, quote = 0, None     # an unterminated literal ends with its line
            i += 1
            continue
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n and text[i + 1] != "\n":
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "\"'":
            quote = c
            out.append(c)
            i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            pending += text.count("\n", i, end)
            out.append(" ")
            i = end
            continue
        if text.startswith("//", i):
            j = i + 2
            while j < n and text[j] != "\n":      # a // comment goes on over spliced lines
                if text[j] == "\\" and text.startswith("\n", j + 1):
                    pending += 1
                    j += 1
                j += 1
            out.append(" ")
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


# '#', its digraph '%:' and trigraph '??=' start a directive; these read another file (or ask
# whether one exists)
_DIRECTIVE = re.compile(r"^[ \t\f\v]*(?:#|%:|\?\?=)[ \t\f\v]*(include_next|include|import|embed)\b",
                        re.MULTILINE)
_HAS_INCLUDE = re.compile(r"\b__has_include(?:_next)?\b")


def include_in(source: str) -> tuple[int, str] | None:
    """(line, that line of the file) of the first directive that would read another file, or None.
    Comments, spliced lines, digraphs and trigraphs are seen through; string literals are not
    directives."""
    code = _code_only(source)
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found = [m.start() for m in (_DIRECTIVE.search(code), _HAS_INCLUDE.search(code)) if m]
    if not found:
        return None
    line = code.count("\n", 0, min(found)) + 1
    return line, lines[line - 1].strip() if line <= len(lines) else ""


# Inline assembly: clang accepts it in OpenCL C and CPU drivers (Intel's, PoCL) run it, so a kernel
# could run any instruction (a system call) as the grader. The identifiers that open it, and the
# preprocessor's token pasting (## and its digraph and trigraph spellings), which is the one way to
# make an identifier out of pieces, so that no macro can hide it: an exercise kernel needs neither.
_ASSEMBLY = re.compile(r"(?<![\w$])(__asm__|__asm|asm)(?![\w$])")
_PASTING = re.compile(r"##|%:%:|\?\?=\?\?=")


def _without_literals(code: str) -> str:
    """``code`` (comments gone, see :func:`_code_only`) with string and character literals blanked,
    newlines kept."""
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                  lambda m: " " * len(m.group(0)), code)


def assembly_in(source: str) -> tuple[int, str, str] | None:
    """(line, that line of the file, what) of the first inline assembly or token pasting, after
    comments and spliced lines are seen through, in every branch of every #if; or None."""
    code = _without_literals(_code_only(source))
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found = [(m.start(), f"inline assembly ({m.group(1)})") for m in _ASSEMBLY.finditer(code)]
    found += [(m.start(), "token pasting (##)") for m in _PASTING.finditer(code)]
    if not found:
        return None
    at, what = min(found)
    line = code.count("\n", 0, at) + 1
    return line, lines[line - 1].strip() if line <= len(lines) else "", what


def self_contained(source: str, shown: str) -> str | None:
    """None for a kernel that reads no other file and holds no inline assembly; else the sentence
    a learner reads."""
    found = include_in(source)
    if found is not None:
        line, text = found
        return (f"{shown}:{line}: {text}\n"
                f"An exercise kernel is self-contained: the check builds it from its own text "
                f"alone, as the grader does, and no #include (or __has_include) is allowed. Copy "
                f"what you need into this file.")
    asm = assembly_in(source)
    if asm is not None:
        line, text, what = asm
        return (f"{shown}:{line}: {text}\n"
                f"This kernel uses {what}, which the course refuses: inline assembly runs machine "
                f"instructions outside OpenCL (on a CPU device, as the person checking), and token "
                f"pasting could spell it out of pieces. No exercise needs either: write the "
                f"kernel in OpenCL C.")
    return None
