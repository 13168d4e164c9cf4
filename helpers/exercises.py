"""The exercise registry: one record per exercise, and nothing else.

A record says which kernel function to run, with which arguments (buffers, scalars, local memory),
on which launch configurations (cases), from which random inputs, and what numpy says the answer is.
It may also name typical mistakes as models of the output they produce, and hints. The checker
(:mod:`helpers.check`) is generic: a new exercise is a new record here, not new machinery.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
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

    def __getitem__(self, key: str) -> int:
        return self.params[key]

    def label(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.params.items())
        g = "x".join(map(str, self.global_size))
        loc = "x".join(map(str, self.local_size))
        return f"{sizes}, global {g}, local {loc}"

    def key(self) -> tuple:
        """What identifies the case (a Case holds a dict, so it is not hashable itself)."""
        return (self.global_size, self.local_size, tuple(sorted(self.params.items())))

    def to_json(self) -> dict:
        return {"global_size": list(self.global_size), "local_size": list(self.local_size),
                "params": dict(self.params), "small": self.small}

    @classmethod
    def from_json(cls, d: dict) -> Case:
        return cls(tuple(d["global_size"]), tuple(d["local_size"]), dict(d["params"]), d["small"])

    @property
    def work_items(self) -> int:
        return int(np.prod(self.global_size))

    @property
    def num_groups(self) -> tuple[int, ...]:
        return tuple(g // max(loc, 1) for g, loc in zip(self.global_size, self.local_size, strict=True))


@dataclass(frozen=True)
class Buffer:
    """A global-memory argument. ``role``: read (``in``), written (``out``) or both (``inout``)."""

    name: str
    dtype: type
    role: Literal["in", "out", "inout"]
    length: Callable[[Case], int]
    shape: Callable[[Case], tuple[int, int]] | None = None  # (rows, columns) of a 2-D buffer


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
class Mistake:
    """A typical mistake, recognized by the outputs it produces.

    Either ``model(case, inputs)`` returns the outputs such a kernel leaves, with NaN for an element
    it never writes (see :func:`unwritten`), and the mistake is named when the outputs match it
    everywhere; or ``wrong_at(case, bad)`` says whether the flat indices ``bad`` of the wrong or
    unwritten elements of the first output have the mistake's pattern (for mistakes whose values are
    garbage, e.g. a halo never loaded). The learner then reads ``message``, formatted with the case's
    params, its ``local``, ``groups`` and ``global_`` sizes, and whatever ``details(case)`` adds.
    """

    name: str
    model: Callable[[Case, Inputs], Outputs] | None
    message: str
    wrong_at: Callable[[Case, np.ndarray], bool] | None = None
    details: Callable[[Case], dict] | None = None


@dataclass(frozen=True)
class FindingHint:
    """What an Oclgrind report of ``kind`` (in ``memory``: "local", "global" or any) most likely
    means in this exercise, e.g. a race on local memory in a tiled kernel: a missing barrier."""

    kind: str
    message: str
    memory: str | None = None


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
class Exercise:
    """One exercise of the course (see DESIGN.md section 4 for the contracts)."""

    name: str
    title: str
    notebook: str
    args: tuple[Arg, ...]
    cases: tuple[Case, ...]
    make_inputs: Callable[[Case, np.random.Generator], Inputs]
    reference: Callable[[Case, Inputs], Outputs]
    hints: tuple[str, ...] = ()
    mistakes: tuple[Mistake, ...] = ()
    finding_hints: tuple[FindingHint, ...] = ()
    rtol: float = 1e-5
    atol: float = 1e-6
    kernel: str = ""
    # Compare only this view of the first output, e.g. the total of per-work-group partial sums
    # whose split among the work-groups is the kernel's choice; ``view_label`` names it.
    view: Callable[[Case, np.ndarray], np.ndarray] | None = None
    view_label: str = ""
    # A study kernel checked by the same engine (not an exercise: no skeleton, not listed):
    # the file under kernels/studies/ that holds it.
    study_file: str = ""
    # A level-3 performance exercise: the check also times it (see Performance).
    performance: Performance | None = None

    @property
    def function(self) -> str:
        """The kernel function's name (the exercise's name unless the record says otherwise)."""
        return self.kernel or self.name

    def buffers(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer)]

    def outputs(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer) and a.role != "in"]


REGISTRY: dict[str, Exercise] = {}


def exercises() -> list[Exercise]:
    """The learner's exercises (the registry less the study kernels it also checks)."""
    return [ex for ex in REGISTRY.values() if not ex.study_file]


def register(ex: Exercise) -> Exercise:
    """Add (or replace) a record."""
    REGISTRY[ex.name] = ex
    return ex


def get(name: str) -> Exercise:
    """The record of exercise ``name``; KeyError with the known names otherwise."""
    try:
        return REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"There is no exercise named {name!r}. Exercises: {known}.") from None


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

