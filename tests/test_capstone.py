"""Notebook 17's helpers (helpers/capstone.py) without a device: the diagrams draw what the rungs
do (who reads which float; the online pairs and their merge, whose sum is the direct one), the
ladder's figure and table read a result as the notebook gets it, with and without the H100's
figures, and the H100's record is read as tools/h100_capstone.sh writes it."""

from __future__ import annotations

import json
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from helpers import capstone, diagrams  # noqa: E402

pytestmark = pytest.mark.once   # no device


def test_rung_one_reads_a_row_apart_and_rung_two_neighbours():
    one, two = capstone.readers(1, 4, 12, 4), capstone.readers(2, 4, 12, 4)
    first = [(r, c) for r in range(4) for c in range(12) if one[r][c][1] == 0]
    assert first == [(r, 0) for r in range(4)]        # step 0: column 0 of every row
    assert [c for c in range(12) if two[0][c][1] == 0] == [0, 1, 2, 3]   # step 0: neighbours
    assert all(two[r][c][0] == c % 4 for r in range(4) for c in range(12))


@pytest.mark.parametrize("values", [(1.0, 3.0, 2.0, 5.0), (4.0, 0.5, 6.0, 2.5), (-200.0, -150.0)])
def test_the_online_pairs_end_in_the_maximum_and_the_direct_sum(values):
    m, s = capstone.online_pairs(list(values))[-1]
    assert m == max(values)
    assert s == pytest.approx(sum(math.exp(v - m) for v in values))


def test_merged_pairs_give_the_sum_over_both():
    a, b = (1.0, 3.0, 2.0, 5.0), (4.0, 0.5, 6.0, 2.5)
    m, s = capstone.merged(capstone.online_pairs(list(a))[-1], capstone.online_pairs(list(b))[-1])
    assert m == 6.0 and s == pytest.approx(sum(math.exp(v - 6.0) for v in a + b))


def test_the_diagrams_draw_and_are_reexported():
    for fig in (diagrams.softmax_reads(), diagrams.online_merge()):
        assert fig.axes[0].patches
        plt.close(fig)
    fig = diagrams.softmax_reads(rows=3, cols=8, group=4)
    gids = {p.get_gid() for p in fig.axes[0].patches}
    assert {"reads:1:2:7", "reads:2:0:0"} <= gids
    plt.close(fig)
    with pytest.raises(ValueError):
        diagrams.softmax_reads(cols=1)


def _result(h100: dict | None) -> dict:
    counted = {"available": True, "global_sectors_per_request": 32.0, "global_requests": 4096,
               "local_wavefronts": 0, "divergent_branches": 0}
    rows = [{"exercise": n, "label": capstone.LABELS[n], "role": "solution",
             "h100": (h100 or {}).get(n), "counters": counted, "seconds": 2e-3,
             "min_seconds": 2e-3, "max_seconds": 3e-3, "gb_per_s": 3.0}
            for n in capstone.RUNGS]
    rows[2] = {"exercise": "softmax_online", "label": capstone.LABELS["softmax_online"],
               "role": "not passed", "h100": None}
    return {"rows": rows, "h100": h100, "device": "a CPU", "model_case": "64 x 512 floats",
            "case": "1024 x 1024 floats"}


def test_the_ladder_says_when_the_h100_has_not_been_measured():
    text = capstone.table(_result(None))
    assert "have not been measured yet" in text and "not passed" in text
    fig = capstone.ladder_figure(_result(None))
    assert any(t.get_text() == "not measured yet" for ax in fig.axes for t in ax.texts)
    plt.close(fig)


def test_the_h100_record_is_read_as_the_tool_writes_it(tmp_path, monkeypatch):
    check = {"exercise": "softmax_rows", "passed": True, "message": "✔",
             "environment": {"date": "2026-12-01T10:00:00+00:00",
                             "device": {"device": "NVIDIA H100 80GB HBM3"}},
             "speed": {"yours": {"seconds": 1e-3, "min_seconds": 9e-4, "max_seconds": 2e-3,
                                 "gb_per_s": 130.0,
                                 "case": {"params": {"rows": 4096, "cols": 4096}}}}}
    (tmp_path / f"{capstone.REFERENCE}.json").write_text(json.dumps({"checks": [check]}))
    monkeypatch.setattr("helpers.bench.RESULTS", tmp_path)
    ref = capstone.reference()
    assert ref["softmax_rows"]["seconds"] == 1e-3 and ref["softmax_rows"]["date"] == "2026-12-01"
    text = capstone.table(_result(ref))
    assert "NVIDIA H100 80GB HBM3 on 2026-12-01 at 4096 x 4096 floats" in text
    plt.close(capstone.ladder_figure(_result(ref)))
