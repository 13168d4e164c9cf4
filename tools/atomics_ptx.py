"""The PTX NVIDIA's OpenCL compiler makes of notebook 15's contention kernels: which atomic
instructions (atom / red, on shared or global memory) their loops became, to read the H100's
contention figures with (python tools/atomics_ptx.py nvidia OUT.json)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT


def main() -> int:
    import pyopencl as cl

    from helpers.device import choose_device
    from helpers.timing import environment
    dev = choose_device(sys.argv[1])
    ctx = cl.Context([dev])
    source = (ROOT / "kernels" / "studies" / "advanced.cl").read_text()
    ptx = cl.Program(ctx, source).build().get_info(cl.program_info.BINARIES)[0].decode()
    out = {}
    for entry in re.split(r"\n(?=\.(?:visible\s+)?\.?entry\b)", ptx):
        m = re.match(r"\.(?:visible\s+)?\.?entry\s+(\w+)", entry)
        if not m or not m.group(1).startswith(("contend", "histogram")):
            continue
        ops = re.findall(r"\b((?:atom|red)\.[\w.]+)", entry)
        out[m.group(1)] = {op: ops.count(op) for op in sorted(set(ops))}
        out[m.group(1)]["vote/shfl/match"] = len(re.findall(r"\b(?:vote|shfl|match|activemask)\.", entry))
    print(json.dumps(out, indent=1))
    Path(sys.argv[2]).write_text(json.dumps({"written_by": "python tools/atomics_ptx.py " + sys.argv[1],
                                             "kernels": out, "environment": environment(dev)},
                                            indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