def _first_written(count: Callable[[Case], int], out: str,
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


def _wrong_index_mistakes(out: str, reference: Callable[[Case, Inputs], Outputs]
                          ) -> tuple[Mistake, ...]:
    return (
        Mistake("local id", _first_written(lambda c: c.local_size[0], out, reference),
                "only the first {local} elements were written, the size of one work-group: "
                "get_local_id(0) counts inside a work-group; the element index is "
                "get_global_id(0)"),
        Mistake("group id", _first_written(lambda c: c.num_groups[0], out, reference),
                "only the first {groups} elements were written, one per work-group: "
                "get_group_id(0) numbers work-groups; the element index is get_global_id(0)"),
    )


# ---------------------------------------------------------------------------------------------------
# Level 0: float_copy, the hello world of OpenCL.

def _copy(case: Case, inputs: Inputs) -> Outputs:
    return {"dst": inputs["src"].copy()}


register(Exercise(
    name="float_copy",
    title="Copy a buffer of floats: one work-item per element",
    notebook="00-host-and-device",
    args=(
        Buffer("src", np.float32, "in", lambda c: c["n"]),
        Buffer("dst", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=lambda case, rng: {"src": random_floats(rng, case["n"])},
    reference=_copy,
    rtol=0.0,
    atol=0.0,
    hints=(
        "get_global_id(0) is this work-item's number in the whole range: use it as the element "
        "index.",
        "The global size is rounded up to a multiple of the work-group size, so some work-items "
        "have no element: do nothing when i >= n.",
        "The whole body is two lines: the index, then a guarded store dst[i] = src[i].",
    ),
    mistakes=_wrong_index_mistakes("dst", _copy),
))


# ---------------------------------------------------------------------------------------------------
# Level 1: sum_ints and sum_ints_multi.

def _sum(case: Case, inputs: Inputs) -> Outputs:
    return {"c": inputs["a"] + inputs["b"]}


def _sum_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"a": random_ints(rng, case["n"]), "b": random_ints(rng, case["n"])}


_SUM_ARGS = (
    Buffer("a", np.int32, "in", lambda c: c["n"]),
    Buffer("b", np.int32, "in", lambda c: c["n"]),
    Buffer("c", np.int32, "out", lambda c: c["n"]),
    Scalar("n", np.uint32, lambda c: c["n"]),
)

register(Exercise(
    name="sum_ints",
    title="Add two lists of ints: c[i] = a[i] + b[i]",
    notebook="01-parallel-execution",
    args=_SUM_ARGS,
    cases=one_d_cases([(1, 64), (100, 32), (1000, 256), (4096, 64), (777, 128), (5, 1),
                       (1 << 20, 256), ((1 << 20) + 3, 128)]),
    make_inputs=_sum_inputs,
    reference=_sum,
    rtol=0.0,
    atol=0.0,
    hints=(
        "One work-item per element, as in float_copy: i = get_global_id(0).",
        "The global size may be larger than n: store only when i < n.",
    ),
    mistakes=_wrong_index_mistakes("c", _sum),
))


def _multi_details(case: Case) -> dict:
    n, g = case["n"], case.global_size[0]
    return {"per": n // g, "leftover": n % g, "covered": n // g * g}


def _multi_cases() -> tuple[Case, ...]:
    """Fewer work-items than elements; n a multiple of the global size or not."""
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n}, small=n <= 4096) for n, g, loc in rows)


register(Exercise(
    name="sum_ints_multi",
    title="Add two lists of ints with fewer work-items than elements",
    notebook="01-parallel-execution",
    args=_SUM_ARGS,
    cases=_multi_cases(),
    make_inputs=_sum_inputs,
    reference=_sum,
    rtol=0.0,
    atol=0.0,
    hints=(
        "The range no longer has one work-item per element: get_global_size(0) work-items share n "
        "elements, so each one loops.",
        "Start at i = get_global_id(0) and step by get_global_size(0) while i < n: neighbouring "
        "work-items then touch neighbouring elements at every step (a grid-stride loop).",
        "n need not be a multiple of the global size: a loop bound of n / get_global_size(0) "
        "steps rounds down and leaves the last elements out.",
    ),
    mistakes=(
        Mistake("one element each", _first_written(lambda c: c.global_size[0], "c", _sum),
                "only the first {global_} elements were written, one per work-item: here there "
                "are fewer work-items than elements, so each work-item must loop over several "
                "(i, i + get_global_size(0), i + 2 * get_global_size(0), ... while i < n)"),
        Mistake("leftover", _first_written(lambda c: c["n"] // c.global_size[0] * c.global_size[0],
                                           "c", _sum),
                "the last {leftover} elements were not written: n = {n} is not a multiple of the "
                "global size {global_}, and n / {global_} = {per} steps per work-item covers only "
                "{covered} elements. Loop while the index is below n instead of counting steps",
                details=_multi_details),
    ),
))


# ---------------------------------------------------------------------------------------------------
# Level 2: query_work_space (2-D).

def _query_grid(case: Case, query: int) -> np.ndarray:
    from .ndrange import query_values
    return query_values(case.global_size, case.local_size, query)


def _returned(k: int) -> Callable[[Case, Inputs], Outputs]:
    return lambda case, inputs: {"out": _query_grid(case, k).ravel()}


def _transposed(case: Case, inputs: Inputs) -> Outputs:
    # out[get_global_id(0) * get_global_size(1) + get_global_id(1)]: the grid stored column by column
    return {"out": _query_grid(case, case["query"]).T.ravel()}


def _query_details(case: Case) -> dict:
    from .ndrange import QUERIES
    return {"asked": QUERIES[case["query"]]}


def _query_cases() -> tuple[Case, ...]:
    shapes = [((16, 8), (4, 2)), ((12, 20), (4, 5)), ((32, 24), (8, 8)), ((7, 3), (7, 1))]
    return tuple(Case(g, loc, {"query": q}, small=True) for q in range(13) for g, loc in shapes)


