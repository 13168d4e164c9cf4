"""What a workshop hub does for the course, as functions the hub's configuration calls (and the
tests call too): give every user their own copy of the course at their first start, and point their
Python at it.

Why a copy per user: `kernels/` is each learner's workspace and `helpers` finds `kernels/` next to
itself, so the course cannot be one shared installation. The dependencies (pyopencl, PoCL, Intel's
runtime, Oclgrind, JupyterLab) are installed once, in one environment every user's server runs from.

The hub runs the copy as root, in a home its learner owns and may be changing at that very moment
(a learner's process can still be running from an earlier server). So the copy never goes by a path
a learner can change: the home is opened once without following a link, the copy is built inside it
in a staging folder that root makes (0700, reached through its open descriptor only, so a folder
renamed or swapped for a link redirects nothing), every file is created new (never opened through a
link) and given to the learner through its own descriptor, and the whole copy comes into place in
one rename. Whatever already has the copy's name (a copy, a file, a link, dangling or not) is left
as it is: it holds the learner's kernels, or it is the learner's own business. The home ends 0700.

Graded days: with ``COURSE_GRADED=1`` in the hub's environment the learner's copy has no
``solutions/`` (deploy/README.md). Copies made before keep theirs (a copy is never overwritten).
"""

from __future__ import annotations

import fnmatch
import logging
import os
import secrets
import shutil
import stat
from pathlib import Path

SOURCE = Path(os.environ.get("COURSE_SOURCE", "/srv/gpgpu-opencl-course"))
FOLDER = "gpgpu-opencl-course"          # the copy's name in each home
PARTS = ("helpers", "kernels", "solutions", "notebooks", "results", "README.md")
GRADED_VARIABLE = "COURSE_GRADED"       # "1": the learners' copies leave out what GRADED_LEAVES_OUT
GRADED_LEAVES_OUT = ("solutions",)
IGNORED = ("__pycache__", "*.pyc", ".ipynb_*")

# Environment for every user's server. On a shared machine one learner's OpenCL must not take
# every core: PoCL starts a thread per core for each process, so 30 learners checking at once on
# 16 cores would run 480 threads. Two threads each keep a kernel parallel (the course's lessons
# need it) while the load stays near the core count (docs/deployment.md has the measurements).
ENVIRONMENT = {
    "POCL_MAX_PTHREAD_COUNT": "2",
    # a check's Oclgrind cases in one worker: a server's 2 cores are its learner's share of the host
    # (helpers.checking.options.default_oclgrind_workers would count the host's cores)
    "COURSE_OCLGRIND_WORKERS": "1",
    "MPLBACKEND": "module://matplotlib_inline.backend_inline",
}

# JupyterHub's own log (a child of its logger); elsewhere (Kubernetes' hook) warnings go to stderr
log = logging.getLogger("JupyterHub.course_setup")

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def graded() -> bool:
    """Whether the instructor says today is graded (``COURSE_GRADED=1``)."""
    return os.environ.get(GRADED_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}


def parts(graded_day: bool | None = None) -> tuple[str, ...]:
    """The parts of the course a learner's copy gets (no solutions on a graded day)."""
    graded_day = graded() if graded_day is None else graded_day
    return tuple(p for p in PARTS if not (graded_day and p in GRADED_LEAVES_OUT))


def copy_course(home: Path, source: Path = SOURCE, uid: int | None = None,
                gid: int | None = None, *, graded: bool | None = None) -> Path:
    """The user's copy of the course in ``home``, made from ``source`` the first time (never
    overwritten afterwards: it holds the learner's kernels).

    ``uid``/``gid``: the learner's, when root makes the copy (the hub's spawn hook): ``home`` must
    then be a real folder (not a link) that the learner owns. Without them (a server making its
    own copy, as Kubernetes' postStart hook does) the copy belongs to whoever runs this.
    ``graded``: leave out the solutions (default: ``COURSE_GRADED``)."""
    home = Path(home)
    target = home / FOLDER
    home_fd = os.open(home, _DIR)          # a home that is a link is refused here (ELOOP)
    try:
        st = os.fstat(home_fd)
        if uid is not None and st.st_uid != uid:
            raise PermissionError(f"{home} belongs to uid {st.st_uid}, not to uid {uid}: "
                                  f"no copy of the course made in it")
        if uid is not None or st.st_uid == os.geteuid():
            os.fchmod(home_fd, 0o700)      # homes are private: no learner reads another's work
        try:
            there = os.stat(FOLDER, dir_fd=home_fd, follow_symlinks=False)
        except FileNotFoundError:
            there = None
        if there is not None:
            if stat.S_ISLNK(there.st_mode):
                log.warning("%s is a symbolic link: not followed, and no copy of the course "
                            "made through it", target)
            elif not stat.S_ISDIR(there.st_mode):
                log.warning("%s is not a folder: left as it is, no copy of the course made", target)
            return target
        _make_copy(home_fd, target, Path(source), parts(graded), uid, gid)
    finally:
        os.close(home_fd)
    return target


