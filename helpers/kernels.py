"""Finding a kernel file (kernels/ or, with the solutions switch, solutions/), building it, and turning
a compiler's build log into ``kernels/NAME.cl:LINE:COL: error: message`` lines that name the
learner's own file.

Compilers cite their own names for the source: PoCL a temp file in its cache
(``error: ~/.cache/pocl/kcache/tempfile_a1b2c3.cl:4:23: ...``), Oclgrind ``input.cl:4:23: error: ...``,
NVIDIA ``<kernel>:4:23: error: ...``. pyopencl adds nothing to the source, so lines and columns are
the file's own.
"""

from __future__ import annotations

import contextlib
import os
import re
import struct
import sys
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pyopencl as cl

from . import settings
from .paths import KERNELS, ROOT, SOLUTIONS, display_path  # noqa: F401  (kernels.ROOT, ...)

SOLUTIONS_VARIABLE = "COURSE_SOLUTIONS"

# "error: FILE:L:C: msg" (PoCL) or "FILE:L:C: error: msg" (clang-based compilers, NVIDIA).
_DIAGNOSTIC = re.compile(
    r"^(?:(?P<sev1>error|warning|note): )?(?P<file>[^\s:][^:\n]*?):(?P<line>\d+):(?P<col>\d+): "
    r"(?:(?P<sev2>fatal error|error|warning|note): )?(?P<msg>.*)$"
)


def solutions_on() -> bool:
    """Whether the solutions switch (``COURSE_SOLUTIONS=1``) is on."""
    return settings.flag(SOLUTIONS_VARIABLE)


def kernel_path(name: str, *, solutions: bool | None = None) -> Path:
    """The file of kernel ``name``: ``kernels/NAME.cl``, or ``solutions/NAME.cl`` with the switch.

    A demo kernel that has no solution (it is complete already) is taken from kernels/ either way.
    """
    if solutions is None:
        solutions = solutions_on()
    file = f"{name}.cl" if not name.endswith(".cl") else name
    if solutions and (SOLUTIONS / file).exists():
        return SOLUTIONS / file
    return KERNELS / file


def solution_file(name: str) -> Path | None:
    """``solutions/NAME.cl``, or None where it is not (a graded day's copy has no solutions/)."""
    path = SOLUTIONS / f"{name}.cl"
    return path if path.is_file() else None


@dataclass(frozen=True)
class Diagnostic:
    """One compiler message, placed in the learner's file."""

    severity: str
    line: int
    col: int
    message: str

    def format(self, shown_path: str, source_lines: list[str] | None = None) -> str:
        text = f"{shown_path}:{self.line}:{self.col}: {self.severity}: {self.message}"
        if source_lines and 1 <= self.line <= len(source_lines):
            code = source_lines[self.line - 1].rstrip("\n").expandtabs(4)
            text += f"\n    {code}\n    {' ' * max(self.col - 1, 0)}^"
        return text


def parse_build_log(log: str) -> list[Diagnostic]:
    """The located messages of a build log, once each, in order."""
    seen: set[Diagnostic] = set()
    out: list[Diagnostic] = []
    for raw in log.splitlines():
        m = _DIAGNOSTIC.match(raw.strip())
        if not m:
            continue
        sev = m["sev1"] or m["sev2"] or "error"
        d = Diagnostic("error" if sev == "fatal error" else sev, int(m["line"]), int(m["col"]),
                       m["msg"].strip())
        if d not in seen:
            seen.add(d)
            out.append(d)
    return out


def format_build_log(log: str, path: Path | str, source: str | None = None) -> str:
    """A build log rewritten to cite ``path``; notes after their error, unlocated text kept at the
    end when nothing could be located."""
    shown = display_path(path)
    lines = source.splitlines() if source is not None else None
    diags = parse_build_log(log)
    if not diags:
        text = "\n".join(x for x in log.strip().splitlines() if x.strip())
        return f"{shown}: the build failed:\n{text}" if text else f"{shown}: the build failed."
    return "\n".join(d.format(shown, lines if d.severity != "note" else None) for d in diags)