def _query_mistakes() -> tuple[Mistake, ...]:
    from .ndrange import QUERIES
    returned = tuple(
        Mistake(f"returned {name}", _returned(k),
                f"you returned {name} where {{asked}} was asked (query number {{query}}): check "
                f"which function each query number maps to", details=_query_details)
        for k, name in enumerate(QUERIES)
    )
    return returned + (Mistake(
        "transposed", _transposed,
        "the values are right but stored transposed: out[get_global_id(0) * get_global_size(1) + "
        "get_global_id(1)] was written where out[get_global_id(1) * get_global_size(0) + "
        "get_global_id(0)] is asked (dimension 0 is the column, so rows are get_global_size(0) "
        "long)"),)


register(Exercise(
    name="query_work_space",
    title="Write what each query function returns, for every work-item of a 2-D range",
    notebook="02-work-groups",
    args=(
        Buffer("out", np.int32, "out", lambda c: c.work_items,
               shape=lambda c: (c.global_size[1], c.global_size[0])),
        Scalar("query", np.int32, lambda c: c["query"]),
    ),
    cases=_query_cases(),
    make_inputs=lambda case, rng: {},
    reference=lambda case, inputs: {"out": _query_grid(case, case["query"]).ravel()},
    rtol=0.0,
    atol=0.0,
    hints=(
        "A switch (or a chain of ifs) on query picks the function: 0 get_global_id(0), "
        "1 get_global_id(1), 2 get_global_size(0), ... in the order of the table in the notebook.",
        "The element of this work-item is out[get_global_id(1) * get_global_size(0) + "
        "get_global_id(0)]: dimension 0 runs along a row.",
    ),
    mistakes=_query_mistakes(),
))


# ---------------------------------------------------------------------------------------------------
# Level 2: erosion, in 1-D (global memory, then a tile in local memory) and in 2-D.

def _erode_1d(x: np.ndarray, radius: int, lo: int = 0, hi: int | None = None) -> np.ndarray:
    """Minimum over the window [i - radius, i + hi] clipped to the data (hi defaults to radius)."""
    hi = radius if hi is None else hi
    n = x.size
    padded = np.concatenate([np.full(radius, np.inf), x.astype(np.float64), np.full(radius, np.inf)])
    out = np.full(n, np.inf)
    for k in range(lo, radius + hi + 1):
        out = np.minimum(out, padded[k:k + n])
    return out.astype(np.float32)


def _erosion_1d(case: Case, inputs: Inputs) -> Outputs:
    return {"out": _erode_1d(inputs["in"], case["radius"])}


def _borders_skipped_1d(case: Case, inputs: Inputs) -> Outputs:
    n, r = case["n"], case["radius"]
    got = _erosion_1d(case, inputs)["out"].astype(np.float64)
    got[:min(r, n)] = np.nan
    got[max(n - r, 0):] = np.nan
    return {"out": got}


def _window_short(case: Case, inputs: Inputs) -> Outputs:
    if case["radius"] == 0:
        raise ValueError("no window to shorten")
    return {"out": _erode_1d(inputs["in"], case["radius"], hi=case["radius"] - 1)}


def _near_group_edges(case: Case, bad: np.ndarray) -> bool:
    """Every wrong element lies within radius of its work-group's block edge (halo not loaded)."""
    loc, r = case.local_size[0], case["radius"]
    # The pattern only says something when a group has an interior (loc > 2r) that holds data.
    if bad.size == 0 or loc <= 2 * r or r == 0 or case["n"] <= r:
        return False
    pos = bad % loc
    return bool(np.all((pos < r) | (pos >= loc - r)))


_CLIPPING = ("the window is not clipped at the borders: j must stay within 0 .. n - 1. Careful with "
             "i - radius on a uint: below 0 it wraps around to a huge index")

_EROSION_1D_HINTS = (
    "Each output element is the minimum of the input over the window i - radius .. i + radius "
    "(2 * radius + 1 elements, both ends included).",
    "Clip the window to the data: from max(i, radius) - radius to min(i + radius, n - 1). Work in "
    "int, or compare before subtracting: i - radius on a uint wraps around below 0.",
    "Start the minimum at the element itself, or at INFINITY, and use fmin.",
)


def _erosion_1d_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 1), (100, 32, 0), (1000, 256, 3), (4096, 64, 7), (777, 128, 2), (5, 1, 4),
            (300, 16, 20), (1 << 20, 256, 5), ((1 << 20) + 3, 128, 16)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "radius": r}, small=n <= 4096)
                 for n, loc, r in rows)


_EROSION_1D_MISTAKES = (
    Mistake("borders skipped", _borders_skipped_1d,
            "the {radius} element(s) at each end were not written: near the borders the window "
            "must be clipped to the data (j from max(0, i - radius) to min(n - 1, i + radius)), "
            "not skipped"),
    Mistake("window one short", _window_short,
            "the window stops one element short: it covers i - radius .. i + radius - 1, but both "
            "ends belong to it (2 * radius + 1 elements: j <= i + radius)"),
)

register(Exercise(
    name="erosion_1d",
    title="Erosion of a list: the minimum over a window, in global memory",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=_erosion_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=_erosion_1d,
    rtol=0.0,
    atol=0.0,
    hints=_EROSION_1D_HINTS,
    mistakes=_EROSION_1D_MISTAKES,
    finding_hints=(FindingHint("out_of_bounds_read", _CLIPPING, "global"),),
))

