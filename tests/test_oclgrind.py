"""Oclgrind's reports parsed into findings at the kernel's line (report texts as Oclgrind 21.10
prints them)."""

from __future__ import annotations

import pytest

from helpers.checking.oclgrind import parse

pytestmark = pytest.mark.once   # no device: run with one CPU implementation

OOB = """
Invalid read of size 4 at global memory address 0x1000000000190
\tKernel: oob
\tEntity: Global(100,0,0) Local(36,0,0) Group(1,0,0)
\t  %0 = load float, float addrspace(1)* %arrayidx, align 4, !dbg !30, !tbaa !31
\tAt line 4 (column 14) of input.cl:
\t  dst[i] = src[i];
\t

Invalid write of size 4 at global memory address 0x2000000000190
\tKernel: oob
\tEntity: Global(100,0,0) Local(36,0,0) Group(1,0,0)
\t  store float %0, float addrspace(1)* %arrayidx2, align 4, !dbg !36, !tbaa !31
\tAt line 4 (column 12) of input.cl:
\t  dst[i] = src[i];
\t

Uninitialized value written to global memory address 0x2000000000190
\tKernel: oob
\tEntity: Global(100,0,0) Local(36,0,0) Group(1,0,0)
\tAt line 4 (column 12) of input.cl:
\t  dst[i] = src[i];
\t

Invalid write of size 4 at global memory address 0x2000000000194
\tKernel: oob
\tEntity: Global(101,0,0) Local(37,0,0) Group(1,0,0)
\tAt line 4 (column 12) of input.cl:
\t  dst[i] = src[i];
\t
Oclgrind: 200 errors generated - suppressing further errors
"""

RACE = """
Read-write data race at local memory address 0x1000000000004
\tKernel: race
\t
\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
\t  store float %cond, float addrspace(3)* %arrayidx5, align 4, !dbg !43, !tbaa !38
\tAt line 10 (column 10) of input.cl:
\t  t[l] = i < n ? src[i] : 0.0f;
\t
\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\tAt line 11 (column 15) of input.cl:
\t  float x = t[(l + 1) % get_local_size(0)];
"""

DIVERGENCE = """
Work-group divergence detected (barrier)
\tKernel:     diverge
\tWork-group: (1,0,0)
\tOnly 10 out of 64 work-items executed barrier
\t  tail call spir_func void @_Z7barrierj(i32 noundef 1) #6, !dbg !34
\tAt line 17 (column 33) of input.cl:
\t  if (get_local_id(0) < 10) { barrier(CLK_LOCAL_MEM_FENCE); }
"""


def test_out_of_bounds_reports_merge_per_place_and_the_uninitialized_echo_is_dropped():
    findings = parse(OOB)
    assert [(f.kind, f.line, f.col, f.count) for f in findings] == [
        ("out_of_bounds_read", 4, 14, 1), ("out_of_bounds_write", 4, 12, 2)]
    write = findings[1]
    assert write.entity == "work-item 100 (group 1, local id 36)"
    assert write.code == "dst[i] = src[i];"
    assert "0x" not in write.heading
    text = write.format("kernels/k.cl")
    assert text.startswith("kernels/k.cl:4:12: write outside a buffer")
    assert "2 reports" in text


def test_a_race_is_placed_at_its_first_access():
    (race,) = parse(RACE)
    assert (race.kind, race.line, race.col) == ("race", 10, 10)
    assert race.entity == "work-item 1 (group 0, local id 1)"


def test_a_divergent_barrier_says_how_many_work_items_reached_it():
    (div,) = parse(DIVERGENCE)
    assert (div.kind, div.line) == ("divergent_barrier", 17)
    assert div.entity == "work-group 1: 10 of 64 work-items reached it"


def test_an_empty_log_has_no_findings():
    assert parse("") == [] and parse("Oclgrind: 1 errors generated\n") == []


# the optimizer sank the store of an if and its else into one: that access has no line of its own
MERGED_RACE = """
Read-write data race at local memory address 0x1000000000040
\tKernel: mat_vec_mul
\t
\tFirst entity:  Global(48,0,0) Local(16,0,0) Group(1,0,0)
\t  store float %add29.sink, float addrspace(3)* %arrayidx16, align 4, !dbg !56, !tbaa !62
\tAt line 0 (column 0) of input.cl:
\t  (source not available)
\t
\tSecond entity: Global(32,0,0) Local(0,0,0) Group(1,0,0)
\t  %3 = load float, float addrspace(3)* %arrayidx26, align 4, !dbg !85, !tbaa !62
\tAt line 31 (column 33) of input.cl:
\t  partial[lid] += partial[lid + s];
\t
"""


def test_a_race_whose_first_access_has_no_line_is_placed_at_the_second_and_its_work_item():
    (race,) = parse(MERGED_RACE)
    assert (race.line, race.col, race.code) == (31, 33, "partial[lid] += partial[lid + s];")
    assert race.entity == "work-item 32 (group 1, local id 0)"
    (alone,) = parse(MERGED_RACE.split("\tSecond entity")[0])
    assert (alone.line, alone.code) == (0, "(source not available)")
    assert alone.entity == "work-item 48 (group 1, local id 16)"
