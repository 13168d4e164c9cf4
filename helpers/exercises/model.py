"""The machinery every exercise record uses: launch cases, arguments, mistake models, hints, the
performance target, the record itself, its kernel signature, the registry, and the mistake models
that several exercises share.

A record says which kernel function to run, with which arguments (buffers, scalars, local memory),
on which launch configurations (cases), from which random inputs, and what numpy says the answer is.
It may also name typical mistakes as models of the output they produce, and hints. The checker
(:mod:`helpers.checking`) is generic: a new exercise is a new module of this package holding its
record (see :mod:`helpers.exercises`), not new machinery.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import numpy as np

Inputs = dict[str, np.ndarray]
Outputs = dict[str, np.ndarray]


@dataclass(frozen=True)
class Case:
    """One launch configuration and the sizes that go with it.

    :arg global_size: the NDRange, one entry per dimension.
    :arg local_size: the work-group shape (same dimensions as ``global_size``).
    :arg params: the exercise's sizes and scalars (``n``, ``radius``, ...).
    :arg small: small enough to run on Oclgrind as well.
    """

    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    params: dict[str, int] = field(default_factory=dict)
    small: bool = False
    # "wide": inputs across the range the contract allows (the record's ``extremes.inputs``)
    values: str = ""

    def __getitem__(self, key: str) -> int:
        return self.params[key]

    def label(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.params.items())
        g = "x".join(map(str, self.global_size))
        loc = "x".join(map(str, self.local_size))
        wide = ", values across the whole allowed range" if self.values == "wide" else ""
        return f"{sizes}, global {g}, local {loc}{wide}"

    def key(self) -> tuple:
        """What identifies the case (a Case holds a dict, so it is not hashable itself)."""
        return (self.global_size, self.local_size, tuple(sorted(self.params.items())), self.values)

    def to_json(self) -> dict:
        return {"global_size": list(self.global_size), "local_size": list(self.local_size),
                "params": dict(self.params), "small": self.small, "values": self.values}

    @classmethod
    def from_json(cls, d: dict) -> Case:
        return cls(tuple(d["global_size"]), tuple(d["local_size"]), dict(d["params"]), d["small"],
                   d.get("values", ""))

    @property
    def work_items(self) -> int:
        return int(np.prod(self.global_size))

    @property
    def work_group_items(self) -> int:
        return int(np.prod(self.local_size))

    @property
    def num_groups(self) -> tuple[int, ...]:
        return tuple(g // max(loc, 1) for g, loc in zip(self.global_size, self.local_size, strict=True))


@dataclass(frozen=True)
class Buffer:
    """A global-memory argument. ``role``: read (``in``), written (``out``) or both (``inout``).
    ``memory``: the address space the kernel declares it in (``__global``, or ``__constant`` for
    a small read-only table); the host hands over a buffer either way."""

    name: str
    dtype: type
    role: Literal["in", "out", "inout"]
    length: Callable[[Case], int]
    shape: Callable[[Case], tuple[int, int]] | None = None  # (rows, columns) of a 2-D buffer
    memory: Literal["global", "constant"] = "global"


@dataclass(frozen=True)
class Scalar:
    """A by-value argument, e.g. ``const uint n``."""

    name: str
    dtype: type
    value: Callable[[Case], int | float]

    def kernel_arg(self, case: Case) -> np.generic:
        return np.dtype(self.dtype).type(self.value(case))


@dataclass(frozen=True)
class LocalMem:
    """A ``__local`` pointer argument of ``length(case)`` elements of ``dtype``."""

    name: str
    dtype: type
    length: Callable[[Case], int]

    def kernel_arg(self, case: Case):
        import pyopencl as cl
        return cl.LocalMemory(np.dtype(self.dtype).itemsize * max(self.length(case), 1))


Arg = Buffer | Scalar | LocalMem


@dataclass(frozen=True)
class Limits:
    """What a device allows a launch: work-items per work-group, per dimension, local memory."""

    work_group: int
    item_sizes: tuple[int, ...]
    local_bytes: int

    def widest_1d(self, local_bytes_per_item: int = 0, extra_local_bytes: int = 0) -> int:
        """The largest power-of-two work-group of a 1-D kernel whose local memory fits."""
        size = 1 << (min(self.work_group, self.item_sizes[0]).bit_length() - 1)
        while size > 1 and size * local_bytes_per_item + extra_local_bytes > self.local_bytes:
            size //= 2
        return size

    def widest_square(self, local_bytes: Callable[[int], int] = lambda t: 0) -> int:
        """The largest T (a power of two) of a T x T work-group whose local memory fits."""
        t = 1
        while (2 * t) ** 2 <= self.work_group and 2 * t <= min(self.item_sizes[:2]) \
                and local_bytes(2 * t) <= self.local_bytes:
            t *= 2
        return t


def device_limits(dev) -> Limits:
    """The :class:`Limits` of a pyopencl device."""
    return Limits(int(dev.max_work_group_size), tuple(int(x) for x in dev.max_work_item_sizes),
                  int(dev.local_mem_size))


def uses_local_memory(ex: Exercise, source: str) -> bool:
    """Whether the record hands the kernel local memory, or its ``source`` declares some."""
    import re
    if any(isinstance(a, LocalMem) for a in ex.args):
        return True
    return re.search(r"\b(__)?local\b", source) is not None


def beyond_the_data(local: int, make: Callable[[int, int], Case], several: bool = True
                    ) -> tuple[Case, ...]:
    """1-D extremes at work-group size ``local``: fewer elements than one work-group, a range
    past the data by less than one work-group, and (``several``) by several work-groups.
    ``make(n, global_size)`` builds the case."""
    out = [make(local // 2 + 3, local), make(2 * local + 5, 3 * local)]
    if several:
        out.append(make(local + 7, 5 * local))
    return tuple(out)


def short_of_the_data(local: int, make: Callable[[int, int], Case]) -> tuple[Case, ...]:
    """1-D extremes with fewer work-items than elements at work-group size ``local``: several
    rounds and a leftover, and one round and a half. ``make(n, global_size)`` builds the case."""
    return (make(7 * local + 3, 2 * local), make(local + local // 2 + 1, local))


@dataclass(frozen=True)
class Mistake:
    """A typical mistake, recognized by the outputs it produces.

    Either ``model(case, inputs)`` returns the outputs such a kernel leaves, with NaN for an element
    it never writes (see :func:`unwritten`), and the mistake is named when the outputs match it
    everywhere; or ``wrong_at(case, bad)`` says whether the flat indices ``bad`` of the wrong or
    unwritten elements of the first output have the mistake's pattern (for mistakes whose values are
    garbage, e.g. a halo never loaded). The learner then reads ``message``, formatted with the case's
    params, its ``local``, ``groups`` and ``global_`` sizes, and whatever ``details(case)`` adds.
    ``hint``: which of the exercise's hints (1-based, into ``Teaching.hints``) addresses the
    mistake, named beside it in the verdict; 0 where none does.
    """

    name: str
    model: Callable[[Case, Inputs], Outputs] | None
    message: str
    wrong_at: Callable[[Case, np.ndarray], bool] | None = None
    details: Callable[[Case], dict] | None = None
    hint: int = 0


@dataclass(frozen=True)
class FindingHint:
    """What an Oclgrind report of ``kind`` (in ``memory``: "local", "global" or any) most likely
    means in this exercise, e.g. a race on local memory in a tiled kernel: a missing barrier.
    ``code``: a regular expression the reported line of source must match (a race at a plain
    ``bins[v]++`` is another mistake than one at an atomic). ``hint``: as :class:`Mistake`'s, the
    exercise's hint (1-based) that addresses it, 0 where none does."""

    kind: str
    message: str
    memory: str | None = None
    code: str | None = None
    hint: int = 0


