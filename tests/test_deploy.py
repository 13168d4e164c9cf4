"""The workshop recipe (deploy/): each user's copy of the course, their environment, the hub's
configuration as JupyterHub loads it, and the dependency list the TLJH and Kubernetes recipes
install. And that the copy, made by root in a home the learner owns, gives the learner no way up:
their process swaps folders and files for links while root copies, and nothing outside the home
changes."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import stat
import subprocess
import sys
import types
from pathlib import Path

import pytest

from .conftest import ROOT

sys.path.insert(0, str(ROOT / "deploy" / "jupyterhub"))
import course_setup  # noqa: E402

pytestmark = pytest.mark.once   # no device: run with one CPU implementation


def test_each_user_gets_a_copy_that_is_never_overwritten(tmp_path):
    copy = course_setup.copy_course(tmp_path, source=ROOT)
    assert (copy / "kernels" / "float_copy.cl").is_file()
    assert (copy / "notebooks" / "00-host-and-device.ipynb").is_file()
    assert (copy / "helpers" / "__init__.py").is_file()
    assert not list(copy.rglob("__pycache__"))
    (copy / "kernels" / "float_copy.cl").write_text("// my work\n")
    course_setup.copy_course(tmp_path, source=ROOT)  # the second start
    assert (copy / "kernels" / "float_copy.cl").read_text() == "// my work\n"


def test_the_users_python_finds_the_users_kernels(tmp_path):
    copy = course_setup.copy_course(tmp_path, source=ROOT)
    env = {**os.environ, **course_setup.user_environment(copy)}
    out = subprocess.run([sys.executable, "-c", "import helpers.kernels as k; print(k.KERNELS)"],
                         env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(copy / "kernels")
    assert env["POCL_MAX_PTHREAD_COUNT"] == "2"
    # a server's 2 cores: one Oclgrind worker a check, whatever the host's cores
    assert env["COURSE_OCLGRIND_WORKERS"] == "1"


def test_the_pre_spawn_hook_copies_and_sets_the_environment(tmp_path, monkeypatch):
    import pwd
    entry = types.SimpleNamespace(pw_dir=str(tmp_path), pw_uid=os.getuid(), pw_gid=os.getgid())
    monkeypatch.setattr(pwd, "getpwnam", lambda name: entry)
    monkeypatch.setattr(course_setup, "SOURCE", ROOT)
    monkeypatch.setattr(course_setup.copy_course, "__defaults__", (ROOT, None, None))
    spawner = types.SimpleNamespace(user=types.SimpleNamespace(name="ada"), environment={},
                                    default_url="")
    course_setup.pre_spawn_hook(spawner)
    assert spawner.environment["PYTHONPATH"] == str(tmp_path / "gpgpu-opencl-course")
    assert spawner.default_url.endswith("/notebooks/00-host-and-device.ipynb")
    assert (tmp_path / "gpgpu-opencl-course" / "kernels").is_dir()


def hub_configuration():
    """The plain hub's configuration, as JupyterHub loads it (in the current environment)."""
    traitlets = pytest.importorskip("traitlets.config")
    c = traitlets.Config()
    code = (ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py").read_text()
    exec(compile(code, "jupyterhub_config.py", "exec"),
         {"get_config": lambda: c, "__file__": str(ROOT / "deploy/jupyterhub/jupyterhub_config.py")})
    return c


def test_the_hub_configuration_loads_as_jupyterhub_reads_it(monkeypatch):
    monkeypatch.delenv("COURSE_SPAWNER", raising=False)
    c = hub_configuration()
    assert c.Spawner.pre_spawn_hook is course_setup.pre_spawn_hook
    assert c.Spawner.cmd[0].endswith("bin/jupyterhub-singleuser")
    assert c.Spawner.environment["POCL_MAX_PTHREAD_COUNT"] == "2"
    # the class view: started by the hub, reached by the servers, wired by the hub's own roles
    view = next(s for s in c.JupyterHub.services if s["name"] == "class-view")
    assert view["command"][-2:] == ["-m", "helpers.hub.service"]
    assert c.Spawner.environment["COURSE_CLASS_URL"] == f"{view['url']}/services/class-view/"
    roles = {r["name"]: r for r in c.JupyterHub.load_roles}
    assert "custom:class-view:report" in roles["server"]["scopes"]      # a server reports
    assert "custom:class-view:report" in roles["user"]["scopes"]        # ... for its user
    assert roles["class-view-instructors"] == {
        "name": "class-view-instructors", "groups": ["instructors"],
        "scopes": ["access:services!service=class-view"]}
    assert not any("access:services" in sc for r in ("user", "server") for sc in roles[r]["scopes"])
    # the default spawner enforces no limit: none is set as if it did
    assert "mem_limit" not in c.Spawner and "spawner_class" not in c.JupyterHub


def test_the_hub_listens_on_localhost_unless_told_and_then_says_so(monkeypatch, capsys):
    monkeypatch.delenv("COURSE_HUB_URL", raising=False)
    assert hub_configuration().JupyterHub.bind_url == "http://127.0.0.1:8000"
    assert "WARNING" not in capsys.readouterr().err
    monkeypatch.setenv("COURSE_HUB_URL", "http://:8000")
    assert hub_configuration().JupyterHub.bind_url == "http://:8000"
    assert "only on a closed network" in capsys.readouterr().err


def test_systemd_spawner_sets_the_measured_limits(monkeypatch):
    monkeypatch.setenv("COURSE_SPAWNER", "systemd")
    c = hub_configuration()
    assert c.JupyterHub.spawner_class == "systemdspawner.SystemdSpawner"
    assert (c.SystemdSpawner.mem_limit, c.SystemdSpawner.cpu_limit) == ("2G", 2.0)


def test_every_recipe_limits_a_learner_with_the_measured_figures():
    yaml = pytest.importorskip("yaml")
    user = yaml.safe_load((ROOT / "deploy/kubernetes/values.yaml").read_text())["singleuser"]
    assert user["cpu"] == {"guarantee": 0.1, "limit": 2}
    assert user["memory"] == {"guarantee": "1G", "limit": "2G"}
    assert user["extraEnv"]["COURSE_OCLGRIND_WORKERS"] == "1"
    tljh = (ROOT / "deploy/tljh/install-course.sh").read_text()
    assert 'tljh-config set limits.memory "${COURSE_MEM_LIMIT:-2G}"' in tljh
    assert 'tljh-config set limits.cpu "${COURSE_CPU_LIMIT:-2}"' in tljh
    assert "course_setup.tljh_spawner()" in tljh


def test_tljh_copies_once_its_spawner_has_made_the_account(tmp_path, monkeypatch):
    """TLJH makes the account jupyter-NAME in its spawner's start, after the pre-spawn hook."""
    import pwd
    accounts = {}

    class TLJHStandIn:           # what TLJH's UserCreatingSpawner does, in the same order
        def __init__(self):
            self.user = types.SimpleNamespace(name="ada")
            self.environment, self.default_url = {}, ""

        def start(self):
            accounts["jupyter-ada"] = types.SimpleNamespace(pw_dir=str(tmp_path), pw_uid=os.getuid(),
                                                            pw_gid=os.getgid())

            async def start_server():
                return ("127.0.0.1", 9999)
            return start_server()

    monkeypatch.setattr(pwd, "getpwnam", lambda name: accounts[name])
    monkeypatch.setattr(course_setup.copy_course, "__defaults__", (ROOT, None, None))
    spawner = course_setup.tljh_spawner(TLJHStandIn)()
    assert asyncio.run(spawner.start()) == ("127.0.0.1", 9999)
    assert (tmp_path / course_setup.FOLDER / "kernels").is_dir()
    assert spawner.environment["PYTHONPATH"] == str(tmp_path / course_setup.FOLDER)


# --------------------------------------------------------------------------------------------------
# The copy as root, against the learner.

LEARNER = 12345           # a uid (and gid) with no account: root can give it files, and become it

as_root = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                             reason="giving files to a learner and acting as one needs root")


