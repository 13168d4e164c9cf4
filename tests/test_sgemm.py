"""The SGEMM ladder of notebook 14 and its tuning: every rung and the parameterized kernel's best
and worst configurations against numpy, at sizes that are and are not multiples of the tiles, on the
course device; a short kernel_tuner run in its child process; the libraries beside them."""

from __future__ import annotations

import json
import time

import numpy as np
import pyopencl as cl
import pytest
import tqdm.auto as tqdm_auto

from helpers import cache, studies, workers
from helpers.device import course_context
from helpers.paths import ROOT
from helpers.studies import sgemm, tuning
from helpers.studies.sgemm import SPACE, Config

from .bars import RecordingBar

# (m, n, k): square and multiple of every tile, then every dimension off the tiles
SIZES = [(64, 64, 64), (128, 128, 128), (37, 53, 29), (100, 33, 70), (1, 130, 17), (129, 1, 65)]

# the extremes of the space: the largest tiles with vector loads (as runs of four, prefetched: the
# H100's best region), the smallest without local memory, and one result per work-item
CONFIGS = {
    "largest tiles, float4": Config(TM=128, TN=128, TK=32, TX=16, TY=16, VW=4),
    "largest tiles, runs of 4, prefetched": Config(TM=128, TN=128, TK=16, TX=32, TY=8, VW=4,
                                                   VR=4, PF=1),
    "wide work-group, float2, runs of 2": Config(TM=32, TN=128, TK=8, TX=32, TY=8, VW=2, VR=2),
    "no local memory": Config(TM=16, TN=16, TK=8, TX=4, TY=4, VW=1, LOCAL=0),
    "no local memory, runs of 2": Config(TM=16, TN=32, TK=8, TX=8, TY=4, VR=2, LOCAL=0),
    "one result each, prefetched": Config(TM=16, TN=16, TK=16, TX=16, TY=16, PF=1),
    # the second level: two sets of tiles, and warps on compact patches (both with the H100's best)
    "double-buffered, warps of 4x8": Config(TM=128, TN=128, TK=8, TX=16, TY=16, VW=2, VR=4,
                                            PF=1, DB=1, WX=4),
    "warps of 16x2 in a 32x8 group, no local memory": Config(TM=32, TN=64, TK=8, TX=32, TY=8,
                                                             VR=2, LOCAL=0, WX=16),
    "double-buffered, one result each": Config(TM=16, TN=16, TK=16, TX=16, TY=16, PF=1, DB=1,
                                               WX=8),
    "the k-loop unrolled, 128x256 tiles": Config(TM=128, TN=256, TK=8, TX=32, TY=16, VW=2, VR=4,
                                                 PF=1, KU=1),
}


@pytest.fixture(scope="module")
def cq():
    ctx, queue = course_context()
    return ctx, queue


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
def test_every_rung_agrees_with_numpy(cq, size):
    ctx, queue = cq
    dev = queue.device
    configs = {k: c for k, c in CONFIGS.items()
               if sgemm.valid(c, dev.max_work_group_size, dev.local_mem_size)}
    items = sgemm.ladder(ctx, queue, size, seed=1, configs=configs)
    assert [p.kernel for p in items[:4]] == ["sgemm_naive", "sgemm_tiled", "sgemm_rows",
                                             "sgemm_vector"]
    for p in items:
        p.verify()   # raises StudyMismatch with the first wrong element


def test_a_wrong_rung_is_caught(cq, tmp_path):
    ctx, queue = cq
    wrong = tmp_path / "sgemm_tiled.cl"   # the plain product that forgets the last column of a
    wrong.write_text("""
__kernel void sgemm_tiled(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k,
                          __local float *a_tile, __local float *b_tile)
{
    const uint col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n) return;
    float sum = 0.0f;
    for (uint j = 0; j + 1 < k; j++) sum += a[row * k + j] * b[j * n + col];
    c[row * n + col] = sum;
}
""")
    import helpers.studies.sgemm as module
    real = module.kernel_to_measure
    module.kernel_to_measure = lambda name: wrong
    try:
        items = sgemm.ladder(ctx, queue, (20, 20, 20), seed=2)
    finally:
        module.kernel_to_measure = real
    with pytest.raises(studies.StudyMismatch, match="values differ from numpy"):
        items[1].verify()