def unwritten(length: int) -> np.ndarray:
    """An output model where no element is written yet (NaN marks 'not written')."""
    return np.full(length, np.nan)


@dataclass(frozen=True)
class Performance:
    """How the check measures a level-3 performance exercise once it is correct.

    :arg case: the launch it times (``small``: the one it times with the small switch on).
    :arg peak: the device peak the speed is a share of: ``"copy"`` (GB/s of the bytes the
        kernel must move, against the measured copy bandwidth) or ``"compute"`` (GFLOP/s of
        ``flops(case)``, against the measured multiply-add peak).
    :arg given: ``(file under kernels/studies/, kernel)``: the slow kernel the exercise starts
        from, timed beside the learner's (same arguments).
    """

    case: Case
    small: Case
    peak: Literal["copy", "compute"] = "copy"
    flops: Callable[[Case], float] | None = None
    given: tuple[str, str] | None = None
    # reaching the target: at least this share of the solution's speed on the same device
    target: float = 0.8


@dataclass(frozen=True)
class Teaching:
    """What the course says of an exercise: where it stands and what its verdicts tell."""

    title: str = ""
    notebook: str = ""
    # Where the exercise stands in the course's list (:func:`exercises`): (level of the training,
    # rank in the level); ties keep the order of registration, and a record that gives none
    # comes after the course's own.
    place: tuple[int, int] = (9, 0)
    # Markdown, from the general idea to the more specific; ideas, never the solution's code. The
    # notebook's hint cell is made from them (see :mod:`.cells`), revealed one at a time.
    hints: tuple[str, ...] = ()
    mistakes: tuple[Mistake, ...] = ()
    finding_hints: tuple[FindingHint, ...] = ()
    # The condition that keeps the work-items with no element from storing, as the verdict's
    # advice writes it ("if (row < m && col < n)"); None: made from the size arguments (see
    # helpers.checking.diagnosis.store_guard); "": none, the output is not one element a
    # work-item (a bin, a row a work-group)
    guard: str | None = None
    # What a store past the end of the data means here, when the work-items past the data could
    # have made it (one element a work-item: "work-items with no element must do nothing"); a
    # sentence, for exercises whose work-items own several elements.
    past_the_end: str = ""
    # The warp model's counter its lesson shows beside the time (a key of
    # :data:`helpers.checking.counters.SHOWN`; "" where the lesson shows none)
    shown: str = ""