register(Exercise(
    name="erosion_1d_local",
    title="Erosion of a list with a tile in local memory",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["n"]),
        Buffer("out", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] + 2 * c["radius"]),
    ),
    cases=_erosion_1d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["n"])},
    reference=_erosion_1d,
    rtol=0.0,
    atol=0.0,
    hints=(
        "The work-group's block of get_local_size(0) elements needs radius more on each side: the "
        "halo. tile[k] holds in[group start - radius + k], for k from 0 to local size + 2 * radius.",
        "Load with a loop, k = get_local_id(0), k += get_local_size(0): it works for any radius, "
        "even one larger than the work-group. Outside the data, store INFINITY (it never wins a "
        "minimum).",
        "barrier(CLK_LOCAL_MEM_FENCE) after loading: no work-item may read the tile before all of "
        "them have written their part. Keep the barrier outside any if: every work-item must reach "
        "it, including those past n.",
    ),
    mistakes=_EROSION_1D_MISTAKES + (
        Mistake("halo not loaded", None,
                "every wrong element lies within {radius} of its work-group's edge: the halo (the "
                "radius elements on each side of the group's block) was not loaded into the tile",
                wrong_at=_near_group_edges),
    ),
    finding_hints=(
        FindingHint("race", "barrier missing: work-items read the tile before the others have "
                    "finished writing it; put barrier(CLK_LOCAL_MEM_FENCE) between loading the "
                    "tile and reading it", "local"),
        FindingHint("uninitialized", "the window reads tile elements that no work-item wrote: is "
                    "the halo loaded, on both sides?"),
        FindingHint("divergent_barrier", "the barrier is inside a branch (if (i < n) ...?): every "
                    "work-item of the group must reach it, so keep it outside any condition"),
        FindingHint("out_of_bounds_read", _CLIPPING, "global"),
        FindingHint("out_of_bounds_write", "the tile holds local size + 2 * radius floats: an index "
                    "into it went past that", "local"),
    ),
))


def _erosion_2d(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w).astype(np.float64)
    padded = np.pad(img, r, constant_values=np.inf)
    out = np.full((h, w), np.inf)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            out = np.minimum(out, padded[dy:dy + h, dx:dx + w])
    return {"out": out.astype(np.float32).ravel()}


def _rows_only(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    img = inputs["in"].reshape(h, w)
    return {"out": np.stack([_erode_1d(row, r) for row in img]).ravel()}


def _frame_skipped(case: Case, inputs: Inputs) -> Outputs:
    w, h, r = case["width"], case["height"], case["radius"]
    got = _erosion_2d(case, inputs)["out"].astype(np.float64).reshape(h, w)
    mask = np.ones((h, w), dtype=bool)
    mask[r:h - r, r:w - r] = False
    got[mask] = np.nan
    return {"out": got.ravel()}


def _erosion_2d_cases() -> tuple[Case, ...]:
    rows = [(16, 8, 4, 4, 1), (33, 17, 8, 4, 2), (100, 60, 16, 16, 3), (7, 5, 1, 1, 2),
            (1, 1, 8, 8, 1), (40, 3, 8, 2, 0), (512, 300, 16, 8, 4), (640, 480, 32, 8, 2)]
    return tuple(two_d_case(w, h, (lx, ly), {"width": w, "height": h, "radius": r})
                 for w, h, lx, ly, r in rows)


register(Exercise(
    name="erosion_2d",
    title="Erosion of an image: the minimum over a square window",
    notebook="03-local-memory",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Buffer("out", np.float32, "out", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
        Scalar("radius", np.uint32, lambda c: c["radius"]),
    ),
    cases=_erosion_2d_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["width"] * case["height"])},
    reference=_erosion_2d,
    rtol=0.0,
    atol=0.0,
    hints=(
        "x = get_global_id(0) is the column, y = get_global_id(1) the row; the pixel is "
        "in[y * width + x]. The range is rounded up in both dimensions: guard x < width && "
        "y < height.",
        "Two nested loops over the window, each clipped to the image as in erosion_1d.",
    ),
    mistakes=(
        Mistake("frame skipped", _frame_skipped,
                "the pixels within {radius} of the image's edge were not written: clip the window "
                "to the image instead of skipping the border"),
        Mistake("rows only", _rows_only,
                "each pixel holds the minimum over its row's window only: erosion takes the "
                "minimum over the whole (2 * radius + 1) x (2 * radius + 1) square, rows above and "
                "below included"),
    ),
    finding_hints=(FindingHint("out_of_bounds_read", _CLIPPING.replace("0 .. n - 1", "the image"),
                               "global"),),
))


# ---------------------------------------------------------------------------------------------------
# Level 2: matrix_vector, the exercise behind the throughput-versus-work study.

def _matrix_vector(case: Case, inputs: Inputs, times: int | None = None,
                   by_row: bool = False) -> Outputs:
    rows, cols = case["rows"], case["cols"]
    a = inputs["a"].reshape(rows, cols).copy()
    b = inputs["b"][:rows, None] if by_row else inputs["b"][None, :]
    if by_row and rows > cols:
        raise ValueError("b has no element for every row")
    for _ in range(case["repeat"] if times is None else times):
        a = a + a * b  # float32 throughout, as on the device
    return {"a": a.ravel()}


def _matrix_vector_cases() -> tuple[Case, ...]:
    rows = [(4, 8, 8, 4, 1), (33, 50, 16, 4, 3), (100, 7, 8, 8, 2), (1, 1, 1, 1, 5),
            (64, 64, 32, 1, 0), (20, 200, 64, 2, 4), (1000, 1100, 32, 8, 4), (257, 513, 16, 16, 10)]
    return tuple(two_d_case(cols, r, (lx, ly), {"rows": r, "cols": cols, "repeat": rep})
                 for r, cols, lx, ly, rep in rows)


