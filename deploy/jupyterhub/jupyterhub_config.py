# A JupyterHub for a workshop of the course on one Linux server (see deploy/README.md).
#
#   sudo /srv/gpgpu-opencl-course/.venv/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py
#
# Users are the server's Linux accounts (PAM); each gets their own copy of the course in their home
# at the first start (course_setup.py: made by root without following any link the learner may have
# put there, then given to them; their home made 0700), and every server runs from the course's one
# environment.
#
# Settings, all in the hub's environment:
#   COURSE_HUB_URL   where the hub listens; default http://127.0.0.1:8000, this machine only, for the
#                    TLS proxy of deploy/README.md in front of it. http://:8000 (every interface,
#                    plain HTTP: passwords and work in clear) only on a closed network.
#   COURSE_GRADED=1  a graded day: the learners' copies made from now on have no solutions/ (and
#                    chmod 700 the solutions/ of the course the hub runs from; it warns otherwise).
#   COURSE_SPAWNER=systemd   each learner's server in a systemd unit with the measured limits
#                    (pip install jupyterhub-systemdspawner); the default spawner cannot limit.
#   COURSE_INSTRUCTORS=ada,alan   who sees the class view besides the hub's admins (the group
#                    COURSE_INSTRUCTORS_GROUP, default instructors); COURSE_CLASS_PORT (10101) and
#                    COURSE_CLASS_DB (class-view.sqlite here) where it listens and keeps the events;
#                    COURSE_STUCK_MINUTES (15) and COURSE_STUCK_FAILS (3) its rule for "stuck".
import os
import sys
from urllib.parse import urlsplit

sys.path.insert(0, os.path.dirname(__file__))
import course_setup  # noqa: E402

c = get_config()  # noqa: F821  (JupyterHub provides it)

venv = os.environ.get("COURSE_VENV", str(course_setup.SOURCE / ".venv"))
c.Spawner.cmd = [os.path.join(venv, "bin", "jupyterhub-singleuser")]
c.Spawner.pre_spawn_hook = course_setup.pre_spawn_hook
c.Spawner.environment = dict(course_setup.ENVIRONMENT)
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 120          # the first start of a server builds nothing, but be patient

# Localhost by default: a TLS proxy (Caddy or nginx, deploy/README.md) faces the network.
c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_URL", "http://127.0.0.1:8000")
if urlsplit(c.JupyterHub.bind_url).hostname not in {"127.0.0.1", "localhost", "::1"}:
    print(f"WARNING: the hub listens on {c.JupyterHub.bind_url} for every machine that can reach "
          f"this one, in plain HTTP: passwords and notebooks cross the network in clear. Do this "
          f"only on a closed network; otherwise unset COURSE_HUB_URL and put the TLS proxy of "
          f"deploy/README.md in front.", file=sys.stderr)

# A graded day: the copies leave solutions/ out; the course the hub runs from must not show them.
_solutions = course_setup.SOURCE / "solutions"
if course_setup.graded() and _solutions.is_dir() and _solutions.stat().st_mode & 0o005:
    print(f"WARNING: COURSE_GRADED is set but {_solutions} is readable by every account: "
          f"chmod 700 {_solutions}", file=sys.stderr)

# Every Linux account of this server may log in. For a class, name the learners instead:
#   c.Authenticator.allow_all = False; c.Authenticator.allowed_users = {"ada", "alan", ...}
c.Authenticator.allow_all = True

# Per-learner memory and CPU. The default spawner (LocalProcessSpawner) does not enforce
# Spawner.mem_limit / cpu_limit (JupyterHub's documentation says so): setting them alone would
# limit nothing. SystemdSpawner runs each server in a systemd unit with MemoryMax and CPUQuota.
# Figures (docs/deployment.md, 30 learners on 2 cores): a check's processes peak at about 400 MiB,
# a learner's idle warm workers hold about 150 MB: 1 GB per learner is plenty, 2 GB at most.
if os.environ.get("COURSE_SPAWNER", "") == "systemd":
    c.JupyterHub.spawner_class = "systemdspawner.SystemdSpawner"
    c.SystemdSpawner.mem_limit = "2G"
    c.SystemdSpawner.cpu_limit = 2.0

# Servers left idle go away (pip install jupyterhub-idle-culler into the same environment):
c.JupyterHub.services = [{
    "name": "idle-culler",
    "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600"],
}]
c.JupyterHub.load_roles = [{
    "name": "idle-culler",
    "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
    "services": ["idle-culler"],
}]

# The class view at /services/class-view/ (helpers/hub/service.py): every learner's check, live,
# for the hub's admins and the group instructors (COURSE_INSTRUCTORS=ada,alan names its members).
# Its events are kept in COURSE_CLASS_DB (default class-view.sqlite where the hub runs).
c.Spawner.environment["COURSE_CLASS_URL"] = course_setup.add_class_view(
    c, os.path.join(venv, "bin", "python"))