def small_course(folder: Path) -> Path:
    """A course of a few files in the layout of the real one (the attacks run at every step)."""
    for name, text in {"helpers/__init__.py": "", "kernels/a.cl": "// a\n",
                       "kernels/studies/b.cl": "// b\n", "solutions/a.cl": "// solved\n",
                       "notebooks/00-host-and-device.ipynb": "{}", "README.md": "# course\n"}.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def tree(top: Path) -> dict:
    """Every entry of ``top``, links not followed: owner, group, mode, and a file's digest or a
    link's target."""
    out = {}
    for folder, dirs, files in os.walk(top, followlinks=False):
        for path in [Path(folder), *(Path(folder) / n for n in dirs + files)]:
            st = path.lstat()
            what = (os.readlink(path) if path.is_symlink() else
                    hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None)
            out[str(path.relative_to(top))] = (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode), what)
    return out


def places(tmp_path: Path, home_mode: int = 0o755) -> tuple[Path, Path, Path]:
    """A learner's home, the course, and a folder outside the home (root's, with a file, a folder
    and folders named like the course's) that a followed link would reach."""
    home = tmp_path / "home"
    home.mkdir(mode=home_mode, parents=True)
    os.chmod(home, home_mode)
    os.chown(home, LEARNER, LEARNER)
    outside = tmp_path / "outside"
    for name in ("kernels", "helpers", "solutions", "notebooks", "etc"):
        (outside / name).mkdir(parents=True)
        (outside / name / "secret").write_text("root's\n")
    (outside / "secret").write_text("root's\n")
    return home, small_course(tmp_path / "course"), outside


