"""Wrong statements about the sources (and about GPUs) stay out of the course.

Each entry of WRONG is a phrasing the course once held, or a close variant, that its seed
(``../shared/seeds/``, the lines it needs quoted in tests/data/seed_lines.json) or the hardware
contradicts: the regexes, the reason, the seed lines that settle it, the old wrong sentences (each
must be caught, so that the test can fail) and the corrected wording (which must pass). The scan
reads the notebooks (markdown and code cells), README.md, docs/**/*.md, results/**/README.md,
kernels/**/*.cl, solutions/**/*.cl and helpers/studies/history.json, flattened: markdown emphasis,
backticks and comment markers out, each paragraph on one line. A match whose sentence also matches
``unless`` is qualified, not wrong.
No OpenCL, no device: plain text.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass

import pytest

pytestmark = pytest.mark.once   # no device

from helpers.paths import ROOT  # noqa: E402

from . import seed_lines  # noqa: E402

FLAGS = re.IGNORECASE


@dataclass(frozen=True)
class Wrong:
    name: str
    patterns: tuple[str, ...]
    reason: str
    seed: tuple[tuple[str, int, str], ...]   # (seed, line, words that line holds)
    old: tuple[str, ...]                     # wrong sentences: every one must be caught
    right: tuple[str, ...] = ()              # corrected wording: none may be caught
    unless: str | None = None                # in the same sentence, this qualifies the match

    def hits(self, text: str) -> list[str]:
        found = []
        for pattern in self.patterns:
            for m in re.finditer(pattern, text, FLAGS):
                sentence = _sentence(text, m.start(), m.end())
                if self.unless and re.search(self.unless, sentence, FLAGS):
                    continue
                found.append(sentence)
        return found


AMD_GENERATION = (r"\b(?:GCN|CDNA|RDNA|TeraScale|Evergreen|VLIW|Radeon\s+(?:HD\s+)?5870|"
                  r"HD\s*7950)\b")

WRONG = [
    Wrong(
        "the training ends with what it could not cover",
        (r"\b(?:ends|closes|finishes|concludes)\s+with\s+(?:a\s+slide\s+(?:of|on|listing)\s+)?"
         r"what\s+(?:it|three\s+days|3\s+days|the\s+training)\s+(?:could|can|did)\s*(?:not|n't)"
         r"\s+cover",),
        "the 'Advanced OpenCL' slide (what 3 days cannot cover) sits inside Level 2; the runtime "
        "math library, matrixVector and erosion slides follow it, then all of Level 3; the deck "
        "ends with images and samplers",
        (("001", 411, "Advanced OpenCL"), ("001", 414, "You cannot know everything in 3 days"),
         ("001", 427, "Runtime math library"), ("001", 451, "Exercise: Erosion"),
         ("001", 464, "Level 3 Performance Considerations"),
         ("001", 1290, "OpenCL Images Background")),
        old=("The three-day training ends with a slide of what it could not cover: images, running "
             "code on multiple devices, atomics, mapped memory, streaming, events.",
             "Level 2 of the *GPGPU Training* (Jan G. Cornelis, PSC³) closes with what three days "
             "cannot cover: images, multiple devices, atomics, mapped memory, streaming, events."),
        right=("A slide in Level 2 of the *GPGPU Training*, 'Advanced OpenCL', lists what three "
               "days cannot cover: images, multiple devices, atomics, mapped memory, streaming, "
               "events.",),
    ),
    Wrong(
        "Du et al.'s Table 6 as vendor BLAS",
        (r"\btable\s*6\b[^.]{0,150}\bvendor(?:'s|s')?\s+(?:blas|librar(?:y|ies))\b",
         r"\bvendor(?:'s|s')?\s+(?:blas|librar(?:y|ies))\b[^.]{0,150}\btable\s*6\b"),
        "Table 6 sets MAGMA's SGEMM/DGEMM in CUDA against OpenCL on the C2050 and Nakasato's IL "
        "against OpenCL on the Radeon 5870; vendor libraries (MKL, ATLAS) only on the Tigerton CPU",
        (("004", 334, "SGEMM CUDA/OpenCL"), ("004", 344, "Tigerton 2.4Ghz\tMKL/ATLAS")),
        old=("The paper compared its OpenCL SGEMM with vendor BLAS (its Table 6: 57% of the C2050's "
             "peak in OpenCL against 63% in CUDA).",
             "Du et al.'s Table 6 sets their OpenCL SGEMM beside the vendor BLAS."),
        right=("Table 6 of *From CUDA to OpenCL* (2011) compares MAGMA's own SGEMM in CUDA and "
               "OpenCL on the Tesla C2050 (63% and 57% of the peak), Nakasato's IL kernel and the "
               "authors' OpenCL one on the Radeon 5870 (74% and 52%), and two vendor libraries, MKL "
               "and ATLAS, only on Intel's Tigerton system of four quad-core Xeons (79% and 46%) "
               "(`../shared/seeds/004`, lines 330-350). It is not a comparison with vendor BLAS on "
               "the GPUs.",
               "The paper set its OpenCL SGEMM beside MAGMA's CUDA one (Table 6: 57% of the C2050's "
               "peak in OpenCL against 63% in CUDA)."),
        unless=r"\b(?:MKL|ATLAS|Tigerton|not a comparison)\b",
    ),
    Wrong(
        "the 2010 situation",
        (r"\bthe\s+2010\s+situation\b",),
        "Du et al. is a 2011 paper (its port ran under CUDA 4.0b), and the arrays left in global "
        "memory were the Radeon 5870's",
        (("004", 21, "Available online 19 October 2011"), ("004", 164, "CUDA 4.0b")),
        old=("Built with -DNO_UNROLL, `#pragma unroll 1` forbids it: the 2010 situation of Du et "
             "al., whose ported GEMM indexed its private arrays at run time until they unrolled the "
             "loops by hand.",
             "the same with `#pragma unroll 1`, which forbids it (the 2010 situation); and in eight "
             "variables of their own"),
        right=("Built with -DNO_UNROLL, `#pragma unroll 1` forbids it, as a compiler that fails to "
               "unroll does: Du et al. (2011) found the Fermi GEMM's arrays in global memory on the "
               "Radeon 5870 and suspected loops the compiler had not fully unrolled.",),
    ),
    Wrong(
        "the blog's GPUs from 2009-2010",
        (r"\bfrom\s+2009\s*(?:-|–|—|to)\s*2010\b",),
        "the post names a Tesla C1060 (2008), a GeForce GTX 460 (2010) and a Radeon HD 6750M "
        "(2011), and dates none of them",
        (("003", 63, "KernelTesla C1060GeForce GTX 460ATI Radeon HD 6750M"),),
        old=("The blog's GPUs are from 2009-2010: which of its conclusions hold?",),
        right=("The post's GPUs (a Tesla C1060, a GTX 460, a Radeon HD 6750M) gained from "
               "unweaving.",),
    ),
    Wrong(
        "the blog dated",
        (r"(?:\bholk\b(?:'s)?(?:\s+(?:blog\s+)?post)?|\baccess\s+patterns\s+matter)[\"'”’]*\s*"
         r"\(\s*(?:19|20)\d\d\s*\)",
         r"\b(?:blog|post|holk)\b[^.]{0,80}\bdated\b"),
        "the post carries no date (its text starts with the author and the title)",
        (("003", 1, "Eric Holk"), ("003", 5, "Access Patterns Matter")),
        old=("Eric Holk, Access Patterns Matter (2011): 1024 x 1024 doubles",
             "// Notebook 10: branch divergence and access order, after Eric Holk's \"Access Patterns "
             "Matter\"\n// (2011). C = A + B on even rows and A - B on odd rows",
             "Eric Holk's blog post, dated 2011, timed three GPUs."),
        right=("Eric Holk, Access Patterns Matter (undated post): 1024 x 1024 doubles, C = A + A "
               "and A - A",
               "Notebook 10: branch divergence and access order, after Eric Holk's \"Access "
               "Patterns Matter\" (the post gives no date)."),
    ),
    Wrong(
        "listings 5 and 6 differ by a 2-way conflict",
        (r"\blistings?\s+5\s+and\s+6\b[^.]{0,80}\bdiffer\b[^.]{0,40}\b2-way\b",
         r"\bdiffer\s+by\s+(?:exactly\s+|only\s+|just\s+)?(?:such\s+)?a\s+2-way\b",
         r"\blisting\s+5(?:'s)?\b[^.]{0,80}\b(?:has|have|with|gets?|suffers?\s+from|shows?)\s+"
         r"(?:only\s+)?(?:a\s+)?2-way\s+(?:bank\s+)?conflicts?\b"),
        "Figure 5 shows the 2-way conflict of step 1 only; on the GTX 285's 16 banks (half-warps) "
        "listing 5's later steps are 4-, 8- and 16-way",
        (("000", 207, "exhibit 2-way bank conflicts (showed for Step 1 in this figure)"),),
        old=("The whitepaper's listings 5 and 6 (notebook 08) differ by exactly such a 2-way "
             "conflict.",
             "* The interleaved tree of listing 5 has a 2-way bank conflict that listing 6's "
             "sequential one avoids."),
        right=("Listing 5 pairs `partial[2 s i]` with `partial[2 s i + s]`: on the GTX 285, whose 16 "
               "banks serve half-warps, work-items `i` and `i + 8` touch words 16 apart at the first "
               "step, the same bank: a 2-way conflict (the whitepaper's Figure 5), and 4-, 8- and "
               "16-way at the steps after.",
               "* The interleaved tree of listing 5 has bank conflicts that listing 6's sequential "
               "one avoids."),
        unless=r"\b(?:4|8|16)-(?:,|\s|way)|\b(?:later|following|next)\s+steps?\b|\bsteps\s+after\b",
    ),
    Wrong(
        "coalescing by a work-group per row still the big step",
        (r"\bbig(?:gest)?\s+step\b[^.]{0,20}\band\s+still\s+is\b",
         r"\bwork-group\s+per\s+row\b[^.]{0,80}\bstill\s+is\b"),
        "on the H100 the uncoalesced listing 2 (0.172 ms) is as fast as the coalesced listing 6 "
        "with a work-group per row (0.182 ms, results/reference/nvidia-h100.json); the 2.5x of "
        "Table 1 is the GTX 285's",
        (("000", 374, "Listing 2\t83.2"), ("000", 376, "Listing 4\t32.5")),
        old=("* Coalescing (a work-group per row) was the whitepaper's big step, and still is.",),
        right=("* Coalescing was the whitepaper's big step; on the H100 its caches make the "
               "uncoalesced listing 2 as fast as the coalesced steps.",),
    ),
    Wrong(
        "arithmetic modest beside its bandwidth",
        (r"\barithmetic\s+(?:is\s+)?modest\s+beside\s+(?:its|the)\s+bandwidth\b",),
        "the Xeon's ridge is 15 FLOP/byte (452 GFLOP/s against 30.2 GB/s), the H100's 22.5: "
        "arithmetic outruns bandwidth on both; the early CPU crossover comes from the dependent "
        "chain",
        (("000", 43, "memory bandwidth will increase at a slower rate than arithmetic "
                     "throughput"),),
        old=("On a CPU device the crossover comes early: its arithmetic is modest beside its "
             "bandwidth.",),
        right=("No: at N ≈ 9 (Intel's runtime), against 109 on the H100. The one dependent chain per "
               "element reached at most 86 GFLOP/s, a fifth of the Xeon's 452 GFLOP/s peak.",),
    ),
    Wrong(
        "the same kernels become fast",
        (r"\bthe\s+same\s+kernels\s+become\s+fast\b",),
        "with a work-group per row the H100 still takes 0.537 ms for listing 4 against 0.172 for "
        "listing 2 (results/reference/nvidia-h100.json); Table 1's times are the GTX 285's only",
        (("000", 371, "measured on a GTX 285"),),
        old=("Launched with a work-group per row, the same kernels become fast.",),
        right=("No: 0.182 ms against 0.172; the H100's caches serve listing 2's rows.",),
    ),
    Wrong(
        "about 17 times slower, the training's rule holding",
        (r"\b(?:rule|training)\b[^.]{0,120}\bholds?\b[^.]{0,200}\babout\s+17\s+times\b",
         r"\babout\s+17\s+times\s+slower\b[^.]{0,150}\b(?:as\s+the\s+training|the\s+training'?s?"
         r"\s+rule)\b"),
        "the training's rule makes a k-way conflict cost k (32x for 32-way); the H100 measured "
        "16.9x, so the rule does not hold as stated",
        (("001", 769, "Maximum cost = maximum bank conflict degree"),),
        old=("On the H100 the rule holds as the training states it: a 2-way conflict costs little, "
             "then each doubling of the degree doubles the time (a 32-way conflict is about 17 "
             "times slower than none), and a broadcast costs nothing.",
             "A 32-way conflict is about 17 times slower than none, as the training's rule says."),
        right=("16.9 times, not the rule's 32: 2-way costs 1.15x, then each doubling of the degree "
               "about doubles the time; a broadcast and stride 33 cost nothing.",),
    ),
    Wrong(
        "60 work-groups were plenty",
        (r"\b60\s+work[- ]groups\s+(?:were|are|was|is)\s+(?:plenty|enough|sufficient)\b",),
        "60 groups of 256 are 2 per GTX 285 multiprocessor, 16 of its 32 warps; the whitepaper asks "
        "for hundreds of work-items per multiprocessor and says the NDRange takes experimenting",
        (("000", 78, "hundreds of work-items should be launched per multiprocessor"),
         ("000", 371, "60 work-groups for the five last kernels")),
        old=("60 work-groups were plenty for the GTX 285's 30 multiprocessors; we run each step "
             "that way and again with a work-group per row.",),
        right=("The whitepaper used work-groups of 256: **239 work-groups** for listing 2 (one "
               "work-item per row) and **60** for the others, two per multiprocessor of the GTX 285 "
               "(16 of its 32 warps); it says the best NDRange takes experimenting.",),
    ),
    Wrong(
        "NVIDIA's OpenCL best-practices whitepaper",
        (r"\bbest[- ]practices\s+whitepaper\b",),
        "the whitepaper is 'OpenCL Programming for the CUDA Architecture' (version 3.2, 8/23/2010); "
        "the Best Practices Guide is another document it refers to",
        (("000", 3, "OpenCL Programming for the CUDA Architecture"),
         ("000", 9, "NVIDIA OpenCL Best Practices Guide [2]")),
        old=("// The matrix-vector ladder of notebook 13: the steps of NVIDIA's OpenCL best-practices"
             "\n// whitepaper (its listings 2 to 7), written for this course.",
             "NVIDIA's *OpenCL Best Practices* whitepaper (2009) optimizes `w = M v` in six steps."),
        right=("NVIDIA's whitepaper *OpenCL Programming for the CUDA Architecture* (version 3.2, "
               "2010) optimizes `w = M v` in six steps (its listings 2 to 7).",),
    ),
    Wrong(
        "AMD avoided bank conflicts too",
        (r"\bavoid(?:ed|s)?\s+(?:bank\s+)?conflicts,?\s+too\b",),
        "AMD's local memory has banks and conflicts (GCN: 32 banks of 4 bytes); Du et al. say of the "
        "Radeon 5870 that bank conflicts hurt as on NVIDIA; 'AMD avoids bank conflicts in hardware' "
        "is the training's claim, not a fact",
        (("004", 201, "bank conflicts can hurt shared memory performance"),
         ("001", 773, "AMD avoids bank conflicts in hardware")),
        old=("On a CPU device there are no banks: every stride takes the same time (the training "
             "notes that AMD's hardware avoided conflicts too).",),
        right=("The training also says AMD avoids bank conflicts in hardware; the local memory of "
               "AMD's GCN GPUs has 32 banks and does have conflicts.",),
    ),
    Wrong(
        "an AMD wavefront is 64, unqualified",
        (r"\b64\s+on\s+AMD(?:'s)?\b",
         r"\b(?:AMD|ATI)(?:'s)?\s+(?:GPUs?'?\s+)?wavefronts?\s+(?:is|are|has|have|of|=)\s+"
         r"(?:always\s+)?64\b",
         r"\bwavefronts?\s+(?:is|are)\s+(?:always\s+)?64\b",
         r"\b64[- ]wide\b"),
        "64 holds for GCN and CDNA (and the Radeon 5870); RDNA runs 32 wide natively (wave64 "
        "optional), so a width for 'AMD' needs its generation",
        (("001", 544, "AMD: wavefront consists of 64 work items"),
         ("004", 190, "They are grouped into sets of 64 called a wavefront")),
        old=("work-items run in groups executing one instruction together, 32 at a time on NVIDIA "
             "hardware (a **warp**), 64 on AMD's (a **wavefront**).",
             "- A compute unit runs work-items in warps (32 on NVIDIA) or wavefronts (64 on AMD) "
             "that share one instruction: SIMT.",
             "An AMD wavefront is 64 wide.",
             "AMD's wavefronts are 64-wide."),
        right=("AMD's wavefront is 64 wide on GCN and CDNA; RDNA runs 32 wide natively.",
               "- A compute unit runs work-items in warps (32 on NVIDIA; AMD's wavefronts are 64 on "
               "GCN and CDNA, 32 on RDNA) that share one instruction: SIMT.",
               "32 on NVIDIA GPUs, 64 on AMD's GCN and CDNA, 32 (or 64) on RDNA."),
        unless=AMD_GENERATION,
    ),
    Wrong(
        "a warp is the preferred work-group size multiple",
        (r"\bwarp\s+is\s+whatever\s+the\s+device\s+says\b",
         r"\bwarp(?:\s+size)?\s+(?:is|equals)\s+(?:the\s+|its\s+|whatever\s+)[^.]{0,40}"
         r"preferred\s+work[- ]group\s+(?:size\s+)?multiple\b"),
        "CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE is a per-kernel performance hint (CPU "
        "runtimes report other numbers); the warp is 32 on NVIDIA, OpenCL's name for it the "
        "sub-group",
        (("000", 37, "each warp has 32 threads"),),
        old=("local memory; a warp is whatever the device says its preferred work-group multiple "
             "is.",),
        right=("The table's *preferred work-group size multiple* is a per-kernel hint, not the warp "
               "size; OpenCL's query for the warp is the **sub-group** size.",),
    ),
    Wrong(
        "OpenCL has no portable query for the warp",
        (r"\bOpenCL\s+has\s+no\s+portable\s+(?:query|way|name)\b",),
        "sub-groups (core in OpenCL 2.1, optional in 3.0, cl_khr_subgroups) give "
        "get_max_sub_group_size() and clGetKernelSubGroupInfo; 'not exposed in OpenCL' was the "
        "whitepaper's OpenCL 1.x",
        (("000", 39, "The SIMT execution model is not exposed in OpenCL"),),
        old=("try:   # NVIDIA calls it a warp, AMD a wavefront; OpenCL has no portable query",),
        right=("try:   # a warp is OpenCL's sub-group; the preferred multiple is a per-kernel hint, "
               "not the warp",),
    ),
    Wrong(
        "fusion only with -cl-mad-enable",
        (r"\bonly\s+(?:when|if)\s+(?:it\s+is\s+)?(?:built|compiled)\s+with\s+-cl-mad-enable\b",
         r"\bfus\w*\b[^.]{0,80}\bonly\s+(?:when|if|with)\b[^.]{0,30}-cl-mad-enable\b"),
        "OpenCL C's FP_CONTRACT pragma is ON by default and allows a * b + c to become an fma "
        "without any flag; -cl-mad-enable further allows a possibly less accurate mad",
        (("000", 272, "-cl-mad-enable"),),
        old=("// Multiply-adds written as a * b + c: the compiler may fuse each pair into one "
             "instruction\n// only when built with -cl-mad-enable (or where it fuses anyway).",),
        right=("// Multiply-adds written as a * b + c. FP_CONTRACT is on by default in OpenCL C, so "
               "the compiler\n// may fuse each pair into an fma without any flag; -cl-mad-enable "
               "also allows a faster `mad` of\n// possibly lower accuracy.",),
    ),
    Wrong(
        "no warp goes on until every warp has arrived",
        (r"\bno\s+warp\s+(?:may|can|will)\s+(?:go\s+on|continue|proceed)\s+until\s+every\s+warp\b",),
        "barrier() holds the work-items of one work-group until all of that work-group has "
        "reached it; warps of other work-groups on the compute unit go on",
        (("001", 843, "barrier(CLK_LOCAL_MEM_FENCE)"),
         ("000", 286, "synchronization at work-group level")),
        old=("**The cost of a barrier.** At a barrier no warp may go on until every warp has "
             "arrived and its results are ready, so each barrier pays one full completion latency "
             "that other work could have hidden.",),
        right=("**A barrier** makes every warp of the work-group wait until all have arrived and "
               "their results are ready, so it pays a completion latency that nothing in that "
               "work-group hides (other work-groups on the same compute unit keep it busy).",),
    ),
    Wrong(
        "its PTX says why",
        (r"\b(?:its|the)\s+PTX\s+(?:says|tells(?:\s+you)?|shows)\s+why\b",),
        "PTX is the virtual instruction set that the driver still compiles and optimizes into "
        "SASS, the code that runs; it shows what the front end emitted, not why a kernel is slower",
        (("004", 137, "7000+ lines of PTX"), ("004", 111, "PTX\tIL")),
        old=("The source is the same, the instructions are not: when a kernel is a few percent off, "
             "its PTX says why.",),
        right=("Written with `vload4`, the slice kernel took 0.0961 ms instead of 0.0932; the PTX "
               "of the course's vload4 sums holds four 32-bit loads and no 128-bit one.",),
    ),
    Wrong(
        "FP_CONTRACT as a contraction that always happens",
        (r"\bcontracts\s+`?a\s*\*\s*b\s*\+\s*c`?\s+into\s+an?\s+fused",),
        "FP_CONTRACT is ON by default in OpenCL C: the compiler MAY fuse a * b + c into an fma; "
        "the whitepaper's own switch is -cl-mad-enable, which allows a faster mad",
        (("000", 272, "-cl-mad-enable"),),
        old=("OpenCL C contracts `a * b + c` into a fused multiply-add by default (`FP_CONTRACT`); "
             "`-cl-mad-enable` also allows a faster `mad` that may round less carefully.",),
        right=("OpenCL C lets the compiler contract `a * b + c` into a fused multiply-add by "
               "default (`FP_CONTRACT` is on: it may, not must).",),
    ),
    Wrong(
        "32 banks on every GPU of today",
        (r"\btoday's\s+GPUs\s+have\s+32\s+banks\b", r"\b32\s+on\s+today's\s+GPUs\b"),
        "32 banks of 4 bytes is NVIDIA's since Fermi and AMD GCN's; the training speaks of banks "
        "without a number, the whitepaper's GTX 285 had 16, other GPUs differ",
        (("001", 765, "Local memory is organized in banks"),
         ("000", 207, "2-way bank conflicts")),
        old=("Today's GPUs have 32 banks of 4-byte words: word `w` sits in bank `w % 32`.",
             "local memory is split into banks (32 on today's GPUs, 16 on the GTX 285)"),
        right=("NVIDIA's GPUs since Fermi, like AMD's GCN, have 32 banks of 4-byte words: word `w` "
               "sits in bank `w % 32`.",),
    ),
    Wrong(
        "a k-way conflict always k times as long, a broadcast only when all read",
        (r"\bk-way\s+conflict,?\s+k\s+times\s+as\s+long\b",
         r"\ball\s+reading\s+one\s+word\s+is\s+a\s+broadcast\b"),
        "the training's rule (a broadcast when all read one address, cost = the degree) is the "
        "GTX-era one: since Fermi any lanes reading one 4-byte word share an access, and a k-way "
        "conflict costs up to k times as long (the H100: 1.15x for 2-way, 16.9x for 32-way, "
        "results/reference/nvidia-h100.json)",
        (("001", 769, "Maximum cost = maximum bank conflict degree"),
         ("001", 772, "All work items of warp read the same address")),
        old=("k of them on different words of one bank wait for each other: a k-way conflict, k "
             "times as long.",
             "A k-way conflict takes k passes; all reading one word is a broadcast and costs one."),
        right=("k different words in one bank are a k-way conflict, k passes, up to k times as "
               "long (the H100 measured 1.15 times for 2-way, 16.9 for 32-way).",
               "Lanes reading the same word share one access, a broadcast (on NVIDIA since Fermi, "
               "whether all lanes read it or only some)."),
    ),
    Wrong(
        "no compiler can keep a run-time-indexed array in registers",
        (r"\bno\s+compiler\s+can\s+(?:give|keep|put)\b",),
        "NVIDIA's compiler cannot index registers at run time, AMD's and Intel's GPUs can, and "
        "unrolling the loop by 8 makes the ring's index a constant: the training's rule and Du et "
        "al.'s Radeon are one compiler's outcome, not every compiler's",
        (("001", 717, "Private arrays will be stored in global memory"),
         ("004", 235, "the array variables were not cached and resided in global memory")),
        old=("The index depends on t, known only at run time, so no compiler can give each element "
             "a register.",),
        right=("The index depends on t, known only at run time, so NVIDIA's compiler cannot give "
               "each element a register (AMD's and Intel's GPUs can index theirs at run time).",),
    ),
    Wrong(
        "the Tigerton as one CPU",
        (r"\bTigerton\s+(?:CPU|processor)\b", r"\b16-core\s+(?:Intel\s+)?Tigerton\b"),
        "Du et al.'s Tigerton system was four quad-core Xeon E7340 processors at 2.4 GHz, 16 cores "
        "in all, whose MSRP and TDP they multiplied by 4",
        (("004", 344, "Tigerton 2.4Ghz"), ("004", 352, "4 E7340 processors")),
        old=("two CPU libraries, Intel's MKL and the open-source ATLAS, only on the 16-core Intel "
             "Tigerton CPU (79% and 46%)",),
        right=("two CPU libraries, Intel's MKL and the open-source ATLAS, only on an Intel Tigerton "
               "system of four quad-core Xeon E7340s at 2.4 GHz, 16 cores in all (79% and 46%)",),
    ),
]


# ---------------------------------------------------------------------------------------------
# reading the course


def _flat(text: str) -> str:
    """Markdown emphasis, backticks and comment or list markers out; each paragraph on one line."""
    text = re.sub(r"^[ \t]*(?://+|#+|>|[-*+](?=\s))[ \t]?", "", text, flags=re.MULTILINE)
    text = text.replace("**", "").replace("`", "")
    text = re.sub(r"(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])", "", text)   # *italics*, not a * b
    return "\n\n".join(" ".join(p.split()) for p in re.split(r"\n[ \t]*\n", text) if p.strip())


# a sentence ends at . ? ! and a space, but not after an initial (Jan G. Cornelis), et al. or e.g.
_END = re.compile(r"(?<!\b[A-Z])(?<!\bal)(?<!\be\.g)(?<!\bi\.e)[.?!](?=\s)|\n")


def _sentence(text: str, start: int, end: int) -> str:
    left = max((m.end() for m in _END.finditer(text, 0, start)), default=0)
    right = next((m.end() for m in _END.finditer(text, end)), len(text))
    return text[left:right].strip()


def _line(raw: str, sentence: str) -> int | str:
    words = re.findall(r"\w+", sentence)[:6]
    m = re.search(r"\W+".join(map(re.escape, words)), raw, FLAGS) if words else None
    return raw.count("\n", 0, m.start()) + 1 if m else "?"


@functools.lru_cache(maxsize=1)
def corpus() -> tuple[tuple[str, str, str], ...]:
    """(place, raw text, flattened text) of every piece of the course the scan reads."""
    pieces = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] in ("markdown", "code"):
                source = cell["source"]
                raw = "".join(source) if isinstance(source, list) else source
                pieces.append((f"{path.relative_to(ROOT)} cell {i} ({cell['cell_type']})", raw,
                               _flat(raw)))
    files = [ROOT / "README.md", ROOT / "helpers" / "studies" / "history.json"]
    files += sorted((ROOT / "docs").rglob("*.md")) + sorted((ROOT / "results").rglob("README.md"))
    files += sorted((ROOT / "kernels").rglob("*.cl")) + sorted((ROOT / "solutions").rglob("*.cl"))
    for path in files:
        raw = path.read_text(encoding="utf-8")
        pieces.append((str(path.relative_to(ROOT)), raw, _flat(raw)))
    return tuple(pieces)


def _seed_ref(wrong: Wrong) -> str:
    return ", ".join(f"{seed}:{line}" for seed, line, _ in wrong.seed)


# ---------------------------------------------------------------------------------------------
# the tests


@pytest.mark.parametrize("wrong", WRONG, ids=lambda w: w.name)
def test_the_course_does_not_say(wrong):
    found = []
    for place, raw, flat in corpus():
        for sentence in wrong.hits(flat):
            where = place if " cell " in place else f"{place}:{_line(raw, sentence)}"
            found.append(f"  {where}: {sentence[:240]}")
    assert not found, (f"wrong: {wrong.reason} (seed {_seed_ref(wrong)}); found:\n"
                       + "\n".join(found))


@pytest.mark.parametrize("wrong", WRONG, ids=lambda w: w.name)
def test_each_pattern_catches_the_wrong_sentence_it_was_written_for(wrong):
    assert wrong.old, "no wrong sentence to catch"
    for sentence in wrong.old:
        assert wrong.hits(_flat(sentence)), f"{wrong.name}: misses {sentence!r}"
    for pattern in wrong.patterns:   # every regex earns its place: it catches one of them
        assert any(re.search(pattern, _flat(s), FLAGS) for s in wrong.old), \
            f"{wrong.name}: {pattern!r} catches none of its wrong sentences"


@pytest.mark.parametrize("wrong", WRONG, ids=lambda w: w.name)
def test_the_corrected_wording_passes(wrong):
    for sentence in wrong.right:
        assert not wrong.hits(_flat(sentence)), f"{wrong.name}: catches the right {sentence!r}"


@pytest.mark.parametrize("wrong", WRONG, ids=lambda w: w.name)
def test_each_reason_rests_on_a_seed_line(wrong):
    """Against the seed lines quoted in the repository (tests/seed_lines.py)."""
    assert wrong.seed and wrong.reason
    seeds = seed_lines.quotes()
    for seed, line, words in wrong.seed:
        assert words in seeds.line(seed, line), f"{seeds.file(seed)} line {line} lacks {words!r}"


def test_the_scan_reads_the_whole_course():
    places = [place for place, _, _ in corpus()]
    files = {place.split(" cell ")[0] for place in places}
    notebooks = {str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert len(notebooks) >= 16 and notebooks <= files
    assert any(p.endswith("(markdown)") for p in places) and any(p.endswith("(code)") for p in places)
    for must in ("README.md", "docs/glossary.md", "docs/notes/02-work-groups.md", "results/README.md",
                 "results/reference/README.md", "results/history/README.md",
                 "kernels/studies/matvec.cl", "kernels/float_copy.cl", "solutions/parallel_sum.cl",
                 "helpers/studies/history.json"):
        assert must in files, f"the scan does not read {must}"


def test_flattening_keeps_a_sentence_whole():
    text = _flat("A **warp** of `32`\nwork-items, *say*.\n\n// a comment\n// goes on\n- a * b + c")
    assert text == "A warp of 32 work-items, say.\n\na comment goes on a * b + c"
