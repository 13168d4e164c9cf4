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
# environment, tries every course kernel on this server's devices, adds the hub configuration and
# sets each learner's memory and CPU limits (TLJH applies them as systemd limits, MemoryMax and
# CPUQuota, of each user's server unit).
#
# A graded day (deploy/README.md): run it again with the setting, and without it afterwards:
#        sudo COURSE_GRADED=1 deploy/tljh/install-course.sh
#   The learners' copies made from then on have no solutions/, and the one in /srv is root's alone
#   (0700: the hub, running as root, and the device check still read it). Copies made before keep
#   their solutions: a graded day wants accounts that start that day.
# Limits: COURSE_MEM_LIMIT (default 2G) and COURSE_CPU_LIMIT (default 2), from docs/instructors.md's
# measurements (a check peaks at about 400 MiB, idle warm workers hold about 150 MB).
set -euo pipefail
SRC=$(cd "$(dirname "$0")/../.." && pwd)
DEST=${COURSE_SOURCE:-/srv/gpgpu-opencl-course}
USER_ENV=${TLJH_USER_ENV:-/opt/tljh/user}
CONFIG_D=${TLJH_CONFIG_D:-/opt/tljh/config/jupyterhub_config.d}
case "${COURSE_GRADED:-0}" in 1|true|yes|on) GRADED=1 ;; *) GRADED=0 ;; esac
[ -x "$USER_ENV/bin/python" ] || { echo "TLJH's user environment ($USER_ENV) is not there: install TLJH first"; exit 2; }

umask 022
mkdir -p "$DEST"
# solutions/ is made before anything is copied into it, with its mode: never readable by all, not
# even for a moment, on a graded day
SOLUTIONS_MODE=$([ "$GRADED" = 1 ] && echo 0700 || echo 0755)
install -d -o root -g root -m "$SOLUTIONS_MODE" "$DEST/solutions"
chmod "$SOLUTIONS_MODE" "$DEST/solutions"     # an existing folder too
cp -r "$SRC"/{helpers,kernels,notebooks,results,deploy,README.md,pyproject.toml} "$DEST"/
cp -r "$SRC"/solutions/. "$DEST/solutions/"
# the dependencies of pyproject.toml (with Intel's CPU runtime on x86-64), read by the environment's
# own Python so that the list is never written twice
# (a fresh temporary file: a fixed name in /tmp could be a learner's link)
REQUIREMENTS=$(mktemp)
trap 'rm -f "$REQUIREMENTS"' EXIT
"$USER_ENV/bin/python" - "$DEST/pyproject.toml" > "$REQUIREMENTS" <<'PY'
import sys, tomllib
project = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"].get("intel", [])))
PY
"$USER_ENV/bin/python" -m pip install --quiet -r "$REQUIREMENTS"
# the course's JupyterLab extension (kernel files open as OpenCL C) into the users' environment, then
# every kernel the course ships, on every device of this server (each in its own process)
PYTHONPATH="$DEST" "$USER_ENV/bin/python" -m helpers setup --no-venv || true

mkdir -p "$CONFIG_D"
# TLJH makes each user's account (jupyter-NAME) when their server starts, after JupyterHub's
# pre-spawn hook: the copy is made by TLJH's spawner, extended, once the account exists.
cat > "$CONFIG_D/gpgpu-opencl-course.py" <<PY
import os, sys
sys.path.insert(0, "$DEST/deploy/jupyterhub")
os.environ["COURSE_GRADED"] = "$GRADED"   # written by install-course.sh: run it again to change
import course_setup
c.JupyterHub.spawner_class = course_setup.tljh_spawner()
c.Spawner.environment.update(course_setup.ENVIRONMENT)
# the class view, /services/class-view/ (deploy/README.md): the learners' checks, live
c.Spawner.environment["COURSE_CLASS_URL"] = course_setup.add_class_view(
    c, "$USER_ENV/bin/python", db="$DEST/class-view.sqlite")
PY
tljh-config set limits.memory "${COURSE_MEM_LIMIT:-2G}"
tljh-config set limits.cpu "${COURSE_CPU_LIMIT:-2}"
tljh-config reload hub
echo "The course is on the hub: each user finds it in ~/gpgpu-opencl-course at their first login."
echo "Each user's server: at most ${COURSE_MEM_LIMIT:-2G} of memory and ${COURSE_CPU_LIMIT:-2} cores."
if [ "$GRADED" = 1 ]; then
  echo "Graded: copies made from now on have no solutions/; $DEST/solutions is root's alone."
fi