@dataclass(frozen=True)
class Compare:
    """How the outputs are compared with the reference's. ``view``: compare only this view of
    the first output, e.g. the total of per-work-group partial sums whose split among the
    work-groups is the kernel's choice; ``label`` names it."""

    rtol: float = 1e-5
    atol: float = 1e-6
    view: Callable[[Case, np.ndarray], np.ndarray] | None = None
    label: str = ""


@dataclass(frozen=True)
class Extremes:
    """The extremes of the contract on a device: ``cases`` made from its limits (see Limits),
    added to the exercise's by :meth:`Exercise.cases_for`; and ``inputs`` across the whole range
    the contract allows, for the cases whose ``values`` is "wide"."""

    cases: Callable[[Limits], tuple[Case, ...]] | None = None
    inputs: Callable[[Case, np.random.Generator], Inputs] | None = None


@dataclass(frozen=True)
class Technique:
    """The technique the exercise teaches, judged on the warp model's counters of a kernel that
    gave the right values (:func:`helpers.checking.counters.counters`): ``judge`` returns a
    sentence saying what is missing (the counter, its value, the ideal, the line), or None when
    the technique is there."""

    judge: Callable[[dict], str | None]
    # the build options of the counters' run (``-cl-opt-disable``: the branches as written,
    # before the optimizer turns a branch into a select that runs both paths)
    build: tuple[str, ...] = ()
    # more cases the counters judge it on, beside the representative one (the widest tile
    # Oclgrind runs: a padding that holds only for the smaller tiles shows there)
    cases: tuple[Case, ...] = ()


@dataclass(frozen=True)
class Tile:
    """The exercise is about its tile: a kernel that never reads and writes local memory fails;
    and, with ``reads``, the tile carries the reads: a kernel whose local-memory reads are fewer
    than this many per global-memory read (Oclgrind's counts over the small cases) fails, the
    tile a decoy. Set where the solution's ratio lies well above it (tests/test_corpus.py,
    tile_decoy.cl); None for the reductions, whose first stage may rightly read many elements
    from global memory."""

    reads: float | None = None


