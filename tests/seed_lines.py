"""The lines of the seeds (the course's four source documents, ``../shared/seeds/``) that the tests
check the course against, quoted in the repository: ``tests/data/seed_lines.json`` holds each seed's
file name, the sha256 digest of its whole text, its number of lines, and the lines the course cites
or draws a figure from, whole, by number. ``tests/test_sources.py`` and ``tests/test_statements.py``
read the quotes, so they run on a clone that has only the repository; where the seeds sit beside it,
one test of ``tests/test_sources.py`` compares the quotes with them (:func:`build` again).

    python tools/seed_lines.py [--check]   # writes the file from ../shared/seeds

What the course needs of the seeds (:func:`needs`) is read from the tests themselves: the claims
the notebooks attribute to a seed, the figures of helpers/studies/history.json as the seeds write
them, docs/sources.md's cited lines and the seed lines behind tests/test_statements.py's reasons."""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from helpers.paths import ROOT

QUOTES = ROOT / "tests" / "data" / "seed_lines.json"
SEEDS = ROOT.parent / "shared" / "seeds"
NOT_BESIDE = ("../shared/seeds is not beside this clone: the quoted lines in "
              "tests/data/seed_lines.json were not compared with the full seeds")
REGENERATE = "where the seed says it, run python tools/seed_lines.py"
_GAP = "\n\0\n"   # between quoted lines that are not neighbours: no words match across it

ABOUT = ("The lines of the course's source documents (../shared/seeds/) that its tests check "
         "figures and claims against, each whole and by its number (1 = the first line), with the "
         "digest and length of each document. Written by tools/seed_lines.py; read by "
         "tests/seed_lines.py.")


def _key(seed: str) -> str:
    """'000' from '000' or from '000_bcde547a3e3fcdab.txt'."""
    return seed[:3]


@dataclass(frozen=True)
class Quotes:
    data: dict

    def __repr__(self) -> str:
        return "Quotes(tests/data/seed_lines.json)"

    def file(self, seed: str) -> str:
        return self.data["seeds"][_key(seed)]["file"]

    def length(self, seed: str) -> int:
        return self.data["seeds"][_key(seed)]["lines"]

    def line(self, seed: str, number: int) -> str:
        quoted = self.data["seeds"][_key(seed)]["quoted"]
        if str(number) not in quoted:
            raise AssertionError(f"line {number} of {self.file(seed)} is not quoted in "
                                 f"tests/data/seed_lines.json: {REGENERATE}")
        return quoted[str(number)]

    def text(self, seed: str) -> str:
        """The seed's quoted lines in order, neighbours joined by a newline, others by a gap."""
        quoted = sorted((int(n), line) for n, line in self.data["seeds"][_key(seed)]["quoted"].items())
        out = []
        for k, (n, line) in enumerate(quoted):
            if k:
                out.append("\n" if n == quoted[k - 1][0] + 1 else _GAP)
            out.append(line)
        return "".join(out)

    def has(self, seed: str, words: str) -> bool:
        return words in self.text(seed)


@functools.cache
def quotes() -> Quotes:
    return Quotes(json.loads(QUOTES.read_text(encoding="utf-8")))


def needs() -> list[tuple[str, int | None, str]]:
    """(seed, line or None where any line will do, the words) for everything the tests check."""
    from helpers import studies
    from tests import test_sources, test_statements  # they read this module: imported late

    found = [(seed, None, words) for _, _, seed, evidence in test_sources.CLAIMS
             for words in evidence]
    found += [(record["seed"], None, words) for name, record in studies.HISTORY.items()
              for words in test_sources._quoted(name, record)]
    found += list(test_sources._cited_rows())
    found += [w for wrong in test_statements.WRONG for w in wrong.seed]
    return [(_key(seed), line, words) for seed, line, words in found]


def build(seeds: Path = SEEDS) -> dict:
    """The quotes as the seeds in ``seeds`` give them; ValueError for words a seed does not hold."""
    texts = {_key(p.name): p for p in sorted(seeds.glob("[0-9][0-9][0-9]_*.txt"))}
    wanted: dict[str, set[int]] = {key: set() for key in texts}
    lines = {key: p.read_text(encoding="utf-8").splitlines() for key, p in texts.items()}
    missing = []
    for key, number, words in needs():
        if key not in lines:
            missing.append(f"no seed {key} in {seeds}")
        elif number is not None:
            if 1 <= number <= len(lines[key]) and words in lines[key][number - 1]:
                wanted[key].add(number)
            else:
                missing.append(f"{texts[key].name} line {number} does not hold {words!r}")
        else:
            text = "\n".join(lines[key])
            at = text.find(words)
            if at < 0:
                missing.append(f"{texts[key].name} does not say {words!r}")
            else:
                first = text.count("\n", 0, at) + 1
                wanted[key].update(range(first, first + words.count("\n") + 1))
    if missing:
        raise ValueError("\n".join(missing))
    return {"about": ABOUT, "seeds": {
        key: {"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest(),
              "lines": len(lines[key]),
              "quoted": {str(n): lines[key][n - 1] for n in sorted(wanted[key])}}
        for key, p in texts.items()}}


def rendered(data: dict) -> str:
    """The file's text: one quoted line a line, so that a change to the quotes reads as a diff."""
    seeds = []
    for key, seed in data["seeds"].items():
        quoted = ",\n".join(f"    {json.dumps(n)}: {json.dumps(line, ensure_ascii=False)}"
                            for n, line in seed["quoted"].items())
        seeds.append(f"  {json.dumps(key)}: {{\"file\": {json.dumps(seed['file'])}, "
                     f"\"sha256\": {json.dumps(seed['sha256'])}, \"lines\": {seed['lines']}, "
                     f"\"quoted\": {{\n{quoted}\n  }}}}")
    return (f"{{\"about\": {json.dumps(data['about'], ensure_ascii=False)},\n"
            "\"seeds\": {\n" + ",\n".join(seeds) + "\n}}\n")
