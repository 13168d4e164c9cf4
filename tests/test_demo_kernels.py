"""The demo kernels the notebooks run, and the peak kernels of helpers/cl, checked against numpy on
fresh random data at several sizes on the course device (DESIGN.md: every kernel the course ships),
through the same functions ``python -m helpers devices --check`` runs on every device."""

from __future__ import annotations

import pytest

from helpers import bench
from helpers.checking import devcheck
from helpers.device import course_context


@pytest.fixture(scope="module")
def cq():
    return course_context(quiet=True)


@pytest.mark.parametrize("block, blocks", [(64, 1), (64, 37)])
def test_reverse_blocks_both_ways(cq, block, blocks):
    devcheck.demo_local_memory(*cq, block=block, blocks=blocks)


@pytest.mark.parametrize("width, height, radius", [(37, 21, 2), (64, 48, 0), (5, 90, 3)])
def test_erosion_through_an_image_equals_the_exercise_reference(cq, width, height, radius):
    note = devcheck.demo_erosion_image(*cq, width=width, height=height, radius=radius)
    assert note is None, f"the course device has {note}"


@pytest.mark.parametrize("n", [1, 1000, 4099])
def test_scale(cq, n):
    devcheck.demo_scale(*cq, n=n)


@pytest.mark.parametrize("groups", [1, 50])
def test_every_group_takes_one_ticket(cq, groups):
    devcheck.demo_group_order(*cq, groups=groups)


@pytest.mark.parametrize("width", bench.PEAK_WIDTHS)
def test_peak_kernels_compute_what_they_claim(cq, width):
    devcheck.peak_kernels(*cq, width=width)


def test_a_wrong_result_is_reported_not_passed(cq, monkeypatch):
    """The device check's comparisons can fail: a scale kernel that doubles instead of scaling."""
    import helpers.checking.devcheck as dc
    real = dc.build

    def doubling(ctx, name, **kw):
        prg = real(ctx, name, **kw)
        return prg if name != "scale" else _Doubling(prg)

    monkeypatch.setattr(dc, "build", doubling)
    with pytest.raises(devcheck.ItemWrong, match="scale: y differs"):
        devcheck.demo_scale(*cq, n=100)


class _Doubling:
    """A program whose scale kernel is given a = 2 whatever the caller asks."""

    def __init__(self, prg):
        self.prg = prg

    def scale(self, queue, global_size, local_size, x, y, a, n):
        import numpy as np
        return self.prg.scale(queue, global_size, local_size, x, y, np.float32(2.0), n)
