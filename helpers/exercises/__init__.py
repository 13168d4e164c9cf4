"""The exercises of the course: one module per exercise, named like it, and nothing else.

A module holds everything the course knows about its exercise: the record (:class:`Exercise`)
that says which kernel function to run, with which arguments (buffers, scalars, local memory), on
which launch configurations (cases), from which random inputs, what numpy says the answer is,
which typical mistakes it recognizes and which hints it gives, and the contract text that
docs/design.md and docs/checks.md show. The checker (:mod:`helpers.checking`) is generic: a new
exercise is a new module here (and its kernels/ and solutions/ files and its notebook cell), not
new machinery. :mod:`.model` holds what the records are made of, :mod:`.common` what several
exercises share, :mod:`.cells` the notebook cells and tables made from the records, :mod:`.passed`
the record of passed checks.

Importing the package imports every exercise module it holds; :func:`exercises` lists them in the
course's order (each record's ``place``).
"""

from __future__ import annotations

import importlib
import pkgutil

from .model import (
    REGISTRY,
    STUDY_KERNELS,
    Buffer,
    Case,
    Compare,
    Exercise,
    Extremes,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    Teaching,
    Technique,
    Tile,
    beyond_the_data,
    device_limits,
    exercises,
    extreme_floats,
    get,
    load_registry_file,
    one_d_cases,
    parameters,
    random_floats,
    random_ints,
    register,
    rounded_up,
    short_of_the_data,
    signature,
    two_d_case,
    unwritten,
    uses_local_memory,
    wide_floats,
    wide_ints,
)

# The package's modules that are not an exercise.
NOT_EXERCISES = frozenset({"model", "common", "cells", "passed"})


def exercise_modules() -> list[str]:
    """The names of the package's exercise modules (every module but :data:`NOT_EXERCISES`)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__)
                  if not m.ispkg and m.name not in NOT_EXERCISES)


for _name in exercise_modules():
    importlib.import_module(f"{__name__}.{_name}")   # each registers its record

__all__ = ["REGISTRY", "STUDY_KERNELS", "Buffer", "Case", "Compare", "Exercise", "Extremes",
           "FindingHint", "Inputs", "Teaching", "Technique", "Tile",
           "Limits", "LocalMem",
           "Mistake", "NOT_EXERCISES",
           "Outputs", "Performance", "Scalar", "beyond_the_data", "device_limits",
           "exercise_modules", "exercises", "get", "load_registry_file",
           "one_d_cases", "parameters", "random_floats", "random_ints", "register", "rounded_up",
           "short_of_the_data", "signature", "two_d_case",
           "unwritten", "uses_local_memory", "extreme_floats", "wide_floats", "wide_ints"]