@dataclass(frozen=True)
class Exercise:
    """One exercise of the course, in a module of its own named like it (docs/design.md section 4
    holds the contracts, generated from the records' ``contract`` and arguments). Its core is
    the contract: the kernel's name and arguments, the cases, the inputs and the reference; the
    rest are pieces of their own, each optional: what the course teaches of it, how outputs are
    compared, the contract's extremes, the technique, the tile, the speed."""

    name: str
    args: tuple[Arg, ...]
    cases: tuple[Case, ...]
    make_inputs: Callable[[Case, np.random.Generator], Inputs]
    reference: Callable[[Case, Inputs], Outputs]
    # What the kernel must do, the third column of the contract table (docs/design.md section 4;
    # Markdown, one line): a public interface, changed only with an issue.
    contract: str = ""
    kernel: str = ""                 # the kernel function's name, where it is not ``name``
    teaching: Teaching = Teaching()
    compare: Compare = Compare()
    extremes: Extremes = Extremes()
    technique: Technique | None = None
    tile: Tile | None = None
    # A level-3 performance exercise: the check also times it (see Performance).
    performance: Performance | None = None
    # The launches the bench times it on (``python -m helpers bench``): (full sizes, small sizes).
    bench_cases: tuple[Case, Case] | None = None
    # A study kernel checked by the same engine (not an exercise: no skeleton, not listed):
    # the file under kernels/studies/ that holds it.
    study_file: str = ""

    def cases_for(self, limits: Limits | None) -> list[Case]:
        """The record's cases, then those of the extremes ``limits`` allow (none without them)."""
        out = list(self.cases)
        if limits is not None and self.extremes.cases is not None:
            keys = {c.key() for c in out}
            out += [c for c in self.extremes.cases(limits) if c.key() not in keys]
        return out

    def fits(self, case: Case, limits: Limits) -> bool:
        """Whether a device of these limits can launch ``case`` (work-group and local memory)."""
        local = sum(np.dtype(a.dtype).itemsize * a.length(case) for a in self.args
                    if isinstance(a, LocalMem))
        return (int(np.prod(case.local_size)) <= limits.work_group and local <= limits.local_bytes
                and all(x <= m for x, m in zip(case.local_size, limits.item_sizes, strict=False)))

    def inputs(self, case: Case, rng: np.random.Generator) -> Inputs:
        if case.values == "wide" and self.extremes.inputs is not None:
            return self.extremes.inputs(case, rng)
        return self.make_inputs(case, rng)

    @property
    def function(self) -> str:
        """The kernel function's name (the exercise's name unless the record says otherwise)."""
        return self.kernel or self.name

    def buffers(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer)]

    def outputs(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer) and a.role != "in"]


C_TYPES = {np.float16: "half", np.float32: "float", np.int32: "int", np.uint32: "uint",
           np.float64: "double", np.int64: "long", np.uint64: "ulong"}


def parameters(ex: Exercise) -> str:
    """The kernel's parameter list as OpenCL C, in parentheses (the contract table's signature)."""
    parts = []
    for a in ex.args:
        t = C_TYPES.get(a.dtype, np.dtype(a.dtype).name)
        if isinstance(a, Buffer):
            const = "const " if a.role == "in" and a.memory == "global" else ""
            parts.append(f"__{a.memory} {const}{t} *{a.name}")
        elif isinstance(a, Scalar):
            parts.append(f"const {t} {a.name}")
        elif isinstance(a, LocalMem):
            parts.append(f"__local {t} *{a.name}")
    return f"({', '.join(parts)})"


def signature(ex: Exercise) -> str:
    """The contract's kernel signature, as OpenCL C."""
    return f"__kernel void {ex.function}{parameters(ex)}"


REGISTRY: dict[str, Exercise] = {}       # the learner's exercises, by name
# the course's study kernels that the checker checks against an exercise's contract
# ("BASE:FUNCTION", from kernels/studies/): a registry of their own, never listed as exercises
STUDY_KERNELS: dict[str, Exercise] = {}