def _make_copy(home_fd: int, target: Path, source: Path, names: tuple[str, ...],
               uid: int | None, gid: int | None) -> None:
    """Build the copy in a staging folder of the home that only root reaches, then rename it into
    place; the learner is given its top folder only once it is there. A staging folder renamed or
    replaced meanwhile (the learner's doing) ends the copy with a warning: nothing is followed."""
    staging = f".{FOLDER}.staging-{secrets.token_hex(8)}"
    os.mkdir(staging, 0o700, dir_fd=home_fd)   # never follows a link: fails if the name exists
    try:
        fd = os.open(staging, _DIR, dir_fd=home_fd)
    except OSError:                            # already a link (ELOOP) or gone
        log.warning("%s: the copy's staging folder was replaced before the copy; no copy made",
                    target)
        return
    try:
        made = os.fstat(fd)
        if made.st_uid != os.geteuid():        # a folder of the learner's, in its name
            log.warning("%s: the copy's staging folder was replaced before the copy; no copy made",
                        target)
            return
        os.fchmod(fd, 0o700)
        try:
            _fill(fd, source, names, uid, gid)
            if _same(home_fd, staging, made):
                os.rename(staging, FOLDER, src_dir_fd=home_fd, dst_dir_fd=home_fd)
        except BaseException:
            _empty(fd)
            if _same(home_fd, staging, made):
                os.rmdir(staging, dir_fd=home_fd)
            raise
        if not _same(home_fd, FOLDER, made):
            # renamed away by the learner (and something of theirs perhaps put in its name, which
            # the rename then moved: theirs, in their home); ours is emptied, an empty root folder
            # left where they moved it, which they may remove
            _empty(fd)
            log.warning("%s: the copy's staging folder was moved during the copy; no copy made",
                        target)
            return
        _give(fd, uid, gid)
        os.fchmod(fd, 0o755)
    finally:
        os.close(fd)


def _same(dir_fd: int, name: str, made: os.stat_result) -> bool:
    """Whether ``name`` in the folder open as ``dir_fd`` is (still) the folder ``made``."""
    try:
        now = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (made.st_dev, made.st_ino)


def _fill(dir_fd: int, source: Path, names: tuple[str, ...], uid: int | None,
          gid: int | None) -> None:
    for name in names:
        try:
            st = os.lstat(source / name)
        except FileNotFoundError:
            continue
        _copy_entry(source / name, st, name, dir_fd, uid, gid)


def _copy_entry(src: Path, st: os.stat_result, name: str, dir_fd: int, uid: int | None,
                gid: int | None) -> None:
    """Copy ``src`` as ``name`` into the folder open as ``dir_fd``: everything created new, by
    descriptor, and given to the learner by descriptor (a link is copied as a link)."""
    if any(fnmatch.fnmatch(name, pattern) for pattern in IGNORED):
        return
    if stat.S_ISDIR(st.st_mode):
        os.mkdir(name, 0o700, dir_fd=dir_fd)
        sub = os.open(name, _DIR, dir_fd=dir_fd)
        try:
            with os.scandir(src) as entries:
                for entry in sorted(entries, key=lambda e: e.name):
                    _copy_entry(Path(entry.path), entry.stat(follow_symlinks=False), entry.name,
                                sub, uid, gid)
            _give(sub, uid, gid)
            os.fchmod(sub, 0o755)
        finally:
            os.close(sub)
    elif stat.S_ISREG(st.st_mode):
        _copy_file(src, name, dir_fd, 0o755 if st.st_mode & 0o111 else 0o644, uid, gid)
    elif stat.S_ISLNK(st.st_mode):
        os.symlink(os.readlink(src), name, dir_fd=dir_fd)
        if uid is not None:
            os.chown(name, uid, -1 if gid is None else gid, dir_fd=dir_fd, follow_symlinks=False)


def _copy_file(src: Path, name: str, dir_fd: int, mode: int, uid: int | None,
               gid: int | None) -> None:
    out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                  0o600, dir_fd=dir_fd)
    with open(src, "rb") as f, os.fdopen(out, "wb") as g:
        shutil.copyfileobj(f, g)
        g.flush()
        _give(g.fileno(), uid, gid)
        os.fchmod(g.fileno(), mode)


def _give(fd: int, uid: int | None, gid: int | None) -> None:
    """Make the learner own what ``fd`` is open on (a descriptor: no path, no link to follow)."""
    if uid is not None:
        os.fchown(fd, uid, -1 if gid is None else gid)


def _empty(dir_fd: int) -> None:
    """Remove everything in the folder open as ``dir_fd`` (ours, unreachable by the learner)."""
    with os.scandir(dir_fd) as entries:
        names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
    for name, is_dir in names:
        if is_dir:
            sub = os.open(name, _DIR, dir_fd=dir_fd)
            try:
                _empty(sub)
            finally:
                os.close(sub)
            os.rmdir(name, dir_fd=dir_fd)
        else:
            os.unlink(name, dir_fd=dir_fd)


def user_environment(copy: Path) -> dict[str, str]:
    """What a user's server needs to import *their* helpers and use their kernels."""
    return {**ENVIRONMENT, "PYTHONPATH": str(copy)}