register(Exercise(
    name="matrix_vector",
    title="Update every element of a matrix with a vector, repeat times",
    notebook="04-matrix-vector",
    args=(
        Buffer("a", np.float32, "inout", lambda c: c["rows"] * c["cols"],
               shape=lambda c: (c["rows"], c["cols"])),
        Buffer("b", np.float32, "in", lambda c: c["cols"]),
        Scalar("rows", np.uint32, lambda c: c["rows"]),
        Scalar("cols", np.uint32, lambda c: c["cols"]),
        Scalar("repeat", np.uint32, lambda c: c["repeat"]),
    ),
    cases=_matrix_vector_cases(),
    make_inputs=lambda case, rng: {
        "a": random_floats(rng, case["rows"] * case["cols"], -10.0, 10.0),
        # (1 + b) stays near 1: a thousand rounds neither overflow nor sink into subnormal
        # numbers, which a CPU computes many times slower (and would spoil the sweep)
        "b": random_floats(rng, case["cols"], -0.01, 0.01),
    },
    reference=_matrix_vector,
    rtol=2e-5,
    atol=1e-5,
    hints=(
        "j = get_global_id(0) is the column, i = get_global_id(1) the row; the element is "
        "a[i * cols + j]. Guard i < rows && j < cols: the range is rounded up.",
        "Read a[i][j] and b[j] once into private variables, loop repeat times on the private copy, "
        "and store once at the end: the loop then never touches global memory.",
    ),
    mistakes=(
        Mistake("applied once", lambda c, i: _matrix_vector(c, i, times=1),
                "a was updated once: the update must be applied repeat = {repeat} times (a loop "
                "in the kernel)"),
        Mistake("b by row", lambda c, i: _matrix_vector(c, i, by_row=True),
                "b was indexed by the row: in a[i][j] += a[i][j] * b[j], b's index is the column "
                "j = get_global_id(0)"),
    ),
))


# ---------------------------------------------------------------------------------------------------
# Level 3: parallel_sum (notebook 07) and mat_vec_mul (notebook 08), and the study kernels of their
# ladders, which the same engine checks (Oclgrind included) with cases that fit each one.

def _grid_stride_partials(case: Case, inputs: Inputs, upto: int | None = None) -> Outputs:
    """Partial sums when element i belongs to work-item i % global size (a grid-stride loop);
    only the view (their total) is compared, so any other split passes as well."""
    g, loc = case.global_size[0], case.local_size[0]
    src = inputs["src"][: case["n"] if upto is None else min(upto, case["n"])].astype(np.int64)
    owner = (np.arange(src.size) % g) // loc
    sums = np.bincount(owner, weights=src, minlength=case.num_groups[0])
    return {"partial": np.rint(sums).astype(np.int64)}


def _total(case: Case, partial: np.ndarray) -> np.ndarray:
    return np.array([np.asarray(partial, dtype=np.float64).sum()])


def _sum_cases(rows: list[tuple[int, int, int]]) -> tuple[Case, ...]:
    return tuple(Case((loc * groups,), (loc,), {"n": n}, small=n <= 5000 and loc * groups <= 5000)
                 for n, loc, groups in rows)


_SUM_ARGS_3 = (
    Buffer("src", np.int32, "in", lambda c: c["n"]),
    Buffer("partial", np.int32, "out", lambda c: c.num_groups[0]),
    Scalar("n", np.uint32, lambda c: c["n"]),
    LocalMem("scratch", np.int32, lambda c: c.local_size[0]),
)

_SUM_HINTS = (
    "Each work-item first adds up its own elements in a private variable: i = get_global_id(0), "
    "then i += get_global_size(0) while i < n (the range may be smaller or larger than n).",
    "Then the work-group adds its work-items' sums in scratch: store yours at "
    "scratch[get_local_id(0)], barrier, and at each step s = size / 2, size / 4, ..., 1 the "
    "work-items below s add scratch[lid + s] onto scratch[lid], with a barrier after each step.",
    "Every work-item must reach every barrier: keep barriers out of if (i < n) and out of "
    "if (lid < s). Work-item 0 writes scratch[0] to partial[get_group_id(0)].",
)

_SUM_FINDINGS = (
    FindingHint("race", "a barrier is missing: work-items read scratch before the others "
                "have finished writing it (one barrier after the stores, one after each step)",
                "local"),
    FindingHint("divergent_barrier", "a barrier sits inside a branch or a loop that not every "
                "work-item of the group takes (an if (i < n), an if (lid < s), or a loop whose "
                "count differs): move the barrier out, and let every work-item loop alike"),
    FindingHint("out_of_bounds_read", "src was read past its end: guard every read with i < n",
                "global"),
)

register(Exercise(
    name="parallel_sum",
    title="Sum an array: a partial sum per work-group, reduced in local memory",
    notebook="07-parallel-sum",
    args=_SUM_ARGS_3,
    cases=_sum_cases([(1000, 64, 4), (4096, 256, 16), (10007, 128, 8), (50, 32, 4),
                      (1, 1, 1), (777, 16, 100), (3, 2, 1), (100000, 256, 30),
                      ((1 << 20) + 3, 256, 120), (4099, 64, 64)]),
    make_inputs=lambda case, rng: {"src": random_ints(rng, case["n"], 1000)},
    reference=_grid_stride_partials,
    view=_total,
    view_label="the sum of the partial sums",
    rtol=0.0,
    atol=0.0,
    hints=_SUM_HINTS,
    mistakes=(
        Mistake("one element each", lambda c, i: _grid_stride_partials(c, i, c.work_items),
                "only the first {global_} elements were added: the range has fewer work-items "
                "than n = {n} elements, so each work-item must add several (a loop with "
                "i += get_global_size(0))"),
    ),
    finding_hints=_SUM_FINDINGS,
))


