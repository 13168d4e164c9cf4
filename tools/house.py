"""The house of ``helpers/`` drawn from its imports: rooms, floors, arrows and the arrows that run back
up. ``python tools/house.py [--json] [--exercise-names]``; issue 43's note reports it before and after,
and tests/test_house.py holds the floors that docs/design.md names.

A room is a top-level module of ``helpers`` or one of its packages (``helpers.exercises``,
``helpers.checking``...); a package's ``__init__`` and ``__main__`` belong to it. An arrow is one room
importing another, at the top of a file or inside a function alike (both are dependencies). Floors
are drawn as the longest chain of arrows below a room, after the rooms caught in a circle are
merged; an arrow back up is one inside such a circle (one that no floor plan could point down).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT  # noqa: E402

HELPERS = ROOT / "helpers"


def room_of(module: str) -> str:
    """``helpers.checking.checker`` -> ``checking``; ``helpers.device`` -> ``device``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def modules(root: Path = HELPERS) -> dict[str, Path]:
    out = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imported(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules of ``helpers`` (among ``known``) that ``module`` imports, anywhere in its file:
    ``from . import bench`` is the module ``bench``; ``from .exercises import Case`` the package
    ``exercises``; an import inside a function counts as one at the top."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            names = [f"{target}.{a.name}" for a in node.names]
            found.update(n for n in names if n in known)
            if target in known and any(n not in known for n in names):
                found.add(target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
    found.discard(module)
    return found


def module_graph(root: Path = HELPERS) -> dict[str, set[str]]:
    """module -> the modules of ``helpers`` it imports."""
    mods = modules(root)
    return {m: imported(m, p, set(mods)) for m, p in mods.items()}


def arrows(root: Path = HELPERS) -> dict[str, set[str]]:
    """room -> the rooms it imports (itself left out)."""
    out: dict[str, set[str]] = defaultdict(set)
    for mod, targets in module_graph(root).items():
        here = room_of(mod)
        out[here].update(room_of(t) for t in targets)
        out[here] -= {here, "__init__"}   # every import runs the package's __init__ first
    return dict(out)


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components (Tarjan), those of more than one room."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(10_000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """room -> floor (1 = imports no other room), rooms in one circle sharing a floor."""
    comp_of = {v: frozenset({v}) for v in graph}
    for comp in circles(graph):
        for v in comp:
            comp_of[v] = frozenset(comp)
    memo: dict[frozenset, int] = {}

    def floor(c: frozenset) -> int:
        if c not in memo:
            below = {comp_of[w] for v in c for w in graph.get(v, ()) if comp_of[w] != c}
            memo[c] = 1 + max((floor(b) for b in below), default=0)
        return memo[c]

    return {v: floor(comp_of[v]) for v in graph}


def summary(graph: dict[str, set[str]]) -> dict:
    fl = floors(graph)
    back = sum(1 for comp in circles(graph) for v in comp for w in graph[v] if w in comp)
    return {"rooms": len(graph), "floors": max(fl.values(), default=0),
            "arrows": sum(len(v) for v in graph.values()), "arrows_in_circles": back,
            "circles": [sorted(c) for c in circles(graph)],
            "floor_of": dict(sorted(fl.items(), key=lambda kv: (kv[1], kv[0])))}


def exercise_names(root: Path = HELPERS) -> dict[str, list[str]]:
    """exercise -> the Python files of ``helpers`` (outside its own module) that name it."""
    names = sorted(p.stem for p in (root.parent / "solutions").glob("*.cl"))
    out = {}
    for name in names:
        files = []
        for path in sorted(root.rglob("*.py")):
            if path.stem == name:
                continue
            if f'"{name}"' in path.read_text(encoding="utf-8") or \
                    f"'{name}'" in path.read_text(encoding="utf-8"):
                files.append(str(path.relative_to(root.parent)))
        out[name] = files
    return out


def floor_table(text: str | None = None) -> dict[str, int]:
    """room -> floor, from the table in docs/design.md (a row: | floor | concern | rooms | owns |)."""
    if text is None:
        text = (HELPERS.parent / "docs" / "design.md").read_text(encoding="utf-8")
    rooms: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|", line)
        if m:
            for room in re.findall(r"`([\w.]+)`", m.group(2)):
                if room in rooms:
                    raise ValueError(f"{room} is on two floors of the table")
                rooms[room] = int(m.group(1))
    return rooms


def arrows_up(graph: dict[str, set[str]], table: dict[str, int]) -> list[str]:
    """Every arrow from a room to a room on a higher floor of ``table``."""
    return sorted(f"{a} (floor {table[a]}) -> {b} (floor {table[b]})"
                  for a, targets in graph.items() for b in targets
                  if a in table and b in table and table[b] > table[a])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--exercise-names", action="store_true",
                        help="the files outside an exercise's own module that name it")
    args = parser.parse_args(argv)
    s = summary(arrows())
    if args.exercise_names:
        s["exercise_names"] = exercise_names()
    if args.json:
        print(json.dumps(s, indent=1))
        return 0
    table = floor_table()
    up = arrows_up(arrows(), table)
    print(f"{s['rooms']} rooms, {s['arrows']} arrows, {s['arrows_in_circles']} of them in circles; "
          f"docs/design.md's table: {len(set(table.values()))} floors, {len(up)} arrows up; "
          f"the longest chain of imports: {s['floors']} rooms")
    for a in up:
        print("  up:", a)
    by_floor = defaultdict(list)
    for room, f in s["floor_of"].items():
        by_floor[f].append(room)
    print("  by the longest chain below each room:")
    for f in sorted(by_floor, reverse=True):
        print(f"  {f:2d}: {', '.join(by_floor[f])}")
    for c in s["circles"]:
        print("  circle:", " <-> ".join(c))
    for name, files in s.get("exercise_names", {}).items():
        print(f"  {name}: {len(files)} files: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
