"""The pure models of notebook 05 against closed-form expectations."""

from __future__ import annotations

import random

import pytest

from helpers.gpu_models import (
    LIMITS,
    Pipeline,
    bound,
    bounds,
    occupancy,
    parse_program,
    simulate,
)

pytestmark = pytest.mark.once   # no device: run with one CPU implementation

H100 = LIMITS["H100 (Hopper, cc 9.0)"]
GTX285 = LIMITS["GTX 285 (Tesla, cc 1.3)"]


@pytest.mark.parametrize("warps, n, issue, latency", [
    (1, 5, 1.0, 8.0), (2, 3, 1.0, 8.0), (8, 4, 1.0, 8.0), (16, 4, 1.0, 8.0), (3, 7, 4.0, 10.0),
    (12, 6, 1 / 6, 10.0), (5, 1, 1.0, 20.0)])
def test_dependent_chains_follow_the_latency_or_the_issue_bound(warps, n, issue, latency):
    comp = Pipeline(issue, latency)
    s = simulate("C" * n, warps, comp, Pipeline(1, 1))
    # completion-latency bound: n * latency (plus the stagger of the warps), or issue bound
    expected = max(n * latency + (warps - 1) * issue, (warps * n - 1) * issue + latency)
    assert s.cycles == pytest.approx(expected)


@pytest.mark.parametrize("warps, n", [(1, 6), (4, 3), (32, 2)])
def test_independent_instructions_are_issue_bound(warps, n):
    comp = Pipeline(1.0, 12.0)
    s = simulate("c" * n, warps, comp, Pipeline(1, 1))
    assert s.cycles == pytest.approx((warps * n - 1) * 1.0 + 12.0)


def test_one_warp_two_independent_halves_the_latency_cost():
    comp = Pipeline(1.0, 10.0)
    dep = simulate("CCC", 1, comp, Pipeline(1, 1)).cycles
    two = simulate("ccC", 1, comp, Pipeline(1, 1)).cycles
    assert dep == 30 and two == 21  # the training's "3 computations, two independent"


def test_memory_bound_and_issue_bound_programs_are_told_apart():
    comp, mem = Pipeline(1.0, 10.0), Pipeline(4.0, 100.0)
    heavy_mem = simulate("m C m C", 64, comp, mem)
    assert bound(heavy_mem, comp, mem) == "memory-bound"
    # 128 memory instructions at one per 4 cycles: the memory pipeline's issue rate sets the time
    assert 128 * 4 <= heavy_mem.cycles <= 128 * 4 + 2 * (100 + 10)
    heavy_comp = simulate("m" + "c" * 16, 64, comp, mem)
    assert bound(heavy_comp, comp, mem) == "issue-bound"
    assert heavy_comp.cycles == pytest.approx(64 * 16 * 1.0 + 100 + 10 - 1, abs=110)
    few = simulate("M C", 1, comp, mem)
    assert bound(few, comp, mem) == "latency-bound" and few.cycles == 110


# Notebook 05's pipelines: computation λ = 1, Λ = 10; memory λ = 4, Λ = 60.
NB_COMP, NB_MEM = Pipeline(issue=1, latency=10), Pipeline(issue=4, latency=60)


@pytest.mark.parametrize("program, warps, verdict, cycles, reason", [
    # one warp, three dependent computations: each waits Λ = 10 -> 3 x 10 = 30 cycles, while
    # the pipeline could accept them in 3 x λ = 3: the latency is not hidden
    ("CCC", 1, "latency-bound", 30, {"latency": 30, "issue": 12, "memory": 0}),
    # 16 warps of 8 independent computations: 128 instructions at one per λ = 1 -> 127 + Λ = 137,
    # far above one warp's chain (10) plus the stagger of the warps (15)
    ("c" * 8, 16, "issue-bound", 137, {"latency": 25, "issue": 137, "memory": 0}),
    # 32 warps of two independent loads: 64 loads at one per λ = 4 -> 63 x 4 + 60 = 312 cycles,
    # above one warp's chain (60 + 10 + stagger 31 x 4 = 184)
    ("m c m c", 32, "memory-bound", 312, {"latency": 184, "issue": 73, "memory": 312}),
])
def test_each_bound_is_named_for_its_reason(program, warps, verdict, cycles, reason):
    s = simulate(program, warps, NB_COMP, NB_MEM)
    assert bound(s, NB_COMP, NB_MEM) == verdict
    assert bounds(program, warps, NB_COMP, NB_MEM) == pytest.approx(reason)
    assert s.cycles == pytest.approx(cycles)   # here the binding bound is the run's time


def test_more_warps_turn_a_latency_bound_program_memory_bound():
    """The same program: 16 warps leave the memory pipeline idle between chains, 64 fill it."""
    assert bound(simulate("M C M C", 16, NB_COMP, NB_MEM), NB_COMP, NB_MEM) == "latency-bound"
    assert bound(simulate("M C M C", 64, NB_COMP, NB_MEM), NB_COMP, NB_MEM) == "memory-bound"
    assert bound(simulate("CCC", 8, NB_COMP, NB_MEM), NB_COMP, NB_MEM) == "latency-bound"
    assert bound(simulate("CCC", 16, NB_COMP, NB_MEM), NB_COMP, NB_MEM) == "issue-bound"