class KernelBuildError(Exception):
    """A kernel file that does not compile; the message cites the learner's file and line."""

    def __init__(self, message: str, path: Path | str, diagnostics: list[Diagnostic]):
        super().__init__(message)
        self.path = Path(path)
        self.diagnostics = diagnostics

    def _render_traceback_(self) -> list[str]:  # IPython shows this instead of a traceback
        return [f"KernelBuildError: {self}"]


def build_source(ctx: cl.Context, source: str, path: Path | str,
                 options: list[str] | None = None) -> cl.Program:
    """Build OpenCL C ``source`` read from ``path``; a failure raises :class:`KernelBuildError`."""
    return _compile(ctx, source, path, options)


# Programs already built in this process, by context, source text and options, for the callers that
# run the same kernel again and again (sweeps, widgets): PoCL and NVIDIA bypass pyopencl's binary
# cache, and an edited file has another text, so it is built afresh.
_BUILT: dict[tuple, tuple[cl.Context, cl.Program]] = {}
_BUILT_MAX = 64


def _reused(ctx: cl.Context, source: str, path: Path | str,
            options: list[str] | None) -> cl.Program:
    key = (ctx.int_ptr, source, tuple(options or ()))
    if key in _BUILT and _BUILT[key][0] == ctx:
        return _BUILT[key][1]
    prg = _compile(ctx, source, path, options)
    if len(_BUILT) >= _BUILT_MAX:
        _BUILT.pop(next(iter(_BUILT)))
    _BUILT[key] = (ctx, prg)  # the context is held, so its address cannot be reused meanwhile
    return prg


@contextlib.contextmanager
def compiler_output() -> Iterator[list[str]]:
    """Catch what a compiler prints straight to the process's stderr (PoCL's clang says "32
    warnings generated"), which a notebook would show as red text under the cell. Yields a list
    that holds the caught text once the block ends."""
    from .driver_probe import in_child
    caught: list[str] = []
    if in_child():  # a child's output goes to a file its parent reads: a crash message must stay
        yield caught
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError):  # no file descriptor 2 to catch
        yield caught
        return
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield caught
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            caught.append(sink.read().decode(errors="replace"))


def _compile(ctx: cl.Context, source: str, path: Path | str,
             options: list[str] | None) -> cl.Program:
    from . import driver_probe
    for dev in ctx.devices:  # a driver that would crash on it is found in a separate process
        driver_probe.ensure(dev, source, path, options)
    prg = cl.Program(ctx, source)
    try:
        with warnings.catch_warnings(), compiler_output():
            warnings.simplefilter("ignore", cl.CompilerWarning)
            prg.build(options=options or [])
    except cl.RuntimeError as e:
        logs = []
        for dev in ctx.devices:
            try:
                logs.append(prg.get_build_info(dev, cl.program_build_info.LOG))
            except cl.Error:
                pass
        log = "\n".join(logs) if any(x.strip() for x in logs) else str(e)
        diags = parse_build_log(log)
        raise KernelBuildError(format_build_log(log, path, source), path, diags) from None
    calls = native_calls(prg)
    if calls:
        raise KernelBuildError(native_sentence(path, calls), path, [])
    return prg


# --------------------------------------------------------------------------------------------------
# Native calls. Intel's CPU runtime links a kernel's calls to functions it neither defines nor
# knows against the process that runs it: a plain `int getpid(void);` declaration in OpenCL C called
# the worker's libc (and libpython). Its program binary is an ELF file whose `.ocl.obj` section is
# the kernel's x86-64 object; every undefined symbol there is a call out of the kernel. Those the
# runtime itself provides are allowed: its vector maths (`__ocl_svml_*`), printf, and the memory
# copies the compiler emits for a private array or async_work_group_copy (seen on the course's
# kernels and the right corpus; a kernel may already write any address it can form, so they give
# it nothing new). Every other name is refused before the kernel runs anywhere.

RUNTIME_CALLS = frozenset({"__opencl_printf", "__lprefetch", "memcpy", "memset", "memmove"})
RUNTIME_PREFIXES = ("__ocl_svml_", "__ocl20_")