def prepare(spawner, account: str) -> None:
    """Copy the course into the home of the Linux account ``account``, set the server's environment
    and open JupyterLab on the course's first notebook."""
    import pwd
    entry = pwd.getpwnam(account)
    copy = copy_course(Path(entry.pw_dir), uid=entry.pw_uid, gid=entry.pw_gid)
    spawner.environment.update(user_environment(copy))
    spawner.default_url = f"/lab/tree/{FOLDER}/notebooks/00-host-and-device.ipynb"


def pre_spawn_hook(spawner) -> None:
    """JupyterHub's pre-spawn hook (the hub's users are the server's Linux accounts)."""
    prepare(spawner, spawner.user.name)


def tljh_spawner(base=None):
    """The Littlest JupyterHub's spawner, making the course's copy once TLJH has made the account.

    TLJH makes each user's Linux account (``jupyter-NAME``) in its spawner's ``start``, after the
    pre-spawn hook has run: a pre-spawn hook finds no account at a user's first start. Its
    ``start`` makes the account and returns the server's start (a coroutine not yet run), so the
    copy goes between the two."""
    if base is None:
        from tljh.user_creating_spawner import UserCreatingSpawner as base
    try:
        from tljh.normalize import generate_system_username
    except ImportError:   # TLJH before 0.1 used the name as it was
        def generate_system_username(name: str) -> str:
            return name

    class CourseSpawner(base):
        def start(self):
            started = super().start()
            try:
                prepare(self, generate_system_username("jupyter-" + self.user.name))
            except BaseException:
                getattr(started, "close", lambda: None)()
                raise
            return started

    return CourseSpawner


# --------------------------------------------------------------------------------------------------
# The class view (helpers/hub/service.py): the learners' checks, live, for the instructors

CLASS_VIEW = "class-view"
REPORT_SCOPE = "custom:class-view:report"


def add_class_view(c, python: str, *, port: int | None = None, group: str | None = None,
                   instructors: list[str] | None = None, db: str | None = None) -> str:
    """Have the hub start the class view as one of its services and wire who may do what, on the
    configuration ``c``; returns the URL the learners' servers send their events to.

    - every user, and every user's server (its token), gets the scope to report *their own*
      checks (``custom:class-view:report``; the service takes the learner from the token);
    - the group ``group`` (``COURSE_INSTRUCTORS_GROUP``, default ``instructors``; members from
      ``COURSE_INSTRUCTORS``, comma-separated) gets access to the service; the hub's admins have it
      already; the service itself also refuses anyone else;
    - the service's own token may list the users (the class's rows).

    ``python`` runs the service: the course's environment (it imports ``helpers``)."""
    port = port or int(os.environ.get("COURSE_CLASS_PORT", "10101"))
    group = group or os.environ.get("COURSE_INSTRUCTORS_GROUP", "instructors")
    if instructors is None:
        instructors = [n.strip() for n in os.environ.get("COURSE_INSTRUCTORS", "").split(",")
                       if n.strip()]
    url = f"http://127.0.0.1:{port}"
    env = {"PYTHONPATH": str(SOURCE), "COURSE_INSTRUCTORS_GROUP": group,
           "COURSE_CLASS_DB": db or os.environ.get(
               "COURSE_CLASS_DB", os.path.abspath("class-view.sqlite"))}
    for k in ("COURSE_STUCK_MINUTES", "COURSE_STUCK_FAILS", "COURSE_CLASS_RATE",
              "COURSE_CLASS_REFRESH", "COURSE_CLASS_RECHECK"):
        if k in os.environ:
            env[k] = os.environ[k]
    services = list(c.JupyterHub.get("services", []))
    services.append({"name": CLASS_VIEW, "url": url, "display": True, "oauth_no_confirm": True,
                     "command": [python, "-m", "helpers.hub.service"], "environment": env})
    c.JupyterHub.services = services
    scopes = dict(c.JupyterHub.get("custom_scopes", {}))
    scopes[REPORT_SCOPE] = {"description": "Send the results of one's own exercise checks to the "
                                           "course's class view."}
    c.JupyterHub.custom_scopes = scopes
    c.JupyterHub.load_roles = list(c.JupyterHub.get("load_roles", [])) + [
        {"name": "user", "scopes": ["self", REPORT_SCOPE]},
        # JupyterHub's own server role, and the report (a server's token reports for its user)
        {"name": "server", "scopes": ["users:activity!user", "access:servers!server",
                                      REPORT_SCOPE]},
        {"name": "class-view-instructors", "groups": [group],
         "scopes": [f"access:services!service={CLASS_VIEW}"]},
        {"name": CLASS_VIEW, "services": [CLASS_VIEW],
         "scopes": ["list:users", "read:users:name", "read:users:groups"]},
    ]
    groups = dict(c.JupyterHub.get("load_groups", {}))
    members = set(groups.get(group, {}).get("users", [])) | set(instructors)
    groups[group] = {"users": sorted(members)}
    c.JupyterHub.load_groups = groups
    return f"{url}/services/{CLASS_VIEW}/"