def exercises() -> list[Exercise]:
    """The learner's exercises in the course's order (by ``place``)."""
    return sorted(REGISTRY.values(), key=lambda ex: ex.teaching.place)


_ORIGIN: dict[str, str] = {}      # name -> the file that registered it


def _origin(filename: str) -> str:
    """A registering file as one name however it was reached; a notebook's cells (each run of a
    cell a file of its own to Python: ``<ipython-input-...>``, ipykernel's temporary files) are
    all one origin, the notebook, which may register a name again as its author edits it."""
    if filename.startswith("<") or "ipykernel_" in filename:
        return "<a notebook's cells>"
    return str(Path(filename).resolve())


def register(ex: Exercise, origin: str | None = None) -> Exercise:
    """Add a record (a study kernel's to :data:`STUDY_KERNELS`). A name registered by two files
    is an error (it once replaced the first silently); the same file may register it again (a
    module reloaded, an instructor's registry file loaded by each check). ``origin``: the
    registering file (default: the caller's)."""
    import sys
    origin = _origin(origin or sys._getframe(1).f_code.co_filename)
    if (ex.name in REGISTRY or ex.name in STUDY_KERNELS) and \
            _ORIGIN.get(ex.name, origin) != origin:
        raise ValueError(f"the exercise {ex.name!r} is registered twice: by {_ORIGIN[ex.name]} "
                         f"and by {origin}")
    (STUDY_KERNELS if ex.study_file else REGISTRY)[ex.name] = ex
    _ORIGIN[ex.name] = origin
    return ex


def get(name: str) -> Exercise:
    """The record of exercise (or study kernel) ``name``; KeyError naming the exercises
    otherwise."""
    found = REGISTRY.get(name) or STUDY_KERNELS.get(name)
    if found is None:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"There is no exercise named {name!r}. Exercises: {known}.") from None
    return found


def load_registry_file(path: str | Path) -> None:
    """Import a Python file that registers more exercises (an instructor's own, or a test's)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"course_registry_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def rounded_up(n: int, multiple: int) -> int:
    """``n`` rounded up to a multiple of ``multiple`` (a global size that covers n elements)."""
    return -(-n // multiple) * multiple


def random_floats(rng: np.random.Generator, n: int, low: float = -100.0,
                  high: float = 100.0) -> np.ndarray:
    """Random float32 values that are never zero (a kernel that writes nothing cannot pass)."""
    x = rng.uniform(low, high, n).astype(np.float32)
    x[x == 0] = 1.0
    return x


def random_ints(rng: np.random.Generator, n: int, bound: int = 1 << 20) -> np.ndarray:
    """Random int32 values in (-bound, bound), never zero; sums of two cannot overflow."""
    x = rng.integers(-bound + 1, bound, n).astype(np.int32)
    x[x == 0] = 1
    return x


def wide_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """float32 values of both signs whose magnitudes spread from 1e-30 to 1e30 (log-uniform; all
    normal numbers, never zero): what a kernel that starts a minimum at 1000.0f, or compares
    magnitudes where it means values, gets wrong."""
    mag = 10.0 ** rng.uniform(-30, 30, n)
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return (sign * mag).astype(np.float32)


def extreme_floats(rng: np.random.Generator, n: int) -> np.ndarray:
    """:func:`wide_floats`, with a quarter of them pushed to magnitudes from 1e30 up to FLT_MAX,
    and three runs (at the start, in the middle, at the end; a sixth of the data each) of values
    between FLT_MAX / 2 and FLT_MAX: whole windows of the largest finite floats, the edges'
    included. What a minimum started from a large constant (1e30f, FLT_MAX / 2), a halo padded
    with one, or arithmetic that overflows where the contract allows any finite value gets wrong."""
    top = float(np.finfo(np.float32).max)
    x = wide_floats(rng, n).astype(np.float64)
    pushed = rng.choice(n, n // 4, replace=False) if n >= 4 else np.arange(0)
    x[pushed] = np.sign(x[pushed]) * 10.0 ** rng.uniform(30, np.log10(top), len(pushed))
    run = max(1, n // 6)
    for start in (0, n // 2 - run // 2, n - run):
        x[max(start, 0):max(start, 0) + run] = rng.uniform(top / 2, top, min(run, n))[:len(
            x[max(start, 0):max(start, 0) + run])]
    return np.clip(x, -top, top).astype(np.float32)


def wide_ints(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two int32 arrays across the whole int32 range whose element-wise sums still fit in an int
    (signed overflow is undefined in OpenCL C): what arithmetic in float or in a narrower type
    gets wrong."""
    info = np.iinfo(np.int32)
    a = rng.integers(info.min, info.max, n, endpoint=True, dtype=np.int64)
    lo = np.maximum(info.min - a, info.min)
    hi = np.minimum(info.max - a, info.max)
    b = lo + (rng.random(n) * (hi - lo + 1)).astype(np.int64)
    b = np.minimum(b, hi)
    return a.astype(np.int32), b.astype(np.int32)


