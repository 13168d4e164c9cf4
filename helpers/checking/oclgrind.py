"""Oclgrind as the referee: the environment that turns its checks on, and its reports parsed into
findings placed at the learner's file and line.

A report is a block: a heading line (``Invalid write of size 4 at global memory address ...``,
``Read-write data race at local memory address ...``, ``Work-group divergence detected (barrier)``,
``Uninitialized value ...``), then tab-indented lines that name the kernel, the work-item (``Entity:
Global(100,0,0) Local(36,0,0) Group(1,0,0)``) and ``At line L (column C) of input.cl:``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .. import driver_facts

# Turn on the checks that are off by default; bound the flood a badly broken kernel makes.
ENVIRONMENT = {
    "OCLGRIND_DATA_RACES": "1",
    "OCLGRIND_UNINITIALIZED": "1",
    "OCLGRIND_MAX_ERRORS": "200",
    "OCLGRIND_INST_COUNTS": "1",  # what it executed, by kind and address space (see counts)
    "PYOPENCL_NO_CACHE": "1",  # cached binaries lose the source lines
    "LC_ALL": "C",  # its counts are printed in the locale's digits (1.234 in de_DE): the C one's
}

# heading pattern -> (kind, what it means for the learner)
KINDS: list[tuple[re.Pattern, str, str]] = [
    (re.compile(r"^Invalid write"), "out_of_bounds_write",
     "write outside a buffer"),
    (re.compile(r"^Invalid read"), "out_of_bounds_read",
     "read outside a buffer"),
    (re.compile(r"data race"), "race",
     "data race: two work-items touch the same element without a barrier between them"),
    (re.compile(r"divergence detected \(barrier\)"), "divergent_barrier",
     "divergent barrier: not every work-item of a work-group reached this barrier"),
    (re.compile(r"divergence"), "divergence",
     "work-group divergence: work-items disagree about a work-group function"),
    (re.compile(r"^Uninitialized value"), "uninitialized",
     "a value that was never initialized reached a result"),
]

_LOCATION = re.compile(r"At line (\d+) \(column (\d+)\)")
# Oclgrind stops simulating a work-group at an instruction it (or one of its plugins) cannot handle:
# "OCLGRIND FATAL ERROR (/deps/Oclgrind/src/plugins/Uninitialized.cpp:1805)", then the reason
# ("Unsupported instruction: freeze"); and, from its core, "Undefined external function: llvm.*"
# (the words it begins such a line with, and the gaps seen: helpers/data/drivers.json)
# Both at the start of their line, never indented: Oclgrind indents what it quotes of the kernel
# (the source line of a report), and text a learner wrote must never pass for Oclgrind's own
_FATAL = re.compile(r"^OCLGRIND FATAL ERROR \(([^)]*)\)")
_GAP_REASON = re.compile(r"^((?:" + "|".join(map(re.escape, driver_facts.oclgrind_gap_reasons())) + ")"
                         r"[\w ]*: *[\w.$]+)", re.MULTILINE)
_ENTITY = re.compile(r"Global\(([\d,]+)\) Local\(([\d,]+)\) Group\(([\d,]+)\)")
_WORK_GROUP = re.compile(r"Work-group: \(([\d,]+)\)")
_ONLY = re.compile(r"Only (\d+) out of (\d+) work-items executed")


@dataclass(frozen=True)
class Finding:
    """One kind of problem at one place of the kernel, with how often Oclgrind saw it."""

    kind: str
    meaning: str
    heading: str
    line: int | None
    col: int | None
    code: str | None
    entity: str | None
    count: int = 1

    def format(self, shown_path: str) -> str:
        where = f"{shown_path}:{self.line}:{self.col}" if self.line else shown_path
        text = f"{where}: {self.meaning}"
        detail = [self.heading]
        if self.entity:
            detail.append(self.entity)
        if self.count > 1:
            detail.append(f"{self.count} reports")
        text += f" ({'; '.join(detail)})"
        if self.code:
            text += f"\n    {self.code}"
        return text


def _classify(heading: str) -> tuple[str, str]:
    for pattern, kind, meaning in KINDS:
        if pattern.search(heading):
            return kind, meaning
    return "other", "Oclgrind reported a problem"


def _entity(block: list[str]) -> str | None:
    for line in block:
        m = _ENTITY.search(line)
        if m:
            return (f"work-item {_short(m.group(1))} (group {_short(m.group(3))}, "
                    f"local id {_short(m.group(2))})")
        m = _WORK_GROUP.search(line)
        if m:
            only = next((_ONLY.search(x) for x in block if _ONLY.search(x)), None)
            extra = f": {only.group(1)} of {only.group(2)} work-items reached it" if only else ""
            return f"work-group {_short(m.group(1))}{extra}"
    return None


def _short(coords: str) -> str:
    """``100,0,0`` -> ``100``; ``3,2,0`` -> ``(3,2)``: as many dimensions as are used."""
    parts = coords.split(",")
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return parts[0] if len(parts) == 1 else "(" + ",".join(parts) + ")"


@dataclass(frozen=True)
class Gap:
    """Something Oclgrind could not simulate: a gap of the referee, never the kernel's fault.
    ``plugin``: the plugin that stopped (``Uninitialized``), or "" for Oclgrind's core."""

    reason: str
    plugin: str = ""

    @property
    def instruction(self) -> str:
        return self.reason.rsplit(":", 1)[-1].strip()