def act_as_learner(home: Path, outside: Path) -> None:
    """What a process of the learner's can do in their home, run as the learner (the kernel's own
    permission checks): every folder and file it may rename becomes a link to ``outside`` (or to a
    file there), and every folder it may enter is searched for more."""
    def swap_all(folder: str) -> None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".moved") or os.path.islink(path):
                continue
            moved, is_dir = path + ".moved", os.path.isdir(path)
            try:
                os.rename(path, moved)
                os.symlink(str(outside if is_dir else outside / "secret"), path)
            except OSError:
                moved = path
            if is_dir:
                swap_all(moved)

    pid = os.fork()
    if pid == 0:                     # the learner's process
        code = 1
        try:
            os.chdir(home)
            os.setgroups([])
            os.setgid(LEARNER)
            os.setuid(LEARNER)
            swap_all(".")
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, "the learner's process failed"


class Interleaved:
    """course_setup's ``os``, the learner acting before each of its steps that changes a file."""
    STEPS = {"open", "mkdir", "rename", "replace", "symlink", "chown", "fchown", "lchown", "chmod",
             "fchmod", "unlink", "rmdir"}

    def __init__(self, act):
        self.act = act

    def __getattr__(self, name):
        real = getattr(os, name)
        if name not in self.STEPS:
            return real

        def step(*args, **kwargs):
            self.act()
            return real(*args, **kwargs)
        return step


@as_root
def test_a_learner_swapping_links_in_at_any_step_of_the_copy_changes_nothing_outside_the_home(
        tmp_path, monkeypatch, caplog):
    """The learner's process acts before one step of root's copy (each step in turn, then before
    every step), after the copy, and at the next start."""
    steps = []
    monkeypatch.setattr(course_setup, "os", Interleaved(lambda: steps.append(1)))
    course_setup.copy_course(places(tmp_path / "count")[0], tmp_path / "count" / "course",
                             uid=LEARNER, gid=LEARNER)
    assert len(steps) > 10
    for when in [*range(len(steps)), "every"]:
        home, source, outside = places(tmp_path / str(when))
        before = {"outside": tree(outside), "course": tree(source)}
        done = []

        def learner(when=when, home=home, outside=outside, done=done):
            if when == "every" or len(done) == when:
                act_as_learner(home, outside)
            done.append(1)
        monkeypatch.setattr(course_setup, "os", Interleaved(learner))
        caplog.clear()
        made, error = False, None
        with caplog.at_level(logging.WARNING):
            try:
                course_setup.copy_course(home, source, uid=LEARNER, gid=LEARNER)
                monkeypatch.setattr(course_setup, "os", os)
                copy = home / course_setup.FOLDER
                made = copy.is_dir() and not copy.is_symlink()
                if made:            # all of it, all the learner's
                    assert {(e[0], e[1]) for e in tree(copy).values()} == {(LEARNER, LEARNER)}
                    assert (copy / "kernels" / "studies" / "b.cl").read_text() == "// b\n"
                act_as_learner(home, outside)
                course_setup.copy_course(home, source, uid=LEARNER, gid=LEARNER)   # next start
            except OSError as e:    # said after what matters: whether anything outside changed
                error = e
            finally:
                monkeypatch.setattr(course_setup, "os", os)
        assert {"outside": tree(outside), "course": tree(source)} == before, when
        for folder, dirs, files in os.walk(tmp_path / str(when), followlinks=False):
            for name in dirs + files:          # nothing outside the home given to the learner
                path = Path(folder) / name
                if path != home and home not in path.parents:
                    assert path.lstat().st_uid != LEARNER, (when, path)
        assert error is None, (when, error)
        assert made or (home / course_setup.FOLDER).is_symlink() or "no copy made" in caplog.text
        assert stat.S_IMODE(home.lstat().st_mode) == 0o700


@as_root
@pytest.mark.parametrize("link_to", ["outside", "outside/new"])   # a folder; a dangling link
def test_a_link_in_the_copys_place_is_neither_followed_nor_given(tmp_path, caplog, link_to):
    home, source, outside = places(tmp_path)
    before = tree(outside)
    (home / course_setup.FOLDER).symlink_to(tmp_path / link_to)
    with caplog.at_level(logging.WARNING):
        target = course_setup.copy_course(home, source, uid=LEARNER, gid=LEARNER)
    assert target == home / course_setup.FOLDER
    assert os.readlink(target) == str(tmp_path / link_to)
    assert (target.lstat().st_uid, tree(outside)) == (0, before)
    assert not (outside / "new").exists()
    assert "symbolic link" in caplog.text
    assert sorted(p.name for p in home.iterdir()) == [course_setup.FOLDER]   # no staging left


