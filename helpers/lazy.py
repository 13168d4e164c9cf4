"""Names a package hands on lazily (PEP 562): ``from helpers.checking import run_check`` imports
the module that owns ``run_check`` when it is first asked for, not before, so that importing one
module of a package never imports the rest. Imports nothing of the course."""

from __future__ import annotations

import importlib
from collections.abc import Callable


def hand_on(package: str, owners: dict[str, str], namespace: dict
            ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, whose names are owned by its modules
    as ``owners`` says (name -> module, relative to the package; a module's own name: the module
    itself, or a module of one of its packages: ``"lessons": "studies.lessons"``). ``namespace``:
    the package's globals, where each name is kept once found."""
    def __getattr__(name: str):
        owner = owners.get(name, name)
        try:
            module = importlib.import_module(f".{owner}", package)
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{owner}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = module if owner.rpartition(".")[2] == name else getattr(module, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(owners))

    return __getattr__, __dir__
