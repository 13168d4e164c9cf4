"""The yardstick: the peaks' kernels and figures, their independent references (a known processor
gives its known theoretical peak), the cache that keeps the best peaks, and shares that are never
printed above 100%."""

from __future__ import annotations

import pyopencl as cl
import pytest
import tqdm.auto as tqdm_auto

from helpers import bench, cache
from helpers.device import course_context
from helpers.measure import references as refs
from helpers.measure.peaks import Share, best_of, share, table

from .bars import RecordingBar

# /proc/cpuinfo as three machines print it (cut to the fields that matter)
ZEN4_2CORES = "\n\n".join(f"""processor\t: {i}
vendor_id\t: AuthenticAMD
cpu family\t: 25
model\t\t: 17
model name\t: AMD EPYC 9R14 96-Core Processor
cpu MHz\t\t: 2600.000
physical id\t: 0
core id\t\t: {i}
flags\t\t: fpu sse2 avx fma avx2 avx512f""" for i in range(2))
XEON_4THREADS = "\n\n".join(f"""processor\t: {i}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 143
model name\t: Intel(R) Xeon(R) Platinum 8480+ @ 2.00GHz
cpu MHz\t\t: 3800.000
physical id\t: 0
core id\t\t: {i // 2}
flags\t\t: fpu sse2 avx fma avx2 avx512f""" for i in range(4))
LAPTOP_AVX2 = "\n\n".join(f"""processor\t: {i}
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 142
model name\t: Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz
physical id\t: 0
core id\t\t: {i}
flags\t\t: fpu sse2 avx fma avx2""" for i in range(4))


def test_a_zen4_is_two_256_bit_fma_units_per_core():
    info = refs.cpu_info(ZEN4_2CORES)
    assert (info["vendor"], info["family"], info["model"]) == ("AuthenticAMD", 25, 17)
    t = refs.cpu_theoretical(info)
    assert t["gflop_per_s"] == pytest.approx(2 * 2 * 8 * 2 * 2.6)   # 166.4
    assert "Zen 4" in t["how"] and "2 cores" in t["how"]


def test_a_xeon_counts_physical_cores_and_prefers_the_reported_maximum_clock():
    info = refs.cpu_info(XEON_4THREADS, max_freq_khz="3800000\n")
    assert (info["physical_cores"], info["logical_cpus"], info["mhz"]) == (2, 4, 3800.0)
    t = refs.cpu_theoretical(info)
    assert t["gflop_per_s"] == pytest.approx(2 * 2 * 16 * 2 * 3.8)
    # without cpufreq the model name's clock is used; a device given 2 of 4 threads gets 1 core
    info = refs.cpu_info(XEON_4THREADS)
    assert info["mhz"] == 2000.0
    assert refs.cpu_theoretical(info, compute_units=2)["gflop_per_s"] == pytest.approx(64 * 2.0)


def test_a_laptop_with_avx2_and_an_unknown_system():
    t = refs.cpu_theoretical(refs.cpu_info(LAPTOP_AVX2))
    assert t["gflop_per_s"] == pytest.approx(4 * 2 * 8 * 2 * 1.6)
    assert refs.cpu_theoretical(None) is None
    assert refs.cpu_info("") is None


def test_an_h100_has_its_datasheet_and_its_lanes():
    facts = {"device": "NVIDIA H100 80GB HBM3", "compute_units": 132, "max_clock_mhz": 1980}
    found = refs.gpu_theoretical(facts, "9.0")
    assert found[0]["gflop_per_s"] == 66900 and found[0]["bandwidth_gb_per_s"] == 3350
    assert found[1]["gflop_per_s"] == pytest.approx(132 * 128 * 2 * 1.98)
    assert refs.gpu_theoretical({"device": "Some GPU", "compute_units": 8,
                                 "max_clock_mhz": 1000}) == []


def test_the_host_references_measure_something():
    assert refs.host_matmul(128, repeats=1)["gflop_per_s"] > 0
    assert refs.host_copy(1 << 20, repeats=1, threads=2)["bandwidth_gb_per_s"] > 0


def _peak(compute: float, bandwidth: float, references: list[dict] | None = None) -> dict:
    return {"read_gb_per_s": {1: bandwidth}, "copy_gb_per_s": {1: bandwidth * 0.9},
            "gflop_per_s": {1: compute}, "chain_gflop_per_s": {1: compute / 8},
            "bandwidth_gb_per_s": bandwidth, "copy_bandwidth_gb_per_s": bandwidth * 0.9,
            "compute_gflop_per_s": compute, "references": references or [],
            "measured": ["2026-11-23T10:00:00+00:00"], "left_out": {}}


