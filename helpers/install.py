"""``python -m helpers setup`` and ``python -m helpers lab``: the course's install and start on any
operating system, without make. ``make lab`` and ``make test`` call the same code.

setup: a virtual environment (``.venv``), pip's install of the course with the extras this platform
gets (:mod:`helpers.platforms`: Intel's CPU runtime on Linux x86-64 and Windows), the warp
model's Oclgrind plugin (:mod:`helpers.warp.build`; where it cannot be built, a sentence says why),
then the device check (every course kernel on every device found). A stamp in the environment
remembers the install; it is done again when ``pyproject.toml`` changes. lab: setup if needed,
the device table (once: an install prints it already), then JupyterLab rooted at the course folder (so that
``kernels/`` is in its file browser beside ``notebooks/``), opening notebook 00. ``--no-venv``
uses the running Python's environment as it is (conda's, Binder's): nothing is installed by pip.

The course's JupyterLab extension (``helpers/lab/``: kernel files open as OpenCL C) is copied into
the environment's ``share/jupyter/labextensions`` by every setup and lab, where JupyterLab finds it
however it is started.

Standard library only: this runs before anything is installed.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import secrets
import shutil
import socket
import subprocess
import sys
import venv
from pathlib import Path

from .paths import ROOT
from .platforms import this_platform

MINIMUM = (3, 10)
FIRST_NOTEBOOK = "notebooks/00-host-and-device.ipynb"
LAB_EXTENSION = ROOT / "helpers" / "lab" / "gpgpu-opencl-course"


def venv_python(env: Path, windows: bool | None = None) -> Path:
    """The environment's interpreter (``Scripts\\python.exe`` on Windows, ``bin/python`` else)."""
    windows = os.name == "nt" if windows is None else windows
    return env / ("Scripts/python.exe" if windows else "bin/python")


def extras(intel: bool = True, system: str | None = None, machine: str | None = None
           ) -> tuple[str, ...]:
    """The extras this platform installs (``intel=False``: without Intel's CPU runtime)."""
    row = this_platform(system, machine)
    chosen = row.pip_extras if row is not None else ()
    return tuple(e for e in chosen if intel or e != "intel")


def stamp(env: Path, chosen: tuple[str, ...]) -> Path:
    """The file that says this environment holds this install (the name make knows too)."""
    return env / (".installed" + "".join(f"-{e}" for e in chosen))


def up_to_date(env: Path, chosen: tuple[str, ...]) -> bool:
    mark = stamp(env, chosen)
    return mark.is_file() and mark.stat().st_mtime >= (ROOT / "pyproject.toml").stat().st_mtime


def plan(env: Path, chosen: tuple[str, ...]) -> list[list[str]]:
    """The commands the install runs, in order (after the environment is created)."""
    py = str(venv_python(env))
    target = "." + (f"[{','.join(chosen)}]" if chosen else "")
    return [[py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
            [py, "-m", "pip", "install", "--quiet", "-e", target],
            # the warp model's Oclgrind plugin (never fails; with no C++ compiler, pip's ziglang)
            [py, "-m", "helpers.warp.build", "--fetch-compiler"],
            [py, "-m", "helpers", "devices", "--check", "--brief"]]


STEPS = ("pip: a current pip",
         "pip: the course's packages (pyopencl, PoCL, Oclgrind, JupyterLab, ...)",
         "the warp model: building its Oclgrind plugin",
         "the device check: every kernel of the course on every device")


class Ticker:
    """Says a step's name, then every ``every`` seconds that it is still going, until it ends: no
    wait of an install is silent for longer (a line each time; on a terminal one line, rewritten)."""

    def __init__(self, label: str, every: float | None = 10.0, out=None):
        import threading
        self.label, self.every, self.out = label, every, out or sys.stdout
        self.tty = hasattr(self.out, "isatty") and self.out.isatty()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)

    def _tick(self) -> None:
        import time
        started = time.monotonic()
        while self.every and not self.stop.wait(self.every):
            line = f"  ... {self.label}: {time.monotonic() - started:.0f} s"
            print(("\r" + line) if self.tty else line, end="" if self.tty else "\n",
                  file=self.out, flush=True)

    def __enter__(self) -> Ticker:
        print(f"- {self.label}", file=self.out, flush=True)
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        if self.tty:
            print(file=self.out, flush=True)