def two_d_case(width: int, height: int, local: tuple[int, int], params: dict[str, int],
               small_up_to: int = 8192) -> Case:
    """A 2-D case over a width x height grid (dimension 0 = column), the range rounded up to the
    work-group shape in both dimensions."""
    return Case((rounded_up(width, local[0]), rounded_up(height, local[1])), local, params,
                small=width * height <= small_up_to)


def one_d_cases(sizes_and_locals: list[tuple[int, int]], small_up_to: int = 4096) -> tuple[Case, ...]:
    """1-D cases over ``n`` elements with the global size rounded up to the local size."""
    return tuple(
        Case((rounded_up(n, loc),), (loc,), {"n": n}, small=n <= small_up_to)
        for n, loc in sizes_and_locals
    )


# ---------------------------------------------------------------------------------------------------
# Mistakes that several exercises share.

def first_written(count: Callable[[Case], int], out: str,
                   reference: Callable[[Case, Inputs], Outputs]) -> Callable[[Case, Inputs], Outputs]:
    """Model of a kernel that writes the first ``count(case)`` elements of ``out`` rightly and
    no more (indexed by get_local_id or get_group_id, or one element per work-item, ...)."""

    def model(case: Case, inputs: Inputs) -> Outputs:
        right = reference(case, inputs)[out]
        got = unwritten(right.size)
        k = min(count(case), right.size)
        got[:k] = right[:k]
        return {out: got}

    return model


def wrong_index_mistakes(out: str, reference: Callable[[Case, Inputs], Outputs], hint: int = 0
                          ) -> tuple[Mistake, ...]:
    """A work-item's index taken from get_local_id or get_group_id (``hint``: the exercise's hint
    about the index)."""
    return (
        Mistake("local id", first_written(lambda c: c.local_size[0], out, reference),
                "only the first {local} elements were written, the size of one work-group: "
                "get_local_id(0) counts inside a work-group; the element index is "
                "get_global_id(0)", hint=hint),
        Mistake("group id", first_written(lambda c: c.num_groups[0], out, reference),
                "only the first {groups} elements were written, one per work-group: "
                "get_group_id(0) numbers work-groups; the element index is get_global_id(0)",
                hint=hint),
    )

def study_record(base: str, function: str, file: str, cases: tuple[Case, ...]) -> Exercise:
    """The record that checks study kernel ``function`` of kernels/studies/FILE against the
    contract of exercise ``base`` on ``cases`` (launches that kernel supports): its values only
    (a study kernel may lack the exercise's technique: that is what it is there to show)."""
    import sys
    ex = get(base)
    teaching = replace(ex.teaching, title=f"study kernel {function} ({file})", mistakes=())
    return register(replace(ex, name=f"{base}:{function}", kernel=function, cases=cases,
                            study_file=file, teaching=teaching, performance=None,
                            extremes=replace(ex.extremes, cases=None), tile=None,
                            technique=None),
                    origin=sys._getframe(1).f_code.co_filename)


def grid_stride_details(case: Case) -> dict:
    """The numbers a diagnosis of a grid-stride loop names: elements per work-item, the
    leftover after whole rounds, and how many whole rounds cover."""
    n, g = case["n"], case.global_size[0]
    return {"per": n // g, "leftover": n % g, "covered": n // g * g}
