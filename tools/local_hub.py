"""A JupyterHub on this machine with the course's deploy configuration (deploy/jupyterhub/), for
tests and measurements: a dummy login (any password) and every server run by this account under a
home of its own in a temporary folder (JupyterHub's SimpleLocalProcessSpawner), instead of PAM's
accounts; the idle culler left out; a service ``tester`` whose token may start servers and reach them.

    with local_hub(work, {"COURSE_INSTRUCTORS": "teacher"}) as hub: ...   # hub.base, hub.db, ...
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))   # this checkout's helpers
from helpers.paths import ROOT

CONFIG = """
import os
from pathlib import Path
c = get_config()
load_subconfig({deploy!r})
import course_setup
c.JupyterHub.authenticator_class = "dummy"
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{work}/hub.sqlite"
c.JupyterHub.cookie_secret_file = "{work}/cookie_secret"
if os.getuid() == 0:
    c.Spawner.args = ["--allow-root"]

def hook(spawner):
    home = Path({homes!r}) / spawner.user.name
    home.mkdir(parents=True, exist_ok=True)
    copy = course_setup.copy_course(home, source=Path({root!r}))
    spawner.environment.update(course_setup.user_environment(copy))
c.Spawner.pre_spawn_hook = hook
c.JupyterHub.services = [s for s in c.JupyterHub.services if s["name"] != "idle-culler"] + [
    {{"name": "tester", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [r for r in c.JupyterHub.load_roles if r["name"] != "idle-culler"] + [
    {{"name": "tester", "services": ["tester"],
      "scopes": ["admin:users", "admin:servers", "access:servers", "list:users", "tokens"]}}]
"""


@dataclass
class Hub:
    base: str            # the hub's public URL (its proxy)
    token: str           # the tester service's token
    db: Path             # the class view's SQLite
    view: str            # the class view's own URL (not through the proxy)
    work: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proxy_command() -> str:
    import shutil
    found = shutil.which("configurable-http-proxy") or str(
        ROOT / ".venv" / "chp" / "node_modules" / ".bin" / "configurable-http-proxy")
    if not Path(found).exists():
        raise RuntimeError("JupyterHub's proxy is needed: `make test-browser` installs it (npm "
                           "install --prefix .venv/chp configurable-http-proxy)")
    return found


@contextlib.contextmanager
def local_hub(work: Path, env: dict[str, str] | None = None, timeout: float = 120):
    port, hub_port, proxy_port, view_port = (free_port() for _ in range(4))
    (work / "homes").mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(16)
    config = work / "test_config.py"
    config.write_text(CONFIG.format(
        deploy=str(ROOT / "deploy/jupyterhub/jupyterhub_config.py"), homes=str(work / "homes"),
        port=port, hub_port=hub_port, proxy_port=proxy_port, proxy=proxy_command(), work=work,
        root=str(ROOT), token=token))
    db = work / "class-view.sqlite"
    full = {**os.environ, "COURSE_SOURCE": str(ROOT), "COURSE_CLASS_PORT": str(view_port),
            "COURSE_CLASS_DB": str(db),
            "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"],
            **(env or {})}
    full.pop("MPLBACKEND", None)
    log = open(work / "hub.log", "w")
    proc = subprocess.Popen([str(Path(sys.executable).with_name("jupyterhub")), "-f", str(config)],
                            stdout=log, stderr=subprocess.STDOUT, env=full, cwd=work)
    hub = Hub(f"http://127.0.0.1:{port}", token, db,
              f"http://127.0.0.1:{view_port}/services/class-view/", work)

    def up() -> bool:
        urllib.request.urlopen(f"{hub.base}/hub/health", timeout=2)
        try:
            urllib.request.urlopen(hub.view + "events", timeout=2)
        except urllib.error.HTTPError as e:    # the service answers (405 to a GET): it is up
            return e.code == 405
        return False
    try:
        end = time.monotonic() + timeout
        while True:
            try:
                if up():
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError("JupyterHub did not start:\n"
                                   + (work / "hub.log").read_text()[-3000:])
            time.sleep(0.5)
        yield hub
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        stop_what_runs_in(work)


def stop_what_runs_in(work: Path, grace: float = 5.0) -> None:
    """Every process whose folder lies in ``work`` (the hub's users' servers and their kernels,
    which a hub that stops in a hurry leaves running: a spawner starts them in sessions of their
    own) ended: SIGTERM, then SIGKILL after ``grace`` seconds."""
    import signal

    def left() -> list[int]:
        pids = []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                if str(entry.joinpath("cwd").readlink()).startswith(str(work)):
                    pids.append(int(entry.name))
            except OSError:
                continue
        return [p for p in pids if p != os.getpid()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in left():
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        end = time.monotonic() + grace
        while left() and time.monotonic() < end:
            time.sleep(0.2)