def _elf_sections(data: bytes) -> dict[str, tuple[int, int, int, int]]:
    """An ELF64 little-endian file's sections: name -> (type, offset, size, link index)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    size, count, names = struct.unpack_from("<HHH", data, 0x3A)
    raw = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * size) for i in range(count)]
    table = raw[names]

    def name(at: int) -> str:
        start = table[4] + at
        return data[start:data.index(b"\0", start)].decode(errors="replace")
    return {name(r[0]) or f"#{i}": (r[1], r[4], r[5], r[6]) for i, r in enumerate(raw)}


def undefined_symbols(obj: bytes) -> list[str]:
    """The undefined symbols of an ELF64 relocatable object (its calls outside itself)."""
    sections = list(_elf_sections(obj).values())
    found = []
    for kind, offset, size, link in sections:
        if kind != 2:                          # SHT_SYMTAB
            continue
        strings = sections[link][1]
        for k in range(size // 24):
            at, _, _, index, _, _ = struct.unpack_from("<IBBHQQ", obj, offset + 24 * k)
            if index == 0 and at:              # SHN_UNDEF, named
                start = strings + at
                found.append(obj[start:obj.index(b"\0", start)].decode(errors="replace"))
    return found


def native_calls(prg: cl.Program) -> list[str]:
    """The functions a built program calls that neither it nor its runtime provides (see above);
    empty where the driver's binary shows none (every driver but Intel's CPU runtime links such a
    call nowhere: the build fails, or the device cannot run it)."""
    found: list[str] = []
    try:
        binaries = prg.get_info(cl.program_info.BINARIES)
    except cl.Error:
        return found
    for binary in binaries:
        if not binary or binary[:4] != b"\x7fELF" or binary[4] != 2:
            continue
        try:
            sections = _elf_sections(binary)
            if ".ocl.obj" not in sections:
                continue
            _, offset, size, _ = sections[".ocl.obj"]
            if binary[offset:offset + 4] != b"\x7fELF":   # another object format: not read here
                continue
            names = undefined_symbols(binary[offset:offset + size])
        except (ValueError, IndexError, KeyError, struct.error):
            return ["(a program binary the course cannot read)"]
        found += [n for n in names if n not in RUNTIME_CALLS and not n.startswith(RUNTIME_PREFIXES)
                  and n not in found]
    return found


def native_sentence(path: Path | str, calls: list[str]) -> str:
    shown = ", ".join(f"`{c}`" for c in calls[:5]) + (" ..." if len(calls) > 5 else "")
    return (f"{display_path(path)}: this kernel calls {shown}, which it does not define and OpenCL C "
            f"does not provide: on a CPU such a call would run the machine's own code, so the "
            f"course refuses it before the kernel runs. Write the function in your file, or use "
            f"OpenCL C's built-in functions.")


def build_warnings(prg: cl.Program, path: Path | str, source: str) -> str:
    """The warnings of a successful build, placed in the file at ``path`` ("" when there are
    none): what the check shows a learner about their own kernel."""
    logs = []
    for dev in prg.get_info(cl.program_info.DEVICES):
        try:
            logs.append(prg.get_build_info(dev, cl.program_build_info.LOG))
        except cl.Error:
            pass
    diags = [d for d in parse_build_log("\n".join(logs)) if d.severity in ("warning", "note")]
    if not any(d.severity == "warning" for d in diags):
        return ""
    shown, lines = display_path(path), source.splitlines()
    return "\n".join(d.format(shown, lines if d.severity == "warning" else None) for d in diags)


def build(ctx: cl.Context, name: str, *, solutions: bool | None = None,
          options: list[str] | None = None) -> cl.Program:
    """Build kernel file ``name`` (see :func:`kernel_path`) for every device of ``ctx``.

    Example: ``prg = build(ctx, "scale"); prg.scale(queue, ...)``.
    """
    path = kernel_path(name, solutions=solutions)
    return build_file(ctx, path, options=options)


def build_file(ctx: cl.Context, path: Path | str, options: list[str] | None = None, *,
               reuse: bool = False) -> cl.Program:
    """Build the kernel file at ``path``. With ``reuse``, a program this process already built from
    the same text for the same context is returned (take kernels with ``cl.Kernel(prg, name)``)."""
    path = Path(path)
    if reuse:
        return _reused(ctx, path.read_text(), path, options)
    return build_source(ctx, path.read_text(), path, options)