def test_a_peak_far_from_its_references_is_said():
    theory = {"kind": "theoretical", "label": "theoretical peak", "gflop_per_s": 333.0,
              "how": "2 cores x ..."}
    copy = {"kind": "measured", "label": "numpy copy", "bandwidth_gb_per_s": 10.0}
    said = refs.disagreements(_peak(50.0, 25.0, [theory, copy]))
    assert len(said) == 2
    assert said[0].startswith("The measured compute peak (50 GFLOP/s) is 6.7x below the "
                              "theoretical peak (333 GFLOP/s: 2 cores x ...)")
    assert "is 2.5x above the numpy copy" in said[1]
    assert refs.disagreements(_peak(300.0, 12.0, [theory, copy])) == []
    assert "theoretical peak" in table(_peak(50.0, 25.0, [theory, copy]))


def test_the_cache_keeps_the_better_of_two_measurements():
    slow = _peak(60.0, 8.4, [{"kind": "measured", "label": "numpy copy", "bandwidth_gb_per_s": 9}])
    fast = _peak(450.0, 24.0, [{"kind": "measured", "label": "numpy copy",
                                "bandwidth_gb_per_s": 7}])
    fast["measured"] = ["2026-11-23T11:00:00+00:00"]
    for merged in (best_of(slow, fast), best_of(fast, slow)):
        assert merged["compute_gflop_per_s"] == 450.0 and merged["bandwidth_gb_per_s"] == 24.0
        assert merged["references"][0]["bandwidth_gb_per_s"] == 9
        assert len(merged["measured"]) == 2


def test_a_share_above_the_peak_measures_again_then_names_the_yardstick(monkeypatch):
    import helpers.measure.peaks as peaks_module
    measured = []

    def again(ctx, queue, refresh=False, progress=True):
        measured.append(refresh)
        return _peak(100.0, 30.0)

    monkeypatch.setattr(peaks_module, "peaks", again)
    peak = _peak(100.0, 20.0)
    s = share(25.0, "bandwidth", peak, ctx=object(), queue=object())
    assert measured == [True] and s.fraction == pytest.approx(25 / 30) and not s.failed
    assert str(s) == "83% of this device's bandwidth (30 GB/s measured)"
    s = share(45.0, "bandwidth", peak, ctx=object(), queue=object())
    assert s.failed and s.fraction is None and "%" not in str(s) and "%" not in s.short()
    assert "that yardstick failed here" in str(s)
    assert share(10.0, "compute", _peak(100.0, 20.0)).short() == "10%"   # no queue: no re-measure
    assert not Share(5.0, 0.0, "copy").fraction


