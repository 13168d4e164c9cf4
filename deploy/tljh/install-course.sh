#!/usr/bin/env bash
# The course on The Littlest JupyterHub (one Ubuntu/Debian server, up to ~100 users).
#
#   1. Install TLJH (https://tljh.jupyter.org):
#        curl -L https://tljh.jupyter.org/bootstrap.py | sudo python3 - --admin <admin-name>
#   2. Then, as root, from a clone of the course:
#        sudo deploy/tljh/install-course.sh
#
# It copies the course to /srv/gpgpu-opencl-course, installs its dependencies (not the course
# itself: every user gets their own copy, see ../jupyterhub/course_setup.py) into TLJH's user
# environment, tries every course kernel on this server's devices, and adds the hub configuration.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${COURSE_SOURCE:-/srv/gpgpu-opencl-course}
USER_ENV=${TLJH_USER_ENV:-/opt/tljh/user}
CONFIG_D=${TLJH_CONFIG_D:-/opt/tljh/config/jupyterhub_config.d}
[ -x "$USER_ENV/bin/python" ] || { echo "TLJH's user environment ($USER_ENV) is not there: install TLJH first"; exit 2; }

mkdir -p "$DEST"
cp -r "$SRC"/{helpers,kernels,solutions,notebooks,results,deploy,README.md,pyproject.toml} "$DEST"/
# the dependencies of pyproject.toml (with Intel's CPU runtime on x86-64), read by the environment's
# own Python so that the list is never written twice
"$USER_ENV/bin/python" - "$DEST/pyproject.toml" > /tmp/course-requirements.txt <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"].get("intel", [])))
PY
"$USER_ENV/bin/python" -m pip install --quiet -r /tmp/course-requirements.txt
# every kernel the course ships, on every device of this server (each in its own process)
PYTHONPATH="$DEST" "$USER_ENV/bin/python" -m helpers devices --check || true

mkdir -p "$CONFIG_D"
cat > "$CONFIG_D/gpgpu-opencl-course.py" <<PY
import sys
sys.path.insert(0, "$DEST/deploy/jupyterhub")
import course_setup
c.Spawner.pre_spawn_hook = course_setup.pre_spawn_hook
c.Spawner.environment.update(course_setup.ENVIRONMENT)
PY
tljh-config reload hub
echo "The course is on the hub: each user finds it in ~/gpgpu-opencl-course at their first login."
