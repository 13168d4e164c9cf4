"""The workshop recipe (deploy/): each user's copy of the course, their environment, the hub's
configuration as JupyterHub loads it, and the dependency list the TLJH and Kubernetes recipes
install."""

from __future__ import annotations

import os
import subprocess
import sys
import types

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


def test_the_hub_configuration_loads_as_jupyterhub_reads_it():
    traitlets = pytest.importorskip("traitlets.config")
    c = traitlets.Config()
    code = (ROOT / "deploy" / "jupyterhub" / "jupyterhub_config.py").read_text()
    exec(compile(code, "jupyterhub_config.py", "exec"),
         {"get_config": lambda: c, "__file__": str(ROOT / "deploy/jupyterhub/jupyterhub_config.py")})
    assert c.Spawner.pre_spawn_hook is course_setup.pre_spawn_hook
    assert c.Spawner.cmd[0].endswith("bin/jupyterhub-singleuser")
    assert c.Spawner.environment["POCL_MAX_PTHREAD_COUNT"] == "2"


def test_the_recipes_install_pyprojects_dependencies():
    tomllib = pytest.importorskip("tomllib", reason="Python 3.11 reads TOML; the recipes use 3.12")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["intel"]
    assert any(d.startswith("pyopencl") for d in wanted)
    assert any(d.startswith("intel-opencl-rt") for d in wanted)
    for recipe in ("deploy/tljh/install-course.sh", "deploy/kubernetes/Dockerfile"):
        text = (ROOT / recipe).read_text()
        assert 'project["dependencies"] + project["optional-dependencies"].get("intel", [])' in text
