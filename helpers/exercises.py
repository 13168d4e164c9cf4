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


@dataclass(frozen=True)
class Scalar:
    """A by-value argument, e.g. ``const uint n``."""

    name: str
    dtype: type
    value: Callable[[Case], int | float]


@dataclass(frozen=True)
class LocalMem:
    """A ``__local`` pointer argument of ``length(case)`` elements of ``dtype``."""

    name: str
    dtype: type
    length: Callable[[Case], int]


Arg = Buffer | Scalar | LocalMem


@dataclass(frozen=True)
class Mistake:
    """A typical mistake, modelled by the outputs it produces.

    ``model(case, inputs)`` returns the outputs such a kernel leaves, with ``None`` for an element
    it never writes (use a float array with NaN there; see :func:`unwritten`). When a wrong output
    matches a model everywhere, the learner reads ``message`` (formatted with the case's params and
    ``local``, ``groups`` and ``global_`` sizes).
    """

    name: str
    model: Callable[[Case, Inputs], Outputs]
    message: str


def unwritten(length: int) -> np.ndarray:
    """An output model where no element is written yet (NaN marks 'not written')."""
    return np.full(length, np.nan)


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
    rtol: float = 1e-5
    atol: float = 1e-6
    kernel: str = ""

    @property
    def function(self) -> str:
        """The kernel function's name (the exercise's name unless the record says otherwise)."""
        return self.kernel or self.name

    def buffers(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer)]

    def outputs(self) -> list[Buffer]:
        return [a for a in self.args if isinstance(a, Buffer) and a.role != "in"]


REGISTRY: dict[str, Exercise] = {}


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


def one_d_cases(sizes_and_locals: list[tuple[int, int]], small_up_to: int = 4096) -> tuple[Case, ...]:
    """1-D cases over ``n`` elements with the global size rounded up to the local size."""
    return tuple(
        Case((rounded_up(n, loc),), (loc,), {"n": n}, small=n <= small_up_to)
        for n, loc in sizes_and_locals
    )


# ---------------------------------------------------------------------------------------------------
# Level 0: float_copy, the hello world of OpenCL.

def _copy_by(index: str) -> Callable[[Case, Inputs], Outputs]:
    """Model of a copy kernel indexed by another id function than get_global_id(0)."""

    def model(case: Case, inputs: Inputs) -> Outputs:
        n, loc, groups = case["n"], case.local_size[0], case.num_groups[0]
        count = {"local": loc, "group": groups}[index]
        dst = unwritten(n)
        k = min(count, n)
        dst[:k] = inputs["src"][:k]
        return {"dst": dst}

    return model


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
    reference=lambda case, inputs: {"dst": inputs["src"].copy()},
    rtol=0.0,
    atol=0.0,
    hints=(
        "get_global_id(0) is this work-item's number in the whole range: use it as the element "
        "index.",
        "The global size is rounded up to a multiple of the work-group size, so some work-items "
        "have no element: do nothing when i >= n.",
        "The whole body is two lines: the index, then a guarded store dst[i] = src[i].",
    ),
    mistakes=(
        Mistake("local id", _copy_by("local"),
                "only the first {local} elements were copied, the size of one work-group: "
                "get_local_id(0) counts inside a work-group; the element index is "
                "get_global_id(0)"),
        Mistake("group id", _copy_by("group"),
                "only the first {groups} elements were copied, one per work-group: "
                "get_group_id(0) numbers work-groups; the element index is get_global_id(0)"),
    ),
))