def gaps(text: str) -> list[Gap]:
    """The gaps an Oclgrind log or output shows, each once, in order."""
    found: list[Gap] = []
    # lines end at a newline alone: a kernel's source line quoted in a report may hold a carriage
    # return or a form feed, which splitlines() would take for a line's start
    lines = [line.rstrip("\r") for line in text.split("\n")]
    for i, line in enumerate(lines):
        m = _FATAL.search(line)
        if m:
            source = m.group(1)
            plugin = re.search(r"plugins/(\w+)\.cpp", source)
            after = "\n".join(lines[i + 1:i + 3])
            reason = _GAP_REASON.search(after)
            gap = Gap(reason.group(1) if reason else "an internal error",
                      plugin.group(1) if plugin else "")
        else:
            reason = _GAP_REASON.match(line)
            if not reason or (i and _FATAL.search(lines[i - 1])):
                continue
            gap = Gap(reason.group(1))
        if gap not in found:
            found.append(gap)
    return found


_COUNTS_HEAD = re.compile(r"Instructions executed for kernel '([^']*)':\s*$")
_COUNT = re.compile(r"^\s+([\d,]+) - (.+?)\s*$")


def counts(output: str, mark: str | None = None) -> tuple[dict[str, int], str]:
    """Oclgrind's instruction counts (``OCLGRIND_INST_COUNTS``) summed over every launch in
    ``output`` (``"load local"``, ``"store global"``, ...; sizes dropped), and the output without
    them (they are Oclgrind's, not the kernel's). With ``mark``, see :func:`launch_counts`."""
    if mark is None:
        return _blocks(output.splitlines(keepends=True), lambda _: True)
    launches, kept = launch_counts(output, mark)
    return summed(found for _, found in launches), kept


def summed(counts) -> dict[str, int]:
    """Counts of several launches, added up by instruction kind."""
    total: dict[str, int] = {}
    for found in counts:
        for k, v in found.items():
            total[k] = total.get(k, 0) + v
    return total


def launch_counts(output: str, mark: str) -> tuple[list[tuple[dict, dict[str, int]]], str]:
    """Each ended launch's counts, with the case the worker named after its ``mark`` (the line it
    prints once a launch has ended: ``MARK [{"global": ..., "params": ...}]``), and the output
    without them. Only the last block before each mark counts: a kernel's printf comes before
    Oclgrind's own block of its launch, so a block it forges is never the last; a launch with no
    mark after it (it did not end) counts nothing. A header is found anywhere on its line (a
    kernel's unended printf line cannot hide it)."""
    import json
    launches: list[tuple[dict, dict[str, int]]] = []
    kept: list[str] = []
    segment: list[str] = []
    for line in output.splitlines(keepends=True):
        text = line.strip()
        if text != mark and not text.startswith(mark + " "):
            segment.append(line)
            continue
        try:
            named = json.loads(text[len(mark):].strip() or "[]")
        except ValueError:
            named = []
        heads = [i for i, x in enumerate(segment) if _COUNTS_HEAD.search(x)]
        last = heads[-1] if heads else None
        found, rest = _blocks(segment, lambda i, last=last: i == last)
        launches.append((named[0] if named else {}, found))
        kept.append(rest)
        segment = []
    kept.append("".join(segment))
    return launches, "".join(kept)


