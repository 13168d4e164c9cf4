"""The sources quoted right: every figure of helpers/studies/history.json, and every figure the
notebooks attribute to a seed, appears in that seed. The seeds (``../shared/seeds/``) sit beside the
course's repository in CI and in a developer's checkout, not in a clone of the repository alone: the
tests read the lines they need from tests/data/seed_lines.json (tests/seed_lines.py), and one test,
where the seeds are present, checks those quotes against them (skipped, saying so, where not)."""

from __future__ import annotations

import json
import re

import pytest

from helpers import studies

from . import seed_lines
from .conftest import ROOT

pytestmark = pytest.mark.once   # no device: run with one CPU implementation

WHITEPAPER, TRAINING, BLOG, DU = ("000_bcde547a3e3fcdab.txt", "001_86474a4772bee336.txt",
                                  "003_47bc67132b88eff6.txt", "004_cf395aad3807aee4.txt")

# (notebook, what the notebook says, the seed, what the seed must say for that to be true)
CLAIMS = [
    ("notes/00-host-and-device", "compiling its 300+ lines of OpenCL C took just over 2 s", DU,
     ["300+ lines of OpenCL C code", "takes just over 2 s", "less than 0.2 s"]),
    ("notes/00-host-and-device", "cut that 2 s to 0.2 s, a start-up ten times faster", DU,
     ["from 2+ s to 0.2 s", "10× faster"]),
    ("notes/08-coalescing", "measured 26 against 7 GB/s on a Quadro K620",
     TRAINING, ["Quadro K620 Aligned: 26 GB/s Strided: 7 GB/s"]),
    ("notes/08-coalescing", "170 against 4 on a Radeon HD 7950", TRAINING,
     ["HD 7950 Aligned: 170 GB/s Strided: 4 GB/s"]),
    ("13-matvec-ladder", "*OpenCL Programming for the CUDA Architecture* (version 3.2, 2010)",
     WHITEPAPER, ["OpenCL Programming for the CUDA Architecture", "Version 3.2", "8/23/2010"]),
    ("13-matvec-ladder", "**239 work-groups** for listing 2", WHITEPAPER,
     ["239 work groups for the first kernel", "60 work-groups for the five last kernels",
      "a work-group size of 256"]),
    ("14-portability-and-tuning", "at 40 Gflop/s, 4% of the peak, on a Tesla C2050 (their Fig. 11)",
     DU, ["over 1 Tflop/s", "40 Gflop/s (4% of peak) on the Tesla C2050"]),
    ("14-portability-and-tuning", "600 Gflop/s (22% of the Radeon's peak)", DU,
     ["replaced the arrays with standalone", "600 Gflop/s (22% peak)",
      "ran faster on the Radeon 5870 than the C2050 in absolute terms"]),
    ("14-portability-and-tuning", "the search itself as future work", DU,
     ["the search engine itself remains as future work"]),
    ("14-portability-and-tuning", "57% of the C2050's peak in\nOpenCL against 63% in CUDA", DU,
     ["SGEMM CUDA/OpenCL", "% of peak\t63/57"]),
    ("02-work-groups", "NVIDIA's Fermi SM has 32 cores", TRAINING,
     ["- SM:\n - 32 cores\n - Processing elements\n - 4 special function units\n"
      " - 64 KB local memory/cache", "32K 32 bit registers"]),
    ("02-work-groups", "192 cores, 32 special function units and 64K registers", TRAINING,
     ["- SMX:\n - 192 cores\n - 32 special function units\n - 64 KB local memory/cache\n"
      " - 64K 32 bit registers"]),
    ("02-work-groups", '"256 is a good number"', TRAINING,
     ["A multiple of the warp/wavefront size", "In practice: 256 is a good number"]),
    ("02-work-groups", "by passing `NULL` as the local size", WHITEPAPER,
     ["should not rely on the OpenCL implementation to determine the right work-group size",
      "setting *local_work_size* to NULL"]),
    ("02-work-groups", "32\nat a time on NVIDIA hardware (a **warp**)", WHITEPAPER,
     ["these groups are called warps, each warp has 32 threads",
      "SIMT (Single Instruction Multiple Threads)"]),
    ("notes/06-registers-and-unrolling", '"dropped by an order of magnitude"', DU,
     ["with just keyword substitution, performance dropped by an order of magnitude",
      "we manually unrolled the inner-most compute loop"]),
    ("notes/06-registers-and-unrolling", "standalone variables (then 600 Gflop/s, their Fig. 12)", DU,
     ["the array variables were not cached and resided in global memory",
      "replaced the arrays with standalone", "600 Gflop/s (22% peak)"]),
    ("06-registers-and-unrolling", "says\nprivate arrays will be stored in global memory", TRAINING,
     ["! Private arrays will be stored in global memory"]),
    ("11-constant-memory-and-fast-math", "integer division and modulo are\nexpensive", WHITEPAPER,
     ["Integer division and modulo, in particular, are expensive instructions",
      "replaced with bitwise operations"]),
    ("notes/09-bank-conflicts", "**or all read the same word** (a broadcast)", TRAINING,
     ["All work items of warp read the same address", "Maximum cost = maximum bank conflict degree",
      "Next word in next bank modulo 32"]),
    ("notes/09-bank-conflicts", "The training also says AMD avoids bank conflicts in hardware", TRAINING,
     ["AMD avoids bank conflicts in hardware"]),
    ("13-matvec-ladder", "whitepaper measured 12.1 against 9.6 ms", WHITEPAPER,
     ["Listing 5\t12.1", "Listing 6\t9.6", "only 2-way bank conflicts and the loop has few "
      "iterations"]),
    ("notes/03-local-memory", "with `CLK_ADDRESS_CLAMP` a read past the edge returns 0", DU,
     ["fetching outside the bounds of the 2D image yields 0.0",
      "This allows k to be indivisible by 2"]),
]