def test_the_space_holds_only_buildable_configurations():
    limits = (1024, 48 * 1024)
    configs = sgemm.space(type("D", (), {"max_work_group_size": limits[0],
                                         "local_mem_size": limits[1]})())
    assert Config() in configs and len(configs) > 500
    for c in configs:
        assert c.TM % c.TY == 0 and c.TN % c.TX == 0 and c.TK % c.VW == 0
        assert (c.TM // c.TY) % c.VR == 0 and (c.TN // c.TX) % c.VR == 0
        assert 16 <= c.TX * c.TY <= 1024 and c.local_bytes() <= limits[1]
        if c.PF:   # every work-item holds the same whole share of a step
            assert (c.TM * c.TK // c.VW) % (c.TX * c.TY) == 0
            assert (c.TK * c.TN // c.VW) % (c.TX * c.TY) == 0
    assert not sgemm.valid(Config(TM=128, TN=128, TK=32, TX=8, TY=8), *limits)   # 256 results each
    assert not sgemm.valid(Config(TX=32, TY=64, TM=64, TN=64), *limits)          # group too large
    assert not sgemm.valid(Config(TM=16, TN=64, TX=16, TY=16, VR=4), *limits)   # one row each
    assert not sgemm.valid(Config(TM=16, TN=16, TK=8, TX=16, TY=16, PF=1), *limits)  # half a share
    assert sgemm.valid(Config(TM=128, TN=128, TK=16, TX=32, TY=8, VW=4, VR=4, PF=1), *limits)
    assert not sgemm.valid(Config(TM=64, TN=64, DB=1), *limits)                  # DB needs PF
    assert not sgemm.valid(Config(TM=64, TN=64, TX=8, TY=8, WX=16), *limits)     # 8 < 16 across
    assert sgemm.valid(Config(TM=64, TN=64, TX=8, TY=8, WX=8), *limits)
    assert sgemm.valid(Config(TM=64, TN=64, KU=1), *limits) and not sgemm.valid(
        Config(TM=16, TN=16, TK=8, TX=4, TY=4, LOCAL=0, KU=1), *limits)
    assert Config(TK=16, TM=64, TN=64, PF=1, DB=1).local_bytes() == 2 * Config(
        TK=16, TM=64, TN=64, PF=1).local_bytes()
    assert set(SPACE) == set(Config().to_json())


def test_a_short_tuning_run_saves_the_best_configuration(cq, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    ctx, queue = cq
    # TY = 12 divides neither TM: a third of the space is not valid, and must not be timed
    spec = {"TM": [16, 32], "TN": [16, 32], "TK": [8], "TX": [8], "TY": [4, 8, 12], "VW": [1],
            "VR": [1], "PF": [0], "LOCAL": [0, 1]}
    # a budget that 16 small configurations never reach, even on a loaded CPU (PoCL took 30 s
    # for 12 of them beside another test run); the search ends when they are done
    record = tuning.tune_sgemm(queue.device, budget=180, n=48, spec=spec,
                               strategy="brute_force", progress=False)
    timed = [t for t in record["tried"] if "gflop_per_s" in t]
    assert len(timed) == record["space_size"] == 16
    assert all(t["TY"] != 12 for t in record["tried"])
    best = max(timed, key=lambda t: t["gflop_per_s"])
    assert record["best"] == {k: best[k] for k in spec}
    assert sgemm.tuned_config(queue.device)[0] == Config.from_json(record["best"])
    assert tuning.cache_file(queue.device, 48).is_file()   # kernel_tuner's own cache
    assert "Best of 16 configurations timed" in tuning.summary(record)
    # the ladder now runs the tuned configuration
    items = sgemm.ladder(ctx, queue, 40, seed=3)
    assert "tuned here" in items[-1].label
    assert Config.from_json(items[-1].params["config"]) == Config.from_json(record["best"])
    items[-1].verify()


def test_a_guided_search_lists_each_configuration_once(cq, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    _, queue = cq
    # four valid configurations: a genetic algorithm's generations revisit them many times
    spec = {"TM": [16, 32], "TN": [16], "TK": [8], "TX": [8], "TY": [4, 8], "VW": [1], "VR": [1],
            "PF": [0], "LOCAL": [1]}
    record = tuning.tune_sgemm(queue.device, budget=15, n=32, spec=spec, seed=4,
                               strategy="genetic_algorithm", progress=False, save=False)
    configs = [tuple(t[k] for k in spec) for t in record["tried"]]
    assert len(configs) == len(set(configs)) <= record["space_size"] == 4
    assert f"Best of {len(configs)} configurations timed" in tuning.summary(record)


def test_a_random_search_times_the_default_configuration_first(cq, tmp_path, monkeypatch):
    """A random pick may take a minute to build (PoCL took 77 s on one): the default, which builds
    in seconds, goes first, so a short budget still ends with a configuration timed; and the
    random order, which meets it again, does not list it twice."""
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    _, queue = cq
    spec = {"TM": [16, 64], "TN": [16, 64], "TX": [8, 16], "TY": [8, 16]}
    record = tuning.tune_sgemm(queue.device, budget=120, n=32, spec=spec, seed=1,
                               progress=False, save=False)
    configs = [tuple(t[k] for k in spec) for t in record["tried"]]
    assert configs[0] == tuple(sgemm.DEFAULT.to_json()[k] for k in spec)
    assert len(configs) == len(set(configs)) == record["space_size"] > 1, record["stopped"]


def test_a_tuning_child_that_dies_is_a_sentence(cq, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(tuning, "TASK", "tests.worker_task")
    # the test task reads what to do from APART_TASK_DO, which a child keeps only if told to
    monkeypatch.setattr(workers, "KEPT_VARIABLES", (*workers.KEPT_VARIABLES, "APART_TASK_DO"))
    monkeypatch.setenv("APART_TASK_DO", "abort")
    _, queue = cq
    with pytest.raises(tuning.TuningFailed, match="(?s)ended without a result.*dying on purpose"):
        tuning.tune_sgemm(queue.device, budget=5, n=32, progress=False)
    assert cache.read(sgemm.TUNED) == {}


def test_numpy_matmul_is_a_library_row():
    row = sgemm.numpy_matmul(64, repeats=2)
    assert row["gflop_per_s"] > 0 and row["kernel"] == "numpy" and row["flops"] == 2 * 64 ** 3


def test_the_experiment_measures_the_ladder_and_the_libraries(cq, monkeypatch):
    monkeypatch.setenv("COURSE_SMALL", "1")
    ctx, queue = cq
    result = sgemm.sgemm_experiment(ctx, queue)
    kernels = [r["kernel"] for r in result["rows"]]
    assert kernels[:5] == ["sgemm_naive", "sgemm_tiled", "sgemm_rows", "sgemm_vector",
                           "sgemm_param"]
    assert all(r["correct"] for r in result["rows"]), result["rows"]
    if queue.device.type & cl.device_type.CPU:
        assert "numpy" in kernels
    assert result["environment"]["device"]["device"] == queue.device.name.strip()
    assert result["tuned"] is None or "tried" not in result["tuned"]   # a summary, not every timing
    assert np.isfinite([r["gflop_per_s"] for r in result["rows"]]).all()


def test_the_device_check_runs_the_ladder(cq):
    from helpers.checking import devcheck
    assert "study sgemm" in devcheck.items()
    assert devcheck.study_sgemm(*cq) is None   # raises StudyMismatch on a wrong rung


def test_a_tuning_child_that_hangs_silently_is_stopped_at_the_budget(cq, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(tuning, "TASK", "tests.worker_task")
    # the test task reads what to do from APART_TASK_DO, which a child keeps only if told to
    monkeypatch.setattr(workers, "KEPT_VARIABLES", (*workers.KEPT_VARIABLES, "APART_TASK_DO"))
    monkeypatch.setenv("APART_TASK_DO", "sleep")   # 60 s, saying nothing
    _, queue = cq
    started = time.perf_counter()
    with pytest.raises(tuning.TuningFailed, match="it did not finish in time"):
        tuning.tune_sgemm(queue.device, budget=1, n=32, progress=False)
    assert time.perf_counter() - started <= 1 + tuning.MARGIN_S


# 16 valid configurations (TY = 12 divides neither TM), each built and timed on its own
SMALL_SPACE = {"TM": [16, 32], "TN": [16, 32], "TK": [8], "TX": [8], "TY": [4, 8, 12],
               "VW": [1], "VR": [1], "PF": [0], "LOCAL": [0, 1]}


def test_the_tuning_call_ends_within_its_budget_and_margin(cq, tmp_path, monkeypatch):
    """A budget of a few seconds, on a space that takes longer to time on a CPU (each of its
    configurations is built apart): the whole call, the child's start and every build included,
    ends within the budget and the margin notebook 14 states, and its bar stops where the work
    did."""
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(tqdm_auto, "tqdm", RecordingBar)
    RecordingBar.made.clear()
    _, queue = cq
    budget = 6.0
    started = time.perf_counter()
    try:
        record = tuning.tune_sgemm(queue.device, budget=budget, n=96, spec=SMALL_SPACE,
                                   strategy="brute_force", save=False)
    except tuning.TuningFailed as e:   # a machine too busy to time even one: still in time
        record = None
        assert "did not finish in time" in str(e) or \
            "budget ran out before a configuration was timed" in str(e), str(e)
    took = time.perf_counter() - started
    assert took <= budget + tuning.MARGIN_S, f"{took:.1f} s for a budget of {budget} s"
    (bar,) = RecordingBar.made
    assert bar.closed and "s left" not in str(bar)   # the time left ends with the search
    if record is not None:
        assert record["seconds"] <= budget + tuning.MARGIN_S
        assert bar.n == len(record["tried"]) <= bar.total == record["space_size"] == 16
        if bar.n < 16:
            assert record["stopped"].startswith(f"stopped at the {budget:g} s budget after "
                                                f"{bar.n} of 16 configurations")
            assert record["stopped"] in tuning.summary(record)
            assert str(bar).startswith(f"tuning sgemm_param, stopped at the {budget:g} s budget: "
                                       f"{bar.n} of 16 configurations")


def test_the_tuning_bar_counts_the_configurations_done(cq, tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(tqdm_auto, "tqdm", RecordingBar)
    RecordingBar.made.clear()
    _, queue = cq
    spec = {**SMALL_SPACE, "TN": [16], "LOCAL": [1]}   # 4 valid
    record = tuning.tune_sgemm(queue.device, budget=120, n=32, spec=spec, save=False)
    (bar,) = RecordingBar.made
    assert record["stopped"] is None and record["space_size"] == 4
    assert bar.n == bar.total == len(record["tried"]) == 4
    assert "4 of 4 configurations" in str(bar)
    # a second run finds every configuration in kernel_tuner's cache: done at once, all counted
    again = tuning.tune_sgemm(queue.device, budget=120, n=32, spec=spec, save=False)
    assert RecordingBar.made[-1].n == len(again["tried"]) == 4
    def in_order(tried):
        return sorted(tried, key=lambda t: [t[k] for k in spec])

    assert in_order(again["tried"]) == in_order(record["tried"])   # random orders, same timings


def test_notebook_14_states_the_margin_the_tuner_keeps():
    nb = json.loads((ROOT / "notebooks" / "14-portability-and-tuning.ipynb").read_text())
    prose = " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    assert f"ends within its budget plus {tuning.MARGIN_S:g} seconds" in prose.replace("\n", " ")


class _Device:
    """What choose_config reads of a device."""

    def __init__(self, name: str, driver: str, group: int = 1024, local: int = 49152,
                 units: int = 132, platform: str = "NVIDIA CUDA"):
        self.name, self.driver_version = name, driver
        self.max_work_group_size, self.local_mem_size, self.max_compute_units = group, local, units
        self.platform = type("P", (), {"name": platform, "version": "OpenCL 3.0"})()


def test_a_shipped_tuning_is_found_by_device_name_and_driver(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    records = sgemm.shipped()
    h100_file, h100 = next((f, r) for f, r in records if "nvidia-h100" in f)
    best = Config.from_json(h100["best"])
    driver = h100["environment"]["device"]["driver_version"]
    exact = sgemm.choose_config(_Device("NVIDIA H100 80GB HBM3", driver), records)
    assert exact.config == best and exact.how == "tuned on an NVIDIA H100 80GB HBM3"
    assert exact.sentence.startswith(f"tuned on an NVIDIA H100 80GB HBM3 at n = 4096, {h100_file}")
    assert "driver" not in exact.sentence
    other = sgemm.choose_config(_Device("NVIDIA H100 80GB HBM3", "999.1"), records)
    assert other.config == best
    assert f"with driver {driver}, this device runs 999.1" in other.sentence
    unknown = sgemm.choose_config(_Device("Some Laptop GPU", "1.0"), records)
    assert unknown.config == sgemm.DEFAULT and unknown.how == "default"
    assert "ships no tuning for Some Laptop GPU" in unknown.sentence
    fewer = sgemm.choose_config(_Device("NVIDIA H100 80GB HBM3", driver, units=114), records)
    assert fewer.config == best and "on 132 compute units, this device has 114" in fewer.sentence
    elsewhere = sgemm.choose_config(_Device("NVIDIA H100 80GB HBM3", driver, platform="PoCL"),
                                    records)
    assert elsewhere.config == sgemm.DEFAULT   # another platform's compiler: not its tuning
    # a shipped configuration that does not fit this device's limits is not used
    small = sgemm.choose_config(_Device("NVIDIA H100 80GB HBM3", driver, group=64), records)
    assert small.config == sgemm.DEFAULT


def test_the_learners_own_tuning_overrides_the_shipped_one(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    dev = _Device("NVIDIA H100 80GB HBM3", "1")
    mine = Config(TM=32, TN=32, TK=8, TX=8, TY=8)
    sgemm.save_tuned(dev, {"best": mine.to_json(), "n": 512})
    choice = sgemm.choose_config(dev)
    assert choice.config == mine and choice.how == "tuned here"
    assert "tuned on this device" in choice.sentence
