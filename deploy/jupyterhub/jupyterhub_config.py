# A JupyterHub for a workshop of the course on one Linux server (see deploy/README.md).
#
#   sudo /srv/gpgpu-opencl-course/.venv/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py
#
# Users are the server's Linux accounts (PAM); each gets their own copy of the course in their home
# at the first start (course_setup.py), and every server runs from the course's one environment.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import course_setup  # noqa: E402

c = get_config()  # noqa: F821  (JupyterHub provides it)

venv = os.environ.get("COURSE_VENV", str(course_setup.SOURCE / ".venv"))
c.Spawner.cmd = [os.path.join(venv, "bin", "jupyterhub-singleuser")]
c.Spawner.pre_spawn_hook = course_setup.pre_spawn_hook
c.Spawner.environment = dict(course_setup.ENVIRONMENT)
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 120          # the first start of a server builds nothing, but be patient
c.JupyterHub.bind_url = os.environ.get("COURSE_HUB_URL", "http://:8000")
c.Authenticator.allow_all = True      # every account of this server; use allowed_users to narrow
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