@pytest.fixture(scope="module")
def seeds() -> seed_lines.Quotes:
    return seed_lines.quotes()


def _notebook_text(name: str) -> str:
    """A notebook's text, or a note's (``notes/NAME``: docs/notes/NAME.md, where a lesson's
    citations and the sources' errata live)."""
    if name.startswith("notes/"):
        return (ROOT / "docs" / f"{name}.md").read_text()
    nb = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())
    return "\n".join("".join(c["source"]) for c in nb["cells"])


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c[0]}: {c[1][:30]}")
def test_what_a_notebook_attributes_to_a_seed_is_in_the_seed(claim, seeds):
    notebook, said, seed, evidence = claim
    assert said in _notebook_text(notebook), f"{notebook} no longer says {said!r}: update CLAIMS"
    for words in evidence:
        assert seeds.has(seed, words), \
            f"{seed} does not say {words!r} in its quoted lines ({seed_lines.REGENERATE})"


def _quoted(name: str, record: dict) -> list[str]:
    """Each figure of a history record as its seed writes it, with the words around it."""
    if name == "matvec_ladder":
        return [f"Listing {k}\t{v}" for k, v in record["ms"].items()]
    if name == "divergence":   # a table row per kernel: the three GPUs' times side by side
        return [f"{kernel} " + " ".join(f"{record['ms'][gpu][kernel]:.3f} ms" for gpu in record["ms"])
                for kernel in record["ms"]["Tesla C1060"]]
    if name == "strides":
        return [f"Aligned: {v['aligned']} GB/s Strided: {v['strided']} GB/s"
                for v in record["gb_per_s"].values()]
    if name == "du_table6":   # each device's SGEMM pair in its achieved and per-watt rows
        return [f"{row}\t{a}/{b}" for r in record["sgemm"].values()
            for row, (a, b) in (("Achieved Gflops/s", r["gflop_per_s"]),
                                ("Gflops/s per Watt", r["per_watt"]))]
    raise AssertionError(f"no rule for the history record {name}: add one")


def test_every_historical_figure_is_in_its_seed(seeds):
    for name, record in studies.HISTORY.items():
        assert seeds.file(record["seed"]) == record["seed"], f"{name}: no seed {record['seed']}"
        for quoted in _quoted(name, record):
            assert seeds.has(record["seed"], quoted), \
                f"{name}: {quoted!r} is not in {record['seed']}'s quoted lines ({seed_lines.REGENERATE})"


def test_the_whitepaper_is_named_by_its_title():
    source = studies.HISTORY["matvec_ladder"]["source"]
    assert "OpenCL Programming for the CUDA Architecture" in source and "2010" in source
    assert "Best Practices" not in source


def _cited_rows() -> list[tuple[str, int, str]]:
    """docs/sources.md's cited lines: (seed number, line, the words quoted from it)."""
    text = (ROOT / "docs" / "sources.md").read_text()
    return [(m.group(1), int(m.group(2)), m.group(3))
            for m in re.finditer(r"^\|[^|]+\|[^|]+\| `(\d{3}):(\d+)` \| \"(.+)\" \|$", text, re.M)]


def test_every_cited_line_holds_the_words_docs_sources_quotes(seeds):
    rows = _cited_rows()
    assert len(rows) >= 25, "docs/sources.md lost its table"
    for number, line, words in rows:
        assert line <= seeds.length(number), f"{number}:{line} is past the end of {seeds.file(number)}"
        assert words in seeds.line(number, line), f"{number}:{line} does not hold {words!r}"


def test_every_seed_line_the_course_cites_exists(seeds):
    """'000 line 265' and '004 lines 164, 335' in the lessons and kernels point at real lines."""
    files = list((ROOT / "notebooks").glob("*.ipynb")) + list((ROOT / "kernels").rglob("*.cl")) \
        + list((ROOT / "docs").rglob("*.md"))
    lengths = {number: seeds.length(number) for number in ("000", "001", "003", "004")}
    found = 0
    for path in files:
        for m in re.finditer(r"\b(00[0134]) lines? ([\d, -]+)", path.read_text()):
            for n in re.findall(r"\d+", m.group(2)):
                found += 1
                assert 1 <= int(n) <= lengths[m.group(1)], f"{path.name}: {m.group(0)}"
    assert found >= 10


def test_the_quoted_lines_are_the_seeds_own():
    """tests/data/seed_lines.json is what tools/seed_lines.py writes from the seeds today: each
    seed's digest and length, each quoted line word for word, and no line quoted that no test
    needs. Where the seeds are not beside the clone, skipped with its reason: the other tests then
    rest on the quotes alone."""
    if not seed_lines.SEEDS.is_dir():
        pytest.skip(seed_lines.NOT_BESIDE)
    fresh, committed = seed_lines.build()["seeds"], seed_lines.quotes().data["seeds"]
    assert sorted(fresh) == sorted(committed) == ["000", "001", "003", "004"]
    for key, seed in fresh.items():
        held = committed[key]
        name = seed["file"]
        assert (held["file"], held["sha256"], held["lines"]) == \
            (name, seed["sha256"], seed["lines"]), f"{name} changed: run python tools/seed_lines.py"
        for n, line in held["quoted"].items():
            assert seed["quoted"].get(n) == line, \
                f"{name} line {n} is not as quoted (or no test needs it): run python tools/seed_lines.py"
        assert not set(seed["quoted"]) - set(held["quoted"]), f"{name}: lines to quote"
    assert seed_lines.QUOTES.read_text(encoding="utf-8") == seed_lines.rendered(seed_lines.build()), \
        "tests/data/seed_lines.json is not as tools/seed_lines.py writes it"