def test_peaks_are_measured_with_references_and_kept(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    ctx, queue = course_context()
    first = bench.measure_peaks(ctx, queue, nbytes=1 << 22, repeats=2, progress=False)
    assert set(first["gflop_per_s"]) == set(bench.PEAK_WIDTHS) == set(first["chain_gflop_per_s"])
    assert all(v > 0 for v in first["gflop_per_s"].values())
    labels = [r["label"] for r in first["references"]]
    if queue.device.type & cl.device_type.CPU:   # a CPU device shares the host's processor
        assert any(label.startswith("numpy matmul") for label in labels)
        assert any(label.startswith("numpy copy") for label in labels)
    elif "H100" in queue.device.name:
        assert "NVIDIA H100 SXM5 datasheet" in labels
    cache.write(bench.PEAKS_CACHE, {})
    kept = bench.peaks(ctx, queue, progress=False)
    stale = {**kept, "compute_gflop_per_s": 1.0, "gflop_per_s": {1: 1.0}}
    key = next(iter(cache.read(bench.PEAKS_CACHE)))
    cache.write(bench.PEAKS_CACHE, {key: stale})
    again = bench.peaks(ctx, queue, refresh=True, progress=False)
    assert again["compute_gflop_per_s"] > 1.0 and len(again["measured"]) == 2
    assert bench.when(again).startswith("the best of 2 measurements, the last ")


def test_the_peaks_bar_ends_when_the_references_are_measured(monkeypatch):
    """The references come after the last width: the bar waits for them before it ends."""
    monkeypatch.setattr(tqdm_auto, "tqdm", RecordingBar)
    RecordingBar.made.clear()
    seen = []
    real = refs.references

    def references(*args, **kwargs):
        bar = RecordingBar.made[-1]
        seen.append((bar.n, bar.total, bar.closed))
        return real(*args, **kwargs)

    monkeypatch.setattr(refs, "references", references)
    ctx, queue = course_context()
    bench.measure_peaks(ctx, queue, nbytes=1 << 20, repeats=1)
    (bar,) = RecordingBar.made
    widths = len(bench.PEAK_WIDTHS)
    assert seen == [(widths, widths + 1, False)]   # every width done, the references not yet
    assert bar.closed and bar.n == bar.total == widths + 1


def test_a_small_buffers_peaks_do_not_mix_with_a_large_ones():
    large, small = _peak(400.0, 25.0), _peak(420.0, 59.0)   # 32 MiB may sit in a cache
    large["bytes"], small["bytes"] = 256 << 20, 32 << 20
    for merged in (best_of(large, small), best_of(small, large)):
        assert merged["bandwidth_gb_per_s"] == 25.0 and merged["compute_gflop_per_s"] == 400.0


def test_a_corrected_theoretical_figure_replaces_the_old_one():
    old = _peak(400.0, 25.0, [{"kind": "theoretical", "label": "theoretical peak",
                               "gflop_per_s": 900.0, "how": "wrong table"}])
    new = _peak(380.0, 24.0, [{"kind": "theoretical", "label": "theoretical peak",
                               "gflop_per_s": 333.0, "how": "right table"}])
    assert best_of(old, new)["references"][0]["gflop_per_s"] == 333.0


def test_a_peak_above_the_theoretical_one_names_the_clock():
    theory = refs.cpu_theoretical(refs.cpu_info(ZEN4_2CORES))
    said = refs.disagreements(_peak(1.4 * theory["gflop_per_s"], 20.0, [theory]))
    assert len(said) == 1 and "uses the 2.60 GHz the system reports" in said[0]
    assert "ran at about 3.6 GHz" in said[0]


def test_a_peak_is_measured_again_once_per_process(monkeypatch):
    import helpers.measure.peaks as peaks_module
    calls = []
    monkeypatch.setattr(peaks_module, "peaks",
                        lambda ctx, queue, refresh=False, progress=True: calls.append(1) or
                        _peak(100.0, 30.0))
    peak = _peak(100.0, 20.0)
    assert share(45.0, "bandwidth", peak, object(), object()).failed
    assert share(50.0, "bandwidth", peak, object(), object()).failed
    assert calls == [1]


def test_steps_compare_only_rows_doing_the_same_work():
    rows = [{"label": "a", "seconds": 1e-3, "min_seconds": 1e-3, "max_seconds": 1e-3,
             "gb_per_s": 10.0, "bytes": 100},
            {"label": "b", "seconds": 5e-4, "min_seconds": 5e-4, "max_seconds": 5e-4,
             "gb_per_s": 20.0, "bytes": 100},
            {"label": "c", "seconds": 1e-4, "min_seconds": 1e-4, "max_seconds": 1e-4,
             "gb_per_s": 1.0, "bytes": 7}]
    lines = bench.steps(rows, kind="bandwidth").splitlines()
    assert lines[1].endswith("2.00x faster than the row above")
    assert "row above" not in lines[2]
    assert "above the peak" in bench.steps(rows[:1], _peak(100.0, 5.0), kind="bandwidth")
    assert "of peak of peak" not in bench.steps(rows[:1], _peak(100.0, 5.0), kind="bandwidth")


def test_other_programs_on_the_cpu_are_seen_while_something_is_measured():
    """Busy: a spinning process on every core during the block is counted as another program's
    use of the CPU (this process's own threads, an OpenCL CPU device's, are not)."""
    import os
    import subprocess
    import sys
    import time

    from helpers.timing import BUSY_SHARE, Busy
    spin = "import time\nt = time.time()\nwhile time.time() - t < 1.5: pass\n"
    spinners = [subprocess.Popen([sys.executable, "-c", spin]) for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.2)
        with Busy() as busy:
            time.sleep(1.0)
    finally:
        for p in spinners:
            p.wait()
    assert busy.share is not None and busy.share > BUSY_SHARE, busy.share
    assert busy.sentence().startswith("other programs used ")
    with Busy() as own:        # this process's own work is not another program's
        t = time.time()
        while time.time() - t < 0.5:
            pass
    assert own.share is not None and own.share < busy.share


def test_a_peak_measured_on_a_busy_machine_is_said_and_measured_again(tmp_path, monkeypatch):
    import helpers.measure.peaks as peaks_module
    monkeypatch.setenv("COURSE_CACHE", str(tmp_path))
    monkeypatch.setattr(peaks_module, "_MEASURED_AGAIN", set())
    ctx, queue = course_context()
    busy = {**_peak(50.0, 8.0), "busy": "other programs used 60% of this machine's CPU while it "
                                        "was measured"}
    assert "These may be low: other programs used 60%" in table(busy)
    quiet = {**_peak(80.0, 12.0), "busy": None}
    measured = []
    monkeypatch.setattr(peaks_module, "measure_peaks",
                        lambda ctx, queue, progress=True: measured.append(1) or dict(quiet))
    key = peaks_module.device_key(queue.device)
    cache.write(bench.PEAKS_CACHE, {key: busy})
    got = bench.peaks(ctx, queue, progress=False)
    assert measured == [1] and got["busy"] is None and got["compute_gflop_per_s"] == 80.0
    assert "may be low" not in table(got)
    bench.peaks(ctx, queue, progress=False)             # quiet now: read from the cache
    assert measured == [1]
    assert best_of(busy, {**busy, "busy": "again"})["busy"] == "again"   # busy both times: said