def _blocks(lines: list[str], counted) -> tuple[dict[str, int], str]:
    """Sum the count blocks whose header's line index ``counted`` accepts; the other lines (a
    forged block among them, as printed) are the kernel's output."""
    total: dict[str, int] = {}
    kept: list[str] = []
    inside = False
    for i, line in enumerate(lines):
        head = _COUNTS_HEAD.search(line)
        if head and counted(i):
            inside = True
            before = line[:head.start()]
            if before.strip():
                kept.append(before + "\n")
            continue
        m = _COUNT.match(line) if inside else None
        if m:
            what = re.sub(r"\s*\(.*\)$", "", m.group(2))
            total[what] = total.get(what, 0) + int(m.group(1).replace(",", ""))
            continue
        if inside and not line.strip():
            inside = False
            continue
        inside = False
        kept.append(line)
    return total, "".join(kept)


def parse(log: str) -> list[Finding]:
    """Findings of an Oclgrind log, one per (kind, line, column), in order of first appearance."""
    blocks: list[list[str]] = []
    for raw in log.splitlines():
        if not raw.strip():
            continue
        if raw[0] in " \t":
            if blocks:
                blocks[-1].append(raw.strip())
        elif raw.startswith("Oclgrind:"):  # "200 errors generated - suppressing further errors"
            continue
        elif _FATAL.search(raw) or _GAP_REASON.match(raw):
            blocks.append(["FATAL " + raw.strip()])   # a gap (see gaps), not a finding
        elif raw.startswith(("Invalid", "Uninitialized", "Work-group divergence", "Work-item",
                             "Read-write", "Write-write", "Read-only")) \
                or "data race" in raw or "divergence" in raw:
            blocks.append([raw.strip()])
    merged: dict[tuple, Finding] = {}
    for block in blocks:
        if block[0].startswith("FATAL "):
            continue
        heading = re.sub(r" (at|to|from) (global|local|private|constant) memory address "
                         r"0x[0-9a-f]+", r" (\2 memory)", block[0])
        kind, meaning = _classify(block[0])
        line = col = None
        code = None
        at = 0   # the block's line of the place chosen
        # the first place with a line: an instruction the optimizer merged from two lines (a store
        # sunk out of an if and its else) has line 0, "source not available"; a race's second
        # work-item may still be at a line of the kernel
        for i, x in enumerate(block):
            m = _LOCATION.search(x)
            if m and (line is None or not line and int(m.group(1))):
                line, col, at = int(m.group(1)), int(m.group(2)), i
                code = block[i + 1] if i + 1 < len(block) else None
                if line:
                    break
        key = (kind, line, col)
        if key in merged:
            f = merged[key]
            merged[key] = Finding(f.kind, f.meaning, f.heading, f.line, f.col, f.code, f.entity,
                                  f.count + 1)
        else:
            # the work-item at that place (a race names two)
            own = [j for j in range(at) if _ENTITY.search(block[j])]
            merged[key] = Finding(kind, meaning, heading, line, col, code,
                                  _entity(block[own[-1]:] if own else block))
    # An invalid read yields an undefined value, so Oclgrind also reports it as uninitialized where
    # it is stored: the read is the cause, the second report is noise.
    bad_reads = {f.line for f in merged.values() if f.kind == "out_of_bounds_read"}
    return [f for f in merged.values() if not (f.kind == "uninitialized" and f.line in bad_reads)]