def _mat_vec(case: Case, inputs: Inputs, rows: int | None = None, lanes: int | None = None,
             first_only: bool = False) -> Outputs:
    """w = m . v in double precision; with ``rows`` only the first rows written; with ``lanes``
    only the first ``lanes`` columns used (no stride loop); ``first_only``: work-item 0's share
    alone (no reduction)."""
    width, height = case["width"], case["height"]
    m = inputs["m"].reshape(height, width).astype(np.float64)
    v = inputs["v"].astype(np.float64)
    if lanes is not None:
        m, v = m[:, :lanes], v[:lanes]
    if first_only:
        step = case.local_size[0]
        m, v = m[:, ::step], v[::step]
    w = m @ v
    if rows is not None:
        w = np.where(np.arange(height) < rows, w, np.nan)
    return {"w": w}


def _mat_vec_cases(rows: list[tuple[int, int, int, int]]) -> tuple[Case, ...]:
    return tuple(Case((loc * groups,), (loc,), {"width": w, "height": h},
                      small=w * h <= 20000 and loc * groups <= 4096)
                 for w, h, loc, groups in rows)


_MAT_VEC_ARGS = (
    Buffer("m", np.float32, "in", lambda c: c["width"] * c["height"],
           shape=lambda c: (c["height"], c["width"])),
    Buffer("v", np.float32, "in", lambda c: c["width"]),
    Scalar("width", np.uint32, lambda c: c["width"]),
    Scalar("height", np.uint32, lambda c: c["height"]),
    Buffer("w", np.float32, "out", lambda c: c["height"]),
    LocalMem("partial", np.float32, lambda c: c.local_size[0]),
)


def _mat_vec_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"m": random_floats(rng, case["width"] * case["height"], -1.0, 1.0),
            "v": random_floats(rng, case["width"], -1.0, 1.0)}


register(Exercise(
    name="mat_vec_mul",
    title="Matrix times vector: a work-group per row, a tree in local memory",
    notebook="08-matvec-ladder",
    args=_MAT_VEC_ARGS,
    cases=_mat_vec_cases([(1100, 50, 256, 60), (1100, 300, 256, 60), (37, 20, 32, 5),
                          (1, 7, 1, 3), (513, 129, 64, 129), (64, 1000, 128, 17),
                          (2000, 3, 16, 1), (100, 100, 2, 100), (300, 41, 8, 41)]),
    make_inputs=_mat_vec_inputs,
    reference=_mat_vec,
    rtol=1e-4,
    atol=1e-4,
    hints=(
        "A work-group takes rows y = get_group_id(0), y += get_num_groups(0) while y < height "
        "(there may be fewer work-groups than rows). Every work-item of the group runs this loop "
        "the same number of times, so the barriers inside it are reached by all.",
        "For a row, work-item lid adds m[y * width + x] * v[x] for x = lid, lid + local size, "
        "...: neighbouring work-items read neighbouring floats (coalesced).",
        "Store that sum in partial[lid], barrier, add the halves as in parallel_sum (a barrier "
        "after each step), and let work-item 0 write partial[0] to w[y].",
    ),
    mistakes=(
        Mistake("one row per group", lambda c, i: _mat_vec(c, i, rows=c.num_groups[0]),
                "only the first {groups} rows were computed: there are fewer work-groups than "
                "rows, so each work-group must loop over rows (y += get_num_groups(0))"),
        Mistake("no stride", lambda c, i: _mat_vec(c, i, lanes=c.local_size[0]),
                "only the first {local} columns were used: each work-item must loop over the row "
                "with x += get_local_size(0)"),
        Mistake("no reduction", lambda c, i: _mat_vec(c, i, first_only=True),
                "w holds work-item 0's share of each row only: the work-group's partial sums "
                "must all be added (the tree in local memory)"),
    ),
    finding_hints=(
        FindingHint("race", "a barrier is missing: one after the stores to partial and "
                    "one after each step of the tree", "local"),
        _SUM_FINDINGS[1],
        FindingHint("out_of_bounds_read", "m or v was read past its end: guard x < width and "
                    "y < height", "global"),
    ),
))


def _study_record(base: str, function: str, file: str, cases: tuple[Case, ...]) -> Exercise:
    """The record that checks study kernel ``function`` of kernels/studies/FILE against the
    contract of exercise ``base`` on ``cases`` (launches that kernel supports)."""
    from dataclasses import replace
    return register(replace(get(base), name=f"{base}:{function}", kernel=function,
                            title=f"study kernel {function} ({file})", cases=cases,
                            study_file=file, mistakes=(), performance=None))


