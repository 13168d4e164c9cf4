"""Record the file lists of the wheels the course's Windows install relies on (Intel's CPU runtime,
TBB, pyopencl's Windows wheel), and the DLLs the runtime's libraries import, into
tests/data/wheel-files/, so that tests can check the layout helpers/platforms.py expects without
downloading anything:

    pip install pefile && python tools/record_wheel_files.py   # downloads the win_amd64 wheels
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

OUT = ROOT / "tests" / "data" / "wheel-files"
WHEELS = ["intel-opencl-rt", "tbb==2023.*", "pyopencl"]
# the DLLs whose imports are recorded too (pefile reads them; pip install pefile beside this tool)
IMPORTS_OF = ("Library/bin/intelocl64.dll", "Library/bin/common_clang64.dll", "Library/bin/tbb12.dll")


def main() -> int:
    imports = {}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--only-binary=:all:", "--platform", "win_amd64", "--python-version",
                        "3.12", *WHEELS, "-d", tmp], check=True)
        for wheel in sorted(Path(tmp).glob("*.whl")):
            z = zipfile.ZipFile(wheel)
            metadata = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            requires = [line.split(":", 1)[1].strip() for line in
                        z.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
            lines = [f"# {wheel.name}: its files, as pip installs them (a .data/data/ path lands "
                     f"in the environment's root)",
                     f"# recorded {datetime.date.today()} from PyPI by tools/record_wheel_files.py",
                     f"# Requires-Dist: {'; '.join(requires) or 'none'}"]
            for name in z.namelist():
                if name.endswith(".icd"):
                    lines.append(f"# {name} holds: {z.read(name).decode().strip()}")
            lines += z.namelist()
            for name in z.namelist():
                if name.split(".data/data/")[-1] in IMPORTS_OF:
                    imports[name.split(".data/data/")[-1]] = _imports(z.read(name))
            stem = wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + "-win_amd64"
            (OUT / f"{stem}.txt").write_text("\n".join(lines) + "\n")
            print(OUT / f"{stem}.txt")
    (OUT / "pe-imports.json").write_text(json.dumps(
        {"recorded": str(datetime.date.today()), "by": "tools/record_wheel_files.py (pefile)",
         "imports": imports}, indent=1) + "\n")
    return 0


def _imports(data: bytes) -> dict:
    """The DLLs a Windows DLL imports, and those it loads late (delay-load)."""
    import pefile
    pe = pefile.PE(data=data, fast_load=True)
    pe.parse_data_directories(directories=[
        pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_IMPORT"],
        pefile.DIRECTORY_ENTRY["IMAGE_DIRECTORY_ENTRY_DELAY_IMPORT"]])
    return {"imports": [e.dll.decode() for e in getattr(pe, "DIRECTORY_ENTRY_IMPORT", [])],
            "delay": [e.dll.decode() for e in getattr(pe, "DIRECTORY_ENTRY_DELAY_IMPORT", [])]}


if __name__ == "__main__":
    sys.exit(main())