@pytest.mark.parametrize("program, warps, verdict", [
    ("c", 1, "latency-bound"),         # 10 cycles: all of it the one instruction's Λ
    ("c|c", 4, "latency-bound"),       # each piece 3 λ + Λ: the pipeline issues 3 of 13 cycles
    ("c|c", 32, "issue-bound"),        # each piece 31 λ + Λ: it issues 31 of 41
    ("M cccc", 64, "memory-bound"),    # 63 loads' λ = 252 of 312 cycles: the loads' issue rate
])
def test_a_tie_with_latency_goes_to_the_pipeline_only_when_it_is_busy(program, warps, verdict):
    b = bounds(program, warps, NB_COMP, NB_MEM)
    assert b["latency"] == max(b.values())   # the tie
    assert bound(simulate(program, warps, NB_COMP, NB_MEM), NB_COMP, NB_MEM) == verdict


def test_no_run_beats_the_bounds():
    """Each bound is a lower bound on the simulated cycles, barriers and all."""
    rng = random.Random(5)
    for _ in range(400):
        program = "".join(rng.choice("CcMm|") for _ in range(rng.randint(1, 8)))
        warps = rng.randint(1, 40)
        comp = Pipeline(rng.choice([0.25, 1, 4]), rng.choice([4, 10, 20]))
        mem = Pipeline(rng.choice([1, 4, 8]), rng.choice([20, 60, 400]))
        cycles = simulate(program, warps, comp, mem).cycles
        assert cycles >= max(bounds(program, warps, comp, mem).values()) - 1e-9, program
        group = rng.randint(1, warps)   # a barrier holds its own work-group only
        cycles = simulate(program, warps, comp, mem, group=group).cycles
        assert cycles >= max(bounds(program, warps, comp, mem, group).values()) - 1e-9, \
            (program, warps, group)


@pytest.mark.parametrize("warps", [1, 2, 4, 8])
def test_a_barrier_costs_a_full_latency_for_every_warp(warps):
    comp = Pipeline(1.0, 10.0)
    with_barrier = simulate("c|c", warps, comp, Pipeline(1, 1))
    without = simulate("cc", warps, comp, Pipeline(1, 1))
    assert with_barrier.cycles == pytest.approx(2 * ((warps - 1) * 1.0 + 10.0))
    assert without.cycles == pytest.approx((2 * warps - 1) * 1.0 + 10.0)
    assert with_barrier.barriers == [pytest.approx((warps - 1) * 1.0 + 10.0)]


def test_program_notation():
    assert parse_program("M c | C") == [("mem", True), ("comp", False), ("barrier", False),
                                        ("comp", True)]
    with pytest.raises(ValueError):
        parse_program("x")


def test_occupancy_limits():
    full = occupancy(H100, 256, registers_per_item=32)
    assert full.groups == 8 and full.occupancy == 1.0 and full.limited_by == "warps"
    regs = occupancy(H100, 256, registers_per_item=128)
    assert regs.limited_by == "registers" and regs.groups == 2 and regs.occupancy == 0.25
    local = occupancy(H100, 128, registers_per_item=32, local_bytes_per_group=48 * 1024)
    assert local.limited_by == "local memory" and local.groups == 4
    small = occupancy(H100, 32, registers_per_item=16)
    assert small.limited_by == "work-groups" and small.groups == 32 and small.occupancy == 0.5
    # GTX 285: 16K registers, 32 warps; 256 work-items at 16 registers fill it twice over
    old = occupancy(GTX285, 256, registers_per_item=16)
    assert old.groups == 4 and old.occupancy == 1.0
    with pytest.raises(ValueError):
        occupancy(H100, 0)


def test_a_barrier_waits_only_for_its_own_work_group():
    """Small work-groups where barriers dominate (the training, 001 line 853): while one waits at
    its barrier, the others issue; one work-group of all the warps waits for the slowest."""
    comp, mem = Pipeline(issue=1, latency=10), Pipeline(issue=4, latency=60)
    program = "m C | m C | m C | m C"
    one = simulate(program, 16, comp, mem)
    assert simulate(program, 16, comp, mem, group=16).cycles == one.cycles == 520
    four = simulate(program, 16, comp, mem, group=4)
    # both latency-bound, but a work-group of 4 waits at a barrier for 4 warps, not 16
    assert bound(one, comp, mem) == bound(four, comp, mem) == "latency-bound"
    assert bounds(program, 16, comp, mem, 4)["latency"] == 328 < 376
    assert four.cycles == 376 and len(four.barriers) == 3 * 4 and len(one.barriers) == 3
    # without barriers, the grouping changes nothing
    flat = program.replace("|", "")
    assert (simulate(flat, 16, comp, mem, group=4).cycles
            == simulate(flat, 16, comp, mem).cycles)
    with pytest.raises(ValueError):
        simulate(program, 4, comp, mem, group=0)