def _ladder_sum_cases(per: int) -> tuple[Case, ...]:
    out = []
    for n, loc in [(1000, 64), (4096, 256), (777, 128), (5000, 64)]:
        g = rounded_up(-(-n // per), loc) if per else loc * 3
        out.append(Case((g,), (loc,), {"n": n}, small=True))
    return tuple(out)


# sum_global adds in place in src, which the checker's contract forbids: the study checks it.
for _fn, _per in [("sum_local", 1), ("sum_local_two", 2), ("sum_sequential", 2), ("sum_four", 4),
                  ("sum_warp_unrolled", 4), ("sum_modern", 0), ("sum_chunks", 0)]:
    _study_record("parallel_sum", _fn, "reduction.cl", _ladder_sum_cases(_per))

_LADDER_MV = _mat_vec_cases([(1100, 40, 256, 7), (37, 70, 64, 9), (300, 41, 128, 41),
                             (64, 33, 64, 2)])
for _fn in ["mv_item_rows", "mv_group_serial", "mv_group_interleaved", "mv_group_sequential",
            "mv_group_warp", "mv_slices"]:
    _study_record("mat_vec_mul", _fn, "matvec.cl", _LADDER_MV)
_study_record("mat_vec_mul", "mv_item_per_row", "matvec.cl",
              _mat_vec_cases([(1100, 40, 64, 1), (37, 70, 32, 3), (300, 41, 16, 3)]))


# ---------------------------------------------------------------------------------------------------
# Level 3 performance exercises (notebook 06): correct is the start, the check also times them.

def _transpose(case: Case, inputs: Inputs) -> Outputs:
    m = inputs["in"].reshape(case["height"], case["width"])
    return {"out": m.T.ravel().copy()}


def _transpose_cases() -> tuple[Case, ...]:
    rows = [(16, 16, 4), (37, 23, 8), (100, 64, 16), (64, 1, 8), (1, 50, 4), (33, 33, 16),
            (500, 300, 16), (1024, 768, 16), (129, 257, 8)]
    return tuple(two_d_case(w, h, (t, t), {"width": w, "height": h}) for w, h, t in rows)


def _transposed_as_copy(case: Case, inputs: Inputs) -> Outputs:
    return {"out": inputs["in"].copy()}


def _transpose_perf(side: int, t: int = 16) -> Case:
    return two_d_case(side, side, (t, t), {"width": side, "height": side}, small_up_to=0)


register(Exercise(
    name="transpose",
    title="Transpose a matrix through a tile in local memory",
    notebook="06-memory-access",
    args=(
        Buffer("in", np.float32, "in", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["height"], c["width"])),
        Buffer("out", np.float32, "out", lambda c: c["width"] * c["height"],
               shape=lambda c: (c["width"], c["height"])),
        Scalar("width", np.uint32, lambda c: c["width"]),
        Scalar("height", np.uint32, lambda c: c["height"]),
        LocalMem("tile", np.float32, lambda c: c.local_size[0] * (c.local_size[0] + 1)),
    ),
    cases=_transpose_cases(),
    make_inputs=lambda case, rng: {"in": random_floats(rng, case["width"] * case["height"])},
    reference=_transpose,
    rtol=0.0,
    atol=0.0,
    hints=(
        "Element (x, y) of in is in[y * width + x]; it goes to out[x * height + y]. Guard both "
        "x < width and y < height: the range is rounded up in both dimensions.",
        "With the tile: the work-group's block starts at column get_group_id(0) * T and row "
        "get_group_id(1) * T of in. Load tile[ly * (T + 1) + lx] from the block, barrier, then "
        "write out's block (row = block column + ly, column = block row + lx) from "
        "tile[lx * (T + 1) + ly].",
        "Every work-item must reach the barrier, also those outside the matrix: guard the load "
        "and the store, never return before the barrier.",
    ),
    mistakes=(
        Mistake("copied", _transposed_as_copy,
                "out holds a copy of in, not its transpose: element (x, y) of in, "
                "in[y * width + x], goes to out[x * height + y]"),
    ),
    finding_hints=(
        FindingHint("race", "a barrier(CLK_LOCAL_MEM_FENCE) is missing between the loads into "
                    "tile and the reads of it: a work-item reads what another one wrote",
                    "local"),
        FindingHint("divergent_barrier", "some work-items skip the barrier (a return before it, "
                    "or a barrier inside an if): guard the load and the store instead"),
        FindingHint("out_of_bounds_read", "in was read past its end: guard x < width and "
                    "y < height before loading", "global"),
        FindingHint("out_of_bounds_write", "out was written past its end: its rows are height "
                    "floats long and there are width of them; guard the store", "global"),
        FindingHint("out_of_bounds_read", "tile was read past its end: it holds T * (T + 1) "
                    "floats, rows of T + 1", "local"),
    ),
    performance=Performance(_transpose_perf(2048), _transpose_perf(512)),
))


def _saxpy(case: Case, inputs: Inputs) -> Outputs:
    return {"y": (np.float32(case["a"]) * inputs["x"] + inputs["y"]).astype(np.float32)}


def _saxpy_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    return {"x": random_floats(rng, case["n"]), "y": random_floats(rng, case["n"])}


def _saxpy_cases() -> tuple[Case, ...]:
    rows = [(1000, 64, 16), (4096, 512, 128), (777, 128, 32), (100, 32, 32), (3000, 96, 8),
            (5, 1, 1), (1 << 20, 4096, 256), ((1 << 20) + 3, 8192, 128)]
    return tuple(Case((g,), (loc,), {"n": n, "a": 2.5}, small=n <= 4096) for n, g, loc in rows)


def _saxpy_first(count: Callable[[Case], int]) -> Callable[[Case, Inputs], Outputs]:
    """y after a kernel that updates only its first ``count(case)`` elements (the rest unchanged)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        got = inputs["y"].astype(np.float64)
        k = min(count(case), got.size)
        got[:k] = _saxpy(case, inputs)["y"][:k]
        return {"y": got}
    return model


def _saxpy_perf(n: int, g: int) -> Case:
    return Case((g,), (256,), {"n": n, "a": 2.5})


register(Exercise(
    name="strided_fix",
    title="y = a x + y with neighbouring work-items on neighbouring elements",
    notebook="06-memory-access",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "inout", lambda c: c["n"]),
        Scalar("a", np.float32, lambda c: c["a"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
    ),
    cases=_saxpy_cases(),
    make_inputs=_saxpy_inputs,
    reference=_saxpy,
    rtol=1e-6,
    atol=1e-4,  # a * x + y may be one fused multiply-add or two roundings
    hints=(
        "Keep the loop, change its order: start at i = get_global_id(0) and step by "
        "get_global_size(0) while i < n. At every step the work-items then cover "
        "get_global_size(0) neighbouring elements.",
        "n need not be a multiple of the global size: loop while i < n rather than counting steps.",
    ),
    mistakes=(
        Mistake("one element each", _saxpy_first(lambda c: c.global_size[0]),
                "only the first {global_} elements were updated, one per work-item: there are "
                "fewer work-items than elements, so each one loops (i, i + get_global_size(0), ... "
                "while i < n)"),
        Mistake("leftover", _saxpy_first(lambda c: c["n"] // c.global_size[0] * c.global_size[0]),
                "the last {leftover} elements were not updated: n = {n} is not a multiple of the "
                "global size {global_}; loop while the index is below n instead of counting steps",
                details=_multi_details),
    ),
    performance=Performance(_saxpy_perf(1 << 24, 1 << 16), _saxpy_perf(1 << 20, 1 << 13),
                            given=("level3.cl", "saxpy_chunks")),
))


def _even_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.9) * v + np.float32(0.1)).astype(np.float32)


def _odd_step(v: np.ndarray) -> np.ndarray:
    return (np.float32(0.25) * v * v - np.float32(0.5)).astype(np.float32)


def _woven(case: Case, inputs: Inputs) -> Outputs:
    v = inputs["x"].copy()
    even = np.arange(v.size) % 2 == 0
    for _ in range(case["rounds"]):
        v = np.where(even, _even_step(v), _odd_step(v)).astype(np.float32)
    return {"y": v}


def _woven_inputs(case: Case, rng: np.random.Generator) -> Inputs:
    # |x| <= 1: the odd step then stays bounded (it settles near 2 - sqrt(6))
    return {"x": random_floats(rng, case["n"], -1.0, 1.0)}


def _one_branch(parity: int) -> Callable[[Case, Inputs], Outputs]:
    """y when every element took the step of ``parity`` (the branch's condition lost)."""
    def model(case: Case, inputs: Inputs) -> Outputs:
        v = inputs["x"].copy()
        for _ in range(case["rounds"]):
            v = _even_step(v) if parity == 0 else _odd_step(v)
        return {"y": v}
    return model


def _woven_cases() -> tuple[Case, ...]:
    rows = [(1, 64, 3), (100, 32, 8), (1000, 256, 16), (4096, 64, 5), (777, 128, 32),
            (5, 1, 2), (1 << 18, 256, 16), ((1 << 18) + 3, 128, 7)]
    return tuple(Case((rounded_up(n, loc),), (loc,), {"n": n, "rounds": r}, small=n <= 4096)
                 for n, loc, r in rows)


def _woven_perf(n: int, rounds: int) -> Case:
    return Case((n,), (256,), {"n": n, "rounds": rounds})


register(Exercise(
    name="divergence_fix",
    title="The same result without divergent branches",
    notebook="06-memory-access",
    args=(
        Buffer("x", np.float32, "in", lambda c: c["n"]),
        Buffer("y", np.float32, "out", lambda c: c["n"]),
        Scalar("n", np.uint32, lambda c: c["n"]),
        Scalar("rounds", np.uint32, lambda c: c["rounds"]),
    ),
    cases=_woven_cases(),
    make_inputs=_woven_inputs,
    reference=_woven,
    rtol=1e-5,
    atol=1e-5,
    hints=(
        "Reorder: let the first ceil(n / 2) work-items take the even elements (i = 2 * g) and "
        "the rest the odd ones (i = 2 * (g - ceil(n / 2)) + 1), so that a warp's work-items "
        "agree on the branch.",
        "Or one loop for all: both steps are v = (a * v + b) * v + c; read a, b, c from a "
        "__constant table indexed by i & 1 (even: 0, 0.9, 0.1; odd: 0.25, 0, -0.5).",
    ),
    mistakes=(
        Mistake("even step everywhere", _one_branch(0),
                "every element went through the even step (0.9 v + 0.1): the odd elements "
                "(i % 2 == 1) take 0.25 v v - 0.5"),
        Mistake("odd step everywhere", _one_branch(1),
                "every element went through the odd step (0.25 v v - 0.5): the even elements "
                "(i % 2 == 0) take 0.9 v + 0.1"),
    ),
    performance=Performance(_woven_perf(1 << 22, 256), _woven_perf(1 << 18, 64), peak="compute",
                            # 2 flops a round on even elements, 3 on odd ones
                            flops=lambda c: 2.5 * c["n"] * c["rounds"],
                            given=("level3.cl", "branches_woven"),
                            # the table remedy runs 2 flops a round everywhere where the reordered
                            # solution averages 1.5: it is a remedy too, at about 75%
                            target=0.7),
))

# The slow kernels the exercises start from are checked against the same contracts.
_study_record("strided_fix", "saxpy_chunks", "level3.cl", _saxpy_cases())
_study_record("divergence_fix", "branches_woven", "level3.cl", _woven_cases())
