"""Local memory that starts as a known pattern: the check's own look for reads of local memory that
nothing wrote, for kernels on which Oclgrind's plugin for uninitialized values cannot run.

OpenCL promises nothing about what local memory holds when a work-group starts. On a CPU runtime it
usually holds what the last work-group run by the same thread left there (the same kind of values
as the right ones), so a kernel that reads slots no work-item wrote often gets a plausible, wrong
answer, and filling local memory from another kernel beforehand changes nothing (measured on PoCL
and Intel's CPU runtime). So the pattern is written by the learner's kernel itself: a copy of its
source whose kernel function first fills every local buffer (its ``__local`` pointer arguments and
the ``__local`` arrays it declares) with the pattern, then waits at a barrier, then runs the
learner's code unchanged. The lines of the learner's code keep their numbers: the added code goes
on the lines where it is inserted.

Run twice on the same inputs with two patterns, a kernel that reads no unwritten local memory
gives the same bits; one that does gives results that change with the pattern.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LOCAL_ARRAY = re.compile(r"\b(?:__)?local\s+(?:const\s+|volatile\s+)*[A-Za-z_]\w*\s+"
                          r"([A-Za-z_]\w*)\s*\[[^;]*;")
_FILL = ("for (size_t _course_k = _course_lid; _course_k < ({words}); _course_k += _course_all) "
         "((__local uint *)({name}))[_course_k] = _course_pattern; ")


@dataclass(frozen=True)
class Instrumented:
    """The kernel's source with the fill added, and the names of its local pointer arguments, in
    order: the instrumented kernel takes, after its own arguments, the number of 4-byte words of
    each of them, then the pattern."""

    source: str
    local_args: tuple[str, ...]


def _blank(text: str) -> str:
    """``text`` with its comments replaced by spaces of the same length (offsets stay put)."""
    return _COMMENTS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def _matching(text: str, start: int, opening: str, closing: str) -> int:
    """The index of the bracket that closes the one at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing:
            depth -= 1
            if depth == 0:
                return i
    raise ValueError("unbalanced")


def instrument(source: str, function: str) -> Instrumented | None:
    """The source with kernel ``function`` filling its local memory first; None when its
    definition cannot be found (a macro-made signature, say): the look is then not made."""
    plain = _blank(source)
    m = re.search(r"\b(?:__)?kernel\s+(?:__attribute__\s*\(\(.*?\)\)\s*)*void\s+"
                  + re.escape(function) + r"\s*\(", plain, re.DOTALL)
    if m is None:
        return None
    try:
        close = _matching(plain, m.end() - 1, "(", ")")
        body = plain.index("{", close)
        end = _matching(plain, body, "{", "}")
    except ValueError:
        return None
    if plain[close + 1:body].strip() and not plain[close + 1:body].strip().startswith("__attribute"):
        return None
    params = [p.strip() for p in plain[m.end():close].split(",") if p.strip()]
    local_args = []
    for p in params:
        words = p.replace("*", " * ").split()
        if ("__local" in words or "local" in words) and "*" in words:
            local_args.append(words[-1])
    arrays = [(a.group(1), a.end()) for a in _LOCAL_ARRAY.finditer(plain, body, end)]
    if not local_args and not arrays:
        return None
    extra = "".join(f", const uint _course_words{i}" for i in range(len(local_args)))
    extra += ", const uint _course_pattern"
    setup = ("const size_t _course_lid = get_local_id(0) + get_local_size(0) * (get_local_id(1) + "
             "get_local_size(1) * get_local_id(2)); const size_t _course_all = get_local_size(0) "
             "* get_local_size(1) * get_local_size(2); ")
    fills = "".join(_FILL.format(words=f"_course_words{i}", name=name)
                    for i, name in enumerate(local_args))
    head = setup + fills + ("barrier(CLK_LOCAL_MEM_FENCE); " if fills else "")
    # Insert from the end backwards so that the offsets found above stay right.
    out = source
    for name, at in sorted(arrays, key=lambda x: -x[1]):
        out = (out[:at] + " " + _FILL.format(words=f"sizeof({name}) / 4", name=name)
               + "barrier(CLK_LOCAL_MEM_FENCE);" + out[at:])
    out = out[:body + 1] + " " + head + out[body + 1:]
    out = out[:close] + extra + out[close:]
    return Instrumented(out, tuple(local_args))
