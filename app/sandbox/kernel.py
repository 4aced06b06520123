"""Kernel layers of the sandbox (the real boundary): network namespace, capabilities, Landlock, seccomp.

Every function here is best effort: it returns a short description of what it applied, or of why
it could not (an unprivileged container may forbid namespaces or Landlock), so that each run can
report which layers were active. Syscall numbers are the x86_64/aarch64 generic ones.
"""
from __future__ import annotations

import ctypes
import os
import resource

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_THREAD = 0x00010000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1


def _errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def prctl(option: int, arg: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), _errno_text())


# ---- network namespace (applied once, in the zygote: every run inherits an empty network) ----

def isolate_network() -> str:
    """Move this process into a new network namespace with no interfaces but a down loopback."""
    if os.geteuid() == 0:
        if _libc.unshare(CLONE_NEWNET) == 0:
            return "network namespace"
        return f"no network namespace ({_errno_text()})"
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return f"no network namespace ({_errno_text()})"
    # Map our own ids so that files and signals still belong to the same user as before.
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)
    except OSError as exc:
        # Unmapped, this process would act as the overflow user: refuse to serve like that.
        raise SystemExit(f"Dagscope: could not map ids in the sandbox's user namespace: {exc}") from exc
    return "network namespace (user namespace)"


# ---- the scratch folder on a size-limited tmpfs (a run cannot fill the disk) ----------------

MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 16384, 1 << 18


def scratch_on_tmpfs(path: str, size_mb: int) -> str:
    """Give this process its own mount namespace with a tmpfs of `size_mb` over `path`; the
    tmpfs and whatever the run wrote in it vanish with the process."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        return f"scratch on disk ({_errno_text()})"
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return f"scratch on disk ({_errno_text()})"
    options = f"size={size_mb}m,mode=0700".encode()
    if _libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        return f"scratch on disk ({_errno_text()})"
    return f"scratch tmpfs {size_mb} MB"


# ---- resource limits -------------------------------------------------------------------------

def set_rlimits(*, cpu_s: int, memory_mb: int, file_mb: int, open_files: int, processes: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    mem = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    size = file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # RLIMIT_NPROC counts every process of the user; root is exempt from it, so it only binds
    # an unprivileged server. seccomp below forbids fork anyway; this is the backstop.
    resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


# ---- capabilities ------------------------------------------------------------------------------

class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_capabilities() -> str:
    """Empty every capability set: root inside the child can no longer override file modes,
    raise its own hard limits, or signal processes of other users."""
    header = _CapHeader(0x20080522, 0)
    data = (_CapData * 2)()
    if _libc.capset(ctypes.byref(header), data) != 0:
        return f"capabilities kept ({_errno_text()})"
    return "no capabilities"


# ---- Landlock: a filesystem allowlist enforced by the kernel ----------------------------------

_LL_CREATE, _LL_ADD_RULE, _LL_RESTRICT = 444, 445, 446
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE, _FS_READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_FILE_ONLY_RIGHTS = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE | (1 << 14) | (1 << 15)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi() -> int:
    abi = _libc.syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(abi), 0)


def restrict_filesystem(read_only: list[str], read_write: list[str]) -> str:
    """Allow reading only `read_only` trees and writing only `read_write` trees; with Landlock ABI
    4+ also forbid TCP bind/connect, with ABI 6+ signals to processes outside this run."""
    abi = landlock_abi()
    if abi < 1:
        return "no Landlock (kernel or container forbids it)"
    fs_rights = _FS_RIGHTS_BY_ABI[max(k for k in _FS_RIGHTS_BY_ABI if k <= abi)]
    attr = _RulesetAttr(fs_rights, 0b11 if abi >= 4 else 0, 0b11 if abi >= 6 else 0)
    size = ctypes.sizeof(ctypes.c_uint64) * (3 if abi >= 6 else 2 if abi >= 4 else 1)
    ruleset = _libc.syscall(_LL_CREATE, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return f"no Landlock ({_errno_text()})"
    read_rights = _FS_EXECUTE | _FS_READ_FILE | _FS_READ_DIR
    try:
        for paths, rights in ((read_only, read_rights), (read_write, fs_rights)):
            for path in paths:
                _allow_beneath(ruleset, path, rights)
        prctl(PR_SET_NO_NEW_PRIVS, 1)
        if _libc.syscall(_LL_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            return f"no Landlock ({_errno_text()})"
    finally:
        os.close(ruleset)
    return f"Landlock ABI {abi}"


def _allow_beneath(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # a folder that does not exist here needs no rule
    try:
        if not os.path.isdir(path):
            rights &= _FILE_ONLY_RIGHTS
        beneath = _PathBeneath(rights, fd)
        _libc.syscall(_LL_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(1), ctypes.byref(beneath),
                      ctypes.c_uint32(0))
    finally:
        os.close(fd)