# JupyterLab's settings the course overrides (share/jupyter/lab/settings/overrides.json): its offer
# to fetch Jupyter's news, a question that means nothing to a learner in their first minutes
LAB_SETTINGS = {"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                                "checkForUpdates": False}}


def override_lab_settings(prefix: Path | str) -> None:
    """Merge :data:`LAB_SETTINGS` into ``prefix``'s overrides.json, keeping whatever else is
    there (a hub's or conda's own overrides)."""
    import json
    path = Path(prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    try:
        current = json.loads(path.read_text(encoding="utf-8"))
        current = current if isinstance(current, dict) else {}
    except (OSError, ValueError):
        current = {}
    merged = {**current, **{k: {**current.get(k, {}), **v} for k, v in LAB_SETTINGS.items()}}
    if merged != current:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(merged, indent=2) + "\n", encoding="utf-8")


def install_lab_extension(prefix: Path | str) -> bool:
    """Copy the course's JupyterLab extension into ``prefix``'s share/jupyter/labextensions (a
    copy, not a link: Windows makes links only with special rights), and the course's settings
    into its overrides.json. True when the extension changed."""
    override_lab_settings(prefix)
    target = Path(prefix) / "share" / "jupyter" / "labextensions" / LAB_EXTENSION.name
    files = [p.relative_to(LAB_EXTENSION) for p in LAB_EXTENSION.rglob("*") if p.is_file()]
    if target.is_dir() and all((target / f).is_file() and filecmp.cmp(LAB_EXTENSION / f, target / f,
                                                                       shallow=False)
                               for f in files):
        return False
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(LAB_EXTENSION, target)
    return True


def setup(env: Path | str = ".venv", intel: bool = True, force: bool = False,
          run=subprocess.run) -> int:
    """Create ``env`` and install the course into it; 0 when done (or already up to date)."""
    if sys.version_info < MINIMUM:
        print(f"Python {MINIMUM[0]}.{MINIMUM[1]} or newer is needed (this is "
              f"{sys.version.split()[0]}): run this command with a newer python", file=sys.stderr)
        return 2
    env = Path(env)
    env = env if env.is_absolute() else ROOT / env
    chosen = extras(intel)
    if not force and up_to_date(env, chosen):
        install_lab_extension(env)
        print(f"The course is installed in {env} (delete {stamp(env, chosen).name} there to "
              f"install again).")
        return 0
    row = this_platform()
    print(f"Installing the course into {env} for {row.name if row else 'this platform'}"
          + (f", with {', '.join(chosen)}" if chosen else "") + " ...")
    if not venv_python(env).is_file():
        venv.EnvBuilder(with_pip=True).create(env)
    install_lab_extension(env)
    for label, command in zip(STEPS, plan(env, chosen), strict=True):
        # the device check draws its own progress bar
        with Ticker(label, every=None if "--check" in command else 10.0):
            done = run(command, cwd=ROOT)
        if done.returncode != 0:
            print(f"error: {' '.join(command[1:])} failed (exit code {done.returncode})",
                  file=sys.stderr)
            return done.returncode or 1
    for old in env.glob(".installed*"):
        old.unlink()
    stamp(env, chosen).touch()
    return 0


def setup_here(check: bool = True, run=subprocess.run) -> int:
    """``setup --no-venv``: the running Python's environment (conda's, Binder's, a hub's) as it
    is: the course's JupyterLab extension copied into it, then (``check``) the device check."""
    install_lab_extension(sys.prefix)
    run([sys.executable, "-m", "helpers.warp.build", "--fetch-compiler"], cwd=ROOT)
    if not check:
        return 0
    return run([sys.executable, "-m", "helpers", "devices", "--check"], cwd=ROOT).returncode


def free_port(first: int = 8888) -> int:
    """The first port from ``first`` on that nothing listens on (JupyterLab's own rule)."""
    for port in range(first, first + 100):
        with socket.socket() as s:
            try:
                s.bind(("", port))
            except OSError:
                continue
            return port
    return first


def lab_command(python: Path, port: int, headless: bool = False,
                is_root: bool | None = None) -> list[str]:
    """The command that starts JupyterLab at the course folder; the course opens the browser
    itself (:func:`lab`), on notebook 00 with the file browser at the course folder."""
    if is_root is None:
        is_root = hasattr(os, "geteuid") and os.geteuid() == 0
    # JupyterLab's start-up lines mean nothing to a learner (the course prints where it is open):
    # warnings and errors only
    command = [str(python), "-m", "jupyter", "lab", f"--ServerApp.root_dir={ROOT}",
               f"--port={port}", "--no-browser", "--ServerApp.log_level=WARN",
               "--LabApp.log_level=WARN"]
    if headless:
        command.append("--ip=0.0.0.0")
    if is_root:
        command.append("--allow-root")
    return command


def first_page(port: int, token: str) -> str:
    """Notebook 00, the file browser showing the course folder (kernels/ beside notebooks/)."""
    return (f"http://127.0.0.1:{port}/lab/tree/{FIRST_NOTEBOOK}?file-browser-path=/"
            f"&token={token}")


def serve(command: list[str], url: str, headless: bool, port: int) -> int:
    """Run JupyterLab until it stops; once it answers, print ``url`` and (not headless) open it
    in the browser. Ctrl-C is JupyterLab's alone (its "Shutdown this Jupyter server?" question)."""
    import signal
    import time
    import urllib.request
    import webbrowser
    proc = subprocess.Popen(command, cwd=ROOT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # after the start: JupyterLab sets its own
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token="
                                   f"{os.environ['JUPYTER_TOKEN']}", timeout=2)
            break
        except OSError:
            time.sleep(0.5)
    if proc.poll() is None:
        print(f"\nThe course is open at {url}" + ("\n(from another machine: this machine's name "
              "or address in place of 127.0.0.1)" if headless else "") + "\n", flush=True)
        if not headless:
            webbrowser.open(url)
    return proc.wait()


def lab(env: Path | str | None = ".venv", intel: bool = True, port: int | None = None,
        headless: bool = False, run=subprocess.run) -> int:
    """Install if needed, print the devices (once), open JupyterLab (until it is stopped).
    ``env=None``: the running Python's environment as it is (conda's): nothing installed by pip."""
    if env is None:
        python = Path(sys.executable)
        install_lab_extension(sys.prefix)
        run([str(python), "-m", "helpers", "devices"], cwd=ROOT)
    else:
        env = Path(env)
        env = env if env.is_absolute() else ROOT / env
        was_installed = up_to_date(env, extras(intel))
        code = setup(env, intel, run=run)
        if code:
            return code
        python = venv_python(env)
        if was_installed:      # an install has just printed the table with the device check
            run([str(python), "-m", "helpers", "devices"], cwd=ROOT)
    port = port or free_port()
    os.environ.setdefault("JUPYTER_TOKEN", secrets.token_hex(24))   # JupyterLab reads it too
    command = lab_command(python, port, headless)
    if run is not subprocess.run:
        return run(command, cwd=ROOT).returncode
    return serve(command, first_page(port, os.environ["JUPYTER_TOKEN"]), headless, port)


def add_arguments(p: argparse.ArgumentParser, lab_too: bool) -> None:
    p.add_argument("--venv", default=".venv", help="the environment's folder (default .venv)")
    p.add_argument("--no-intel", action="store_true",
                   help="leave Intel's CPU runtime out (a smaller install)")
    p.add_argument("--no-venv", action="store_true",
                   help="use this Python's environment as it is (conda, Binder): no .venv, "
                        "nothing installed by pip")
    if lab_too:
        p.add_argument("--port", type=int, help="JupyterLab's port (default 8888 or the next free)")
        p.add_argument("--headless", action="store_true",
                       help="on a server: no browser, listen on all interfaces")
    else:
        p.add_argument("--force", action="store_true", help="install again even if up to date")
        p.add_argument("--no-check", action="store_true",
                       help="with --no-venv: leave the device check out (a graded day's image)")
