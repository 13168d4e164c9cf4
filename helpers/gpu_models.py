"""Pure-Python models, no OpenCL: occupancy of a compute unit, and the dual-pipeline model of
latency hiding from the training's level 3 (a computation pipeline and a memory pipeline, each
with an issue latency λ and a completion latency Λ, fed by warps in order), with the three lower
bounds on a run's time it names from its inputs: latency-, issue- and memory-bound.

Neither is a simulation of real hardware: they are the smallest models that explain what the
measurements of notebook 05 show.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .wording import plural

# --------------------------------------------------------------------------------------------------
# Occupancy


@dataclass(frozen=True)
class ComputeUnitLimits:
    """What one compute unit (an NVIDIA streaming multiprocessor) holds at once."""

    name: str
    warp_size: int
    max_warps: int           # resident warps
    max_groups: int          # resident work-groups
    registers: int           # 32-bit registers
    local_memory: int        # bytes of local (shared) memory for work-groups
    register_granule: int = 256   # registers are allocated per warp in these units
    max_registers_per_item: int = 255


# Published limits (NVIDIA's CUDA programming guide, compute capabilities 1.3, 2.0 and 9.0).
LIMITS = {
    "GTX 285 (Tesla, cc 1.3)": ComputeUnitLimits("GTX 285 (Tesla, cc 1.3)", 32, 32, 8, 16384,
                                                 16 * 1024, register_granule=512,
                                                 max_registers_per_item=124),
    "Fermi (cc 2.0)": ComputeUnitLimits("Fermi (cc 2.0)", 32, 48, 8, 32768, 48 * 1024,
                                        register_granule=64, max_registers_per_item=63),
    "H100 (Hopper, cc 9.0)": ComputeUnitLimits("H100 (Hopper, cc 9.0)", 32, 64, 32, 65536,
                                               227 * 1024),
}


@dataclass(frozen=True)
class Occupancy:
    groups: int                   # resident work-groups per compute unit
    warps: int                    # resident warps
    occupancy: float              # warps / max warps
    limited_by: str               # the resource that binds
    per_resource: dict[str, int]  # work-groups each resource alone would allow


def occupancy(limits: ComputeUnitLimits, group_size: int, registers_per_item: int = 32,
              local_bytes_per_group: int = 0) -> Occupancy:
    """How many work-groups of ``group_size`` work-items fit on one compute unit at once, and
    which resource stops a further one: warp slots, work-group slots, registers or local memory.
    """
    if group_size <= 0:
        raise ValueError("a work-group has at least one work-item")
    if registers_per_item > limits.max_registers_per_item:
        raise ValueError(f"at most {plural(limits.max_registers_per_item, 'register')} per "
                         f"work-item")
    warps = math.ceil(group_size / limits.warp_size)
    regs_per_warp = math.ceil(registers_per_item * limits.warp_size / limits.register_granule) \
        * limits.register_granule
    per = {
        "warps": limits.max_warps // warps,
        "work-groups": limits.max_groups,
        "registers": limits.registers // (regs_per_warp * warps) if registers_per_item else
        limits.max_groups,
        "local memory": (limits.local_memory // local_bytes_per_group if local_bytes_per_group
                         else limits.max_groups),
    }
    groups = max(0, min(per.values()))
    limited = min(per, key=lambda k: (per[k], list(per).index(k)))
    return Occupancy(groups, groups * warps, groups * warps / limits.max_warps, limited, per)


# --------------------------------------------------------------------------------------------------
# The dual-pipeline model


@dataclass(frozen=True)
class Pipeline:
    """A pipeline that accepts an instruction every ``issue`` cycles (λ) and finishes each
    ``latency`` cycles after it was issued (Λ)."""

    issue: float
    latency: float


@dataclass(frozen=True)
class Issued:
    warp: int
    index: int      # the instruction's place in the program
    kind: str       # "comp" or "mem"
    start: float
    end: float


@dataclass
class Schedule:
    cycles: float
    issued: list[Issued] = field(default_factory=list)
    barriers: list[float] = field(default_factory=list)   # release times
    program: list[tuple[str, bool]] = field(default_factory=list)   # what ran (parsed)
    warps: int = 0
    group: int | None = None   # warps per work-group (None: all in one)

    def busy(self, kind: str, pipe: Pipeline) -> float:
        """Fraction of the run the pipeline ``kind`` spent accepting instructions."""
        n = sum(1 for x in self.issued if x.kind == kind)
        return n * pipe.issue / self.cycles if self.cycles else 0.0


def parse_program(text: str) -> list[tuple[str, bool]]:
    """A program in the model's notation: ``C`` a computation that needs the previous
    instruction's result, ``c`` an independent one; ``M``/``m`` the same for memory accesses;
    ``|`` a barrier. Spaces are ignored. E.g. ``"M C C | m c"``."""
    out = []
    for ch in text.replace(" ", ""):
        if ch == "|":
            out.append(("barrier", False))
        elif ch in "CcMm":
            out.append(("comp" if ch in "Cc" else "mem", ch.isupper()))
        else:
            raise ValueError(f"unknown instruction {ch!r}: use C, c, M, m or |")
    return out


def simulate(program: str | list[tuple[str, bool]], warps: int, comp: Pipeline,
             mem: Pipeline, group: int | None = None) -> Schedule:
    """Run ``warps`` warps of ``program`` through the two pipelines.

    Each warp issues its instructions in order; a dependent instruction waits for the previous
    one to finish; each pipeline takes one instruction per ``issue`` cycles. At every step the
    instruction that can start earliest is issued (ties: the lowest warp, i.e. round robin from
    a fixed order). A barrier waits until every warp has reached it and every instruction before
    it has finished. The run ends when the last instruction finishes.

    ``group``: warps per work-group (all ``warps`` in one work-group when None). A barrier waits
    only for the warps of its own work-group; the other work-groups' warps go on issuing.
    """
    prog = parse_program(program) if isinstance(program, str) else list(program)
    if warps < 1:
        raise ValueError("at least one warp")
    pipes = {"comp": comp, "mem": mem}
    free = {"comp": 0.0, "mem": 0.0}          # when each pipeline next accepts an instruction
    pos = [0] * warps                         # next instruction of each warp
    ready = [0.0] * warps                     # earliest start of that instruction
    last_end = [0.0] * warps                  # when the previous instruction finishes
    if group is not None and group < 1:
        raise ValueError("at least one warp a work-group")
    sched = Schedule(0.0, program=prog, warps=warps, group=group)
    group = warps if group is None else group
    groups = [range(g, min(g + group, warps)) for g in range(0, warps, group)]
    while True:
        # a work-group whose unfinished warps all wait at a barrier, each of its instructions
        # before it issued, is released when the last of them finishes
        for members in groups:
            waiting = [w for w in members if pos[w] < len(prog)]
            if waiting and all(prog[pos[w]][0] == "barrier" for w in waiting):
                release = max(max(last_end[w] for w in members), max(ready[w] for w in members))
                sched.barriers.append(release)
                for w in waiting:
                    pos[w] += 1
                    ready[w] = release
        best = None
        for w in range(warps):
            if pos[w] >= len(prog) or prog[pos[w]][0] == "barrier":
                continue
            kind, dependent = prog[pos[w]]
            start = max(ready[w], free[kind], last_end[w] if dependent else 0.0)
            if best is None or start < best[0]:
                best = (start, w)
        if best is None:
            if any(pos[w] < len(prog) for w in range(warps)):
                continue   # released above on the next pass
            break
        start, w = best
        kind, _ = prog[pos[w]]
        end = start + pipes[kind].latency
        sched.issued.append(Issued(w, pos[w], kind, start, end))
        free[kind] = start + pipes[kind].issue
        ready[w] = start  # in order: the next instruction cannot start before this one
        last_end[w] = max(last_end[w], end)
        pos[w] += 1
    sched.cycles = max((x.end for x in sched.issued), default=0.0)
    return sched


def _segments(prog: list[tuple[str, bool]]) -> list[list[tuple[str, bool]]]:
    """The program cut at its barriers (empty pieces left out)."""
    out, piece = [], []
    for ins in prog + [("barrier", False)]:
        if ins[0] == "barrier":
            if piece:
                out.append(piece)
            piece = []
        else:
            piece.append(ins)
    return out


def _critical_path(piece: list[tuple[str, bool]], pipes: dict[str, Pipeline]) -> float:
    """Cycles one warp needs for ``piece`` with pipelines that never make it wait (λ = 0): in
    order, each dependent instruction waiting Λ for the one before it."""
    start = end = 0.0
    for kind, dependent in piece:
        start = max(start, end if dependent else 0.0)
        end = max(end, start + pipes[kind].latency)
    return end


def _pipeline_parts(prog: list[tuple[str, bool]], warps: int,
                    pipes: dict[str, Pipeline]) -> dict[str, tuple[float, float]]:
    """kind -> (cycles spent accepting its instructions, (N - 1) λ; the completion tails, Λ),
    each summed over the pieces between barriers."""
    out = {kind: (0.0, 0.0) for kind in pipes}
    for piece in _segments(prog):
        for kind, pipe in pipes.items():
            n = warps * sum(1 for k, _ in piece if k == kind)
            if n:
                issuing, tails = out[kind]
                out[kind] = (issuing + (n - 1) * pipe.issue, tails + pipe.latency)
    return out


def bounds(program: str | list[tuple[str, bool]], warps: int, comp: Pipeline,
           mem: Pipeline, group: int | None = None) -> dict[str, float]:
    """The three lower bounds on the run's cycles that the model defines, from its inputs alone:

    - ``"latency"``: the completion-latency bound: each warp's dependent chain waits Λ per
      instruction (its critical path), and the last warp starts (warps - 1) λ after the first;
    - ``"issue"``: the computation pipeline accepts one warp instruction per λ: its N
      instructions take (N - 1) λ, and the last one finishes Λ later;
    - ``"memory"``: the same for the memory pipeline.

    A barrier lets no instruction after it start before every one before it has finished, so each
    bound is the sum of its bounds over the pieces between barriers. With ``group`` (warps per
    work-group, fewer than ``warps``) a barrier holds only its work-group: the bounds are those of
    one work-group, and a pipeline's is at least all warps' instructions at one per λ.
    :func:`simulate` never runs faster than the largest of the three.
    """
    prog = parse_program(program) if isinstance(program, str) else list(program)
    pipes = {"comp": comp, "mem": mem}
    g = warps if group is None else max(1, min(group, warps))
    latency = sum((g - 1) * pipes[piece[0][0]].issue + _critical_path(piece, pipes)
                  for piece in _segments(prog))
    parts = _pipeline_parts(prog, g, pipes)
    out = {"latency": latency, "issue": sum(parts["comp"]), "memory": sum(parts["mem"])}
    if g < warps:   # every warp's instructions still pass through the one pipeline
        for name, kind in (("issue", "comp"), ("memory", "mem")):
            n = warps * sum(1 for k, _ in prog if k == kind)
            if n:
                out[name] = max(out[name], (n - 1) * pipes[kind].issue + pipes[kind].latency)
    return out


def bound(sched: Schedule, comp: Pipeline, mem: Pipeline) -> str:
    """Which limit binds the run: the largest of the model's three lower bounds (:func:`bounds`).
    "latency-bound": too little independent work to hide Λ (more warps or more independent
    instructions would help); "issue-bound": the computation pipeline accepts an instruction
    every λ, the peak; "memory-bound": the memory pipeline does.

    Ties: between a pipeline and latency (one instruction per warp: (warps - 1) λ + Λ both), the
    pipeline binds when it spends at least half the bound accepting instructions, else latency
    does; between the two pipelines, memory."""
    b = bounds(sched.program, sched.warps, comp, mem, sched.group)
    top = max(b.values())
    tied = [k for k in ("memory", "issue") if math.isclose(b[k], top)]
    if not math.isclose(b["latency"], top):
        return tied[0] + "-bound"
    parts = _pipeline_parts(sched.program, sched.group or sched.warps, {"comp": comp, "mem": mem})
    kinds = {"issue": "comp", "memory": "mem"}
    busy = [k for k in tied if parts[kinds[k]][0] >= top / 2]
    return (busy[0] if busy else "latency") + "-bound"


# The training's generations: cycles between two warp instructions of the computation pipeline.
GENERATIONS = {"Tesla": 4.0, "Fermi": 1.0, "Kepler": 1 / 6, "Maxwell": 1 / 4}
