"""A graded worker's scratch folder as a sized tmpfs of its own, so that all it writes there is
bounded in total (not only file by file) and goes at once, however deep its trees, when the worker
ends.

Mounting a tmpfs takes the right to mount (CAP_SYS_ADMIN). Root has it. An ordinary user's grader
gets it in a user namespace and a mount namespace of its own (:func:`restart_with_own_mounts`):
the same user, mapped to itself, with that right over its own mounts only. Its mounts are seen by
it and the processes it starts, by no one else, and the kernel removes them with the namespace
when the grader ends, however it ends. The sandbox (bubblewrap) makes its own user namespace inside
that one, as it does outside it.

The kernel gives a namespace only to a process of one thread, and numpy starts threads when it is
imported; so the grader starts again, the same command, from a small program that makes the
namespaces and keeps the right to mount across its ``exec`` (an ambient capability, which the
grader clears at once: its children get none).
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
from pathlib import Path

_NOSUID, _NODEV, _DETACH = 2, 4, 2       # MS_NOSUID, MS_NODEV (mount), MNT_DETACH (umount2)

_SYS_ADMIN = 21                          # CAP_SYS_ADMIN, the right to mount

_MOUNTED: set[Path] = set()      # the scratch tmpfs this process mounted and has not unmounted


@functools.cache
def _libc():
    """The C library, loaded once (each mount and unmount of a grade calls into it)."""
    return ctypes.CDLL(None, use_errno=True)


def can_mount() -> bool:
    """Whether this process may mount a scratch tmpfs: root, or in mounts of its own (its
    effective capabilities hold CAP_SYS_ADMIN)."""
    if os.name != "posix":
        return False
    if os.geteuid() == 0:
        return True
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return False
    caps = next((line.split()[1] for line in status.splitlines() if line.startswith("CapEff:")),
                "0")
    return bool(int(caps, 16) & (1 << _SYS_ADMIN))


# the small program: its namespaces, then the grader's command again, with CAP_SYS_ADMIN kept (in
# the inheritable set, then the ambient one); it says how that went in COURSE_OWN_MOUNTS. A child
# tries the namespaces first: where the kernel gives one but refuses its user's map (AppArmor's
# rule on Ubuntu 23.10 and later), the program itself never enters one it cannot use
_RESTART = r"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.getuid(), os.getgid()

def enter():
    if libc.unshare(0x10000000 | 0x00020000) != 0:
        return "the kernel refused a user namespace (" + os.strerror(ctypes.get_errno()) + ")"
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open("/proc/self/" + name, "w") as f:
                f.write(text)
    except OSError as e:
        return "its user namespace could not map its user (" + (e.strerror or str(e)) + ")"
    return "yes"

read, write = os.pipe()
child = os.fork()
if child == 0:
    os.close(read)
    os.write(write, enter().encode())
    os._exit(0)
os.close(write)
said = os.read(read, 4096).decode() or "the trial of a user namespace said nothing"
os.waitpid(child, 0)
if said == "yes":
    said = enter()
if said == "yes":
    head, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()
    libc.capget(head, data)
    data[2] |= 1 << 21
    if libc.capset(head, data) != 0 or libc.prctl(47, 2, 21, 0, 0) != 0:
        said = "the right to mount was not kept (" + os.strerror(ctypes.get_errno()) + ")"
os.environ.update(COURSE_OWN_MOUNTS=said)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""
_AMBIENT, _CLEAR_ALL = 47, 4      # prctl PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
_CAPS_V3 = 0x20080522             # _LINUX_CAPABILITY_VERSION_3 (capget, capset)
WHY_NOT: list[str] = []           # why this process has no mounts of its own, once it knows


def restart_with_own_mounts() -> str | None:
    """An ordinary user's grader, started from its command line (never a function called inside
    another program, which would run that program again): this process's command again, in
    mounts of its own (see the module), where it may mount each worker's scratch tmpfs; it does
    not return then. Once started again: the capability its ``exec`` kept leaves the sets that
    pass it on (ambient, inheritable), so that nothing it starts gets it, and the variable that
    said so leaves its environment; then None, or the sentence that says why it has no mounts
    of its own (user namespaces off, a rule that forbids them; also in :data:`WHY_NOT`): each
    worker's folder then stays on the disk, its files bounded one by one. Root needs none."""
    from .. import settings
    if os.name != "posix" or not sys.platform.startswith("linux") or os.geteuid() == 0:
        return None
    said = settings.text("COURSE_OWN_MOUNTS")
    if not said:
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-I", "-S", "-c", _RESTART,
                                  *sys.orig_argv[1:]])
    os.environ.pop("COURSE_OWN_MOUNTS", None)
    _keep_to_this_process()
    why = None if can_mount() else (said if said != "yes" else
                                    "the right to mount did not survive the start")
    if why is not None:
        WHY_NOT[:] = [why]
    return why


def _keep_to_this_process() -> None:
    """The right to mount out of the ambient and inheritable sets: this process keeps it (its
    permitted and effective sets), no program it starts gets it."""
    libc = _libc()
    libc.prctl(_AMBIENT, _CLEAR_ALL, 0, 0, 0)
    head, data = (ctypes.c_uint32 * 2)(_CAPS_V3, 0), (ctypes.c_uint32 * 6)()
    if libc.capget(head, data) == 0:
        data[2] = data[5] = 0          # the inheritable set, both words
        libc.capset(head, data)


def mount_scratch(folder: Path, mb: int, uid: int | None) -> bool:
    """``folder`` becomes a tmpfs of ``mb`` MiB, its user's alone (``uid``, run by root; this
    process's user when None), so that all a graded worker writes there is bounded, and goes at
    once, however deep its trees, when it is unmounted (:func:`unmount`). False where it cannot
    be mounted (:func:`can_mount`; the folder then stays on the disk, its files bounded one by
    one)."""
    if not can_mount():
        return False
    owner = f",uid={uid},gid={uid}" if uid is not None else ""
    done = _libc().mount(b"course-scratch", os.fsencode(folder), b"tmpfs", _NOSUID | _NODEV,
                         f"size={mb}m,mode=0700{owner}".encode()) == 0
    if done:
        _MOUNTED.add(folder)
    return done


def unmount(folder: Path) -> None:
    """The scratch tmpfs at ``folder`` detached (its files freed once no process holds one);
    where that fails it stays in :data:`_MOUNTED`, tried again when the grader ends, and is
    said on stderr."""
    if folder in _MOUNTED:
        if _libc().umount2(os.fsencode(folder), _DETACH) == 0:
            _MOUNTED.discard(folder)
        else:
            print(f"could not unmount the scratch tmpfs at {folder}: "
                  f"{os.strerror(ctypes.get_errno())}", file=sys.stderr, flush=True)


def unmount_all() -> None:
    for folder in list(_MOUNTED):
        unmount(folder)