@as_root
def test_the_learners_copy_is_theirs_in_a_home_of_0700(tmp_path):
    home, source, _ = places(tmp_path, home_mode=0o755)
    copy = course_setup.copy_course(home, source, uid=LEARNER, gid=LEARNER)
    assert stat.S_IMODE(home.lstat().st_mode) == 0o700
    owners = {(e[0], e[1]) for e in tree(copy).values()}
    assert owners == {(LEARNER, LEARNER)}
    assert (copy / "kernels" / "studies" / "b.cl").read_text() == "// b\n"
    assert sorted(p.name for p in home.iterdir()) == [course_setup.FOLDER]   # no staging left
    with pytest.raises(PermissionError):          # a home that is not the learner's is refused
        course_setup.copy_course(source, source, uid=LEARNER, gid=LEARNER)
    link = tmp_path / "home-link"
    link.symlink_to(home)
    with pytest.raises(OSError):                  # and so is a home that is a link
        course_setup.copy_course(link, source, uid=LEARNER, gid=LEARNER)


def test_a_graded_day_leaves_the_solutions_out(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_GRADED", "1")
    (tmp_path / "graded").mkdir()
    copy = course_setup.copy_course(tmp_path / "graded", source=ROOT)
    assert (copy / "kernels" / "float_copy.cl").is_file() and not (copy / "solutions").exists()
    monkeypatch.delenv("COURSE_GRADED")
    (tmp_path / "open").mkdir()
    copy = course_setup.copy_course(tmp_path / "open", source=ROOT)
    assert (copy / "solutions" / "float_copy.cl").is_file()
    assert "solutions" not in course_setup.parts(graded_day=True)


def test_a_graded_hub_warns_while_its_courses_solutions_are_readable_by_all(tmp_path, monkeypatch,
                                                                             capsys):
    (tmp_path / "solutions").mkdir(mode=0o755)
    os.chmod(tmp_path / "solutions", 0o755)
    monkeypatch.setattr(course_setup, "SOURCE", tmp_path)
    monkeypatch.setenv("COURSE_GRADED", "1")
    hub_configuration()
    assert "readable by every account" in capsys.readouterr().err
    os.chmod(tmp_path / "solutions", 0o700)
    hub_configuration()
    assert "readable by every account" not in capsys.readouterr().err


def test_the_recipes_install_pyprojects_dependencies():
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads TOML; the recipes use 3.12")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["intel"]
    assert any(d.startswith("pyopencl") for d in wanted)
    assert any(d.startswith("intel-opencl-rt") for d in wanted)
    for recipe in ("deploy/tljh/install-course.sh", "deploy/kubernetes/Dockerfile"):
        text = (ROOT / recipe).read_text()
        assert 'project["dependencies"] + project["optional-dependencies"].get("intel", [])' in text


def test_a_graded_days_copy_checks_and_measures_without_the_solutions(tmp_path):
    """No solutions/ in the copy: a passed performance exercise is timed with no target (never
    against itself as "the solution"), a measurement before the kernel passes says why it cannot
    run, and the device check leaves the solutions out."""
    copy = course_setup.copy_course(tmp_path, source=ROOT, graded=True)
    assert not (copy / "solutions").exists()
    (copy / "kernels" / "transpose.cl").write_text((ROOT / "solutions" / "transpose.cl").read_text())
    env = {**os.environ, **course_setup.user_environment(copy), "COURSE_SMALL": "1",
           "COURSE_CACHE": str(tmp_path / "cache")}

    def python(code: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], env=env, cwd=copy, capture_output=True,
                              text=True, timeout=600)

    measured = python("from helpers.exercises.passed import kernel_to_measure\n"
                      "kernel_to_measure('transpose')")
    assert "This cell measures your transpose once it passes check(\"transpose\")" in \
        measured.stderr and "the solutions are not on this server" in measured.stderr
    out = python("from helpers.checking import run_check\n"
                 "r = run_check('transpose')\n"
                 "print(r.passed); print(r.message); print(sorted(r.speed_pass.speed))")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "True" and lines[-1] == "['solution', 'yours']", out.stdout
    assert "No target to compare with: the solutions are not on this server" in out.stdout
    assert "the solution reaches" not in out.stdout
    assert "FileNotFoundError" not in out.stdout + out.stderr
    after = python("from helpers.exercises.passed import kernel_to_measure\n"
                   "print(kernel_to_measure('transpose'))")
    assert after.stdout.strip() == str(copy / "kernels" / "transpose.cl"), after.stderr
    found = python("from helpers.checking.devcheck import items\nprint(list(items()))")
    assert found.returncode == 0, found.stderr
    assert "'solution " not in found.stdout and "demo scale" in found.stdout
    assert "'given " in found.stdout   # the slow kernels the exercises start from are there
