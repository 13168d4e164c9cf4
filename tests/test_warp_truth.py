"""The warp model checked against an H100 (issue 44 point 6): docs/warp-model.md's section
"Checked against an H100" is rendered from results/reference/warp-model-vs-nsight-h100.json
(written by tools/warp_vs_nsight.py, which runs the launches of the H100's truth on Oclgrind with
the model's plugin), and that file compares against the truth the repository holds. Reads files
only: no GPU, no Oclgrind."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys

import pytest

from helpers.paths import ROOT

pytestmark = pytest.mark.once   # files only: no device

COMPARISON = ROOT / "results/reference/warp-model-vs-nsight-h100.json"


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("tool_warp_vs_nsight",
                                                  ROOT / "tools" / "warp_vs_nsight.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def result():
    return json.loads(COMPARISON.read_text())


def test_the_doc_shows_the_comparison_as_rendered_from_its_json(tool, result):
    text = (ROOT / "docs" / "warp-model.md").read_text(encoding="utf-8")
    assert text.count(tool.BEGIN) == 1 and text.count(tool.END) == 1
    section = text[text.index(tool.BEGIN):text.index(tool.END) + len(tool.END)]
    assert section == tool.render(result), \
        "docs/warp-model.md differs from the comparison's JSON: run python tools/warp_vs_nsight.py --doc"


def test_it_compares_against_the_truth_in_the_repository(tool, result):
    truth_path = ROOT / result["truth"]["file"]
    assert truth_path == tool.TRUTH
    assert result["truth"]["sha256"] == hashlib.sha256(truth_path.read_bytes()).hexdigest()[:16], \
        "the H100's truth changed since the comparison ran: run python tools/warp_vs_nsight.py"
    truth = json.loads(truth_path.read_text())
    assert [x["label"] for x in result["launches"]] == [k["label"] for k in truth["kernels"]]
    for x in result["launches"]:
        # each launch compared, or left out with its reason; each that differs says why
        assert ("agree" in x) != bool(x.get("skipped")), x["label"]
        if "agree" in x and not x["agree"]:
            assert x["why"], f"{x['label']} differs from Nsight without a reason"
    env = result["environment"]
    assert env["oclgrind"] and env["plugin_sha256"] and result["date"]


def test_the_h100s_exercise_launches_are_the_warp_models_representative_cases():
    """Each exercise's "(model case)" twin on the H100 is launched at the case the verdicts count
    (helpers.checking.counters.representative_case): the two stand side by side."""
    from helpers.checking.counters import representative_case
    from helpers.exercises import get
    spec = importlib.util.spec_from_file_location("tool_cuda_twins", ROOT / "tools" / "cuda_twins.py")
    twins = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = twins
    spec.loader.exec_module(twins)
    launches = [r for r in twins.runs() if r.group == "exercise" and "(model case)" in r.label]
    assert {r.kernel for r in launches} >= {"strided_fix", "transpose", "bank_fix", "divergence_fix",
                                           "spill_fix", "column_sums", "skewed_tile", "leaky_relu",
                                           "dot_chains"}
    for run in launches:
        case = representative_case(get(run.kernel))
        assert tuple(run.global_size) == tuple(case.global_size), run.label
        assert tuple(run.local_size) == tuple(case.local_size), run.label
        assert all(run.params.get(k) == v for k, v in case.params.items()), (run.label, case)


# launches of the truth whose source has moved since it was measured: notebook 09's padded_tile,
# replaced by skewed_tile, and notebook 05's dot_partials, replaced by dot_chains, their solutions
# kept line for line as study kernels
MOVED = {"padded_tile (model case)": ("solutions/padded_tile.cl", "kernels/studies/padded_tile.cl"),
         "dot_partials (model case)": ("solutions/dot_partials.cl",
                                       "kernels/studies/dot_partials.cl")}


def test_every_launch_of_the_truth_is_one_the_twins_still_make():
    """tools/warp_vs_nsight.py runs each launch of the H100's truth again by its label: each is
    still one of cuda_twins.runs(), with the kernel, sizes, defines and local memory measured, from
    the file measured or the one it moved to."""
    import numpy as np
    spec = importlib.util.spec_from_file_location("tool_cuda_twins", ROOT / "tools" / "cuda_twins.py")
    twins = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = twins
    spec.loader.exec_module(twins)
    runs = {r.label: r for r in twins.runs()}
    truth = json.loads((ROOT / "results/history/warp-truth-nvidia-h100.json").read_text())
    for k in truth["kernels"]:
        run = runs.get(k["label"])
        assert run is not None, f"{k['label']}: no twin makes this launch any more"
        assert (run.kernel, list(run.global_size), list(run.local_size), list(run.defines)) == \
            (k["kernel"], k["global_size"], k["local_size"], k["defines"]), k["label"]
        assert (k["file"], run.file) in {(run.file, run.file), MOVED.get(k["label"])}, k["label"]
        assert (ROOT / run.file).is_file(), run.file
        args, _ = run.make(np.random.default_rng(44))
        shared = sum(a.nbytes for a in args if isinstance(a, twins.Local))
        assert shared == k["dynamic_shared_bytes"], k["label"]
