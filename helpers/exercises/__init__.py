"""The exercise registry: one record per exercise, and nothing else.

A record says which kernel function to run, with which arguments (buffers, scalars, local memory),
on which launch configurations (cases), from which random inputs, and what numpy says the answer is.
It may also name typical mistakes as models of the output they produce, and hints. The checker
(:mod:`helpers.check`) is generic: a new exercise is a new record in its level's module
(``level0`` .. ``level4``), not new machinery; :mod:`.model` holds what the records are made of.
"""

from __future__ import annotations

from . import (  # noqa: F401  (each registers its records)
    level0,
    level1,
    level2,
    level3,
    level3_registers_banks,
    level4,
    level4_advanced,
)
from .model import (
    REGISTRY,
    Buffer,
    Case,
    Exercise,
    FindingHint,
    Inputs,
    Limits,
    LocalMem,
    Mistake,
    Outputs,
    Performance,
    Scalar,
    beyond_the_data,
    device_limits,
    exercises,
    get,
    load_registry_file,
    one_d_cases,
    random_floats,
    random_ints,
    register,
    rounded_up,
    short_of_the_data,
    two_d_case,
    unwritten,
    uses_local_memory,
    wide_floats,
    wide_ints,
)

__all__ = ["REGISTRY", "Buffer", "Case", "Exercise", "FindingHint", "Inputs", "Limits", "LocalMem",
           "Mistake",
           "Outputs", "Performance", "Scalar", "beyond_the_data", "device_limits",
           "exercises", "get", "load_registry_file",
           "one_d_cases", "random_floats", "random_ints", "register", "rounded_up",
           "short_of_the_data", "two_d_case",
           "unwritten", "uses_local_memory", "wide_floats", "wide_ints"]
