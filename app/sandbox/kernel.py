"""Kernel layers of the sandbox (the real boundary): namespaces (network, PID, IPC, mount), a uid
of the run's own, capabilities, Landlock, seccomp.

Every function here is best effort: it returns a short description of what it applied, or of why
it could not (an unprivileged container may forbid namespaces or Landlock), so that each run can
report which layers were active. Syscall numbers are the x86_64/aarch64 generic ones.
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long

CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWIPC = 0x08000000
CLONE_THREAD = 0x00010000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4


def _errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def kill_group(pid: int) -> None:
    """SIGKILL the process group `pid` leads, and `pid` itself should it have left the group;
    whichever is already gone is no error."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


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

MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18


def scratch_on_tmpfs(path: str, size_mb: int, owner: tuple[int, int] | None = None) -> str:
    """Give this process its own mount namespace with a tmpfs of `size_mb` over `path` (owned by
    `owner`, the run's uid and gid); the tmpfs and whatever the run wrote in it vanish with the
    process."""
    if _libc.unshare(CLONE_NEWNS) != 0:
        return f"scratch on disk ({_errno_text()})"
    if _libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return f"scratch on disk ({_errno_text()})"
    options = f"size={size_mb}m,mode=0700".encode()
    if owner is not None:
        options += f",uid={owner[0]},gid={owner[1]}".encode()
    if _libc.mount(b"tmpfs", os.fsencode(path), b"tmpfs", MS_NOSUID | MS_NODEV, options) != 0:
        return f"scratch on disk ({_errno_text()})"
    return f"scratch tmpfs {size_mb} MB"


# ---- PID and IPC namespaces: a run sees no other process and shares no SysV IPC -------------

def new_pid_namespace() -> tuple[str, int | None]:
    """Called by the supervisor just before it forks the child: the next child becomes PID 1 of
    a new PID namespace (and everything in it dies with that child). Returns a description and
    a descriptor of the supervisor's own namespace for `leave_pid_namespace`."""
    try:
        own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    except OSError as exc:
        return f"shared PID namespace ({exc.strerror})", None
    if _libc.unshare(CLONE_NEWPID) != 0:
        text = _errno_text()
        os.close(own)
        return f"shared PID namespace ({text})", None
    return "PID namespace", own


def leave_pid_namespace(own: int | None) -> None:
    """After the fork: the supervisor's later children (the compiler) go back to its own namespace,
    so they are neither visible to the run nor killed with it."""
    if own is None:
        return
    try:
        if _libc.setns(own, CLONE_NEWPID) != 0:
            raise OSError(ctypes.get_errno(), f"setns back to the supervisor's PID namespace: {_errno_text()}")
    finally:
        os.close(own)


def fresh_proc() -> str:
    """Mount a /proc of the run's own PID namespace (in its private mount namespace): no other
    process's entry, cwd, root or descriptors is there to open, even where Landlock is off."""
    if _libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) != 0:
        return f"host /proc ({_errno_text()})"
    return "own /proc"


def private_ipc() -> str:
    """A new IPC namespace for this process: SysV shared memory, message queues, semaphores and
    POSIX message queues of other runs are out of sight, and this run's die with it."""
    if _libc.unshare(CLONE_NEWIPC) != 0:
        return f"shared IPC namespace ({_errno_text()})"
    return "IPC namespace"


# ---- a uid of the run's own ----------------------------------------------------------------

def become_run_user(uid: int, gid: int, read_roots: list[str], private_mounts: bool, scratch: str) -> str:
    """Switch to `uid`/`gid` with no supplementary groups (irreversible). Even a server running
    as root then runs each program as an unprivileged user of its own: RLIMIT_NPROC binds, file
    modes (the data folder, other runs' scratch folders) apply, and other processes cannot be
    signalled. Folders on the way to `read_roots` that the run's uid could not pass (a Python
    under /root, a scratch folder under a private TMPDIR) are first replaced, in this mount
    namespace only, by a tmpfs holding just the read roots below them (`private_mounts`: this process has a mount namespace of its own).
    The scratch folder becomes the run's."""
    if os.geteuid() != 0:
        return "server's uid (the server is not root)"
    try:
        closed = _closed_folders(read_roots)
        if closed and not private_mounts:
            return f"server's uid ({', '.join(closed)} not searchable by others, and no mount namespace)"
        _expose(closed)
        if os.stat(scratch).st_uid != uid:        # a tmpfs scratch was mounted as the run's already
            os.chown(scratch, uid, gid)
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        return f"server's uid ({exc.strerror})"
    # A change of uid clears the parent-death signal; the run must still die with its supervisor.
    prctl(PR_SET_PDEATHSIG, 9)
    prctl(PR_SET_DUMPABLE, 0)
    return f"uid {uid}"


def _closed_folders(read_roots: list[str]) -> dict[str, list[str]]:
    """The outermost folders on the way to a read root that others may not search, each with the
    read roots beneath it."""
    closed: dict[str, list[str]] = {}
    for root in sorted({os.path.realpath(r) for r in read_roots if os.path.exists(r)}):
        for ancestor in _ancestors(root):
            if not os.stat(ancestor).st_mode & 0o001:
                closed.setdefault(ancestor, []).append(root)
                break
    return closed


# Folders every user may write: concurrent runs, each under a uid of its own, could leave files
# there for one another (and a run could leave files behind) wherever Landlock is off.
SHARED_WRITABLE = ["/tmp", "/var/tmp", "/dev/shm", "/run/lock"]


def private_shared_folders(keep: list[str]) -> str:
    """Over each world-writable folder mount an empty tmpfs only root may write, with the paths
    in `keep` (the scratch folder, read roots) that lie beneath it bound back in place. Only in a
    mount namespace of this process's own."""
    keep = [os.path.realpath(path) for path in keep]
    covered: dict[str, list[str]] = {}
    for folder in dict.fromkeys(os.path.realpath(f) for f in SHARED_WRITABLE):
        if os.path.isdir(folder) and os.stat(folder).st_mode & 0o002:
            covered[folder] = [path for path in keep if _beneath(path, folder)]
    try:
        _expose(covered)
    except OSError as exc:
        return f"shared {', '.join(covered)} ({exc.strerror or exc})"
    return f"private {', '.join(covered)}" if covered else "no world-writable folders"


def _beneath(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def _expose(closed: dict[str, list[str]]) -> None:
    """Mount a tmpfs over each folder holding only (bind mounts of) the given paths below it."""
    for folder, roots in closed.items():
        roots = sorted({os.path.realpath(r) for r in roots if os.path.exists(r)})
        roots = [r for r in roots if not any(_beneath(r, other) for other in roots)]   # outermost only
        fds = [(root, os.open(root, os.O_PATH | os.O_CLOEXEC)) for root in roots]
        try:
            if _libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", MS_NOSUID | MS_NODEV,
                           b"size=64k,mode=0755") != 0:
                raise OSError(ctypes.get_errno(), f"tmpfs over {folder}: {_errno_text()}")
            for root, fd in fds:
                os.makedirs(root, exist_ok=True)
                if _libc.mount(f"/proc/self/fd/{fd}".encode(), os.fsencode(root), None, MS_BIND | MS_REC,
                               None) != 0:
                    raise OSError(ctypes.get_errno(), f"bind {root}: {_errno_text()}")
        finally:
            for _, fd in fds:
                os.close(fd)


def _ancestors(path: str) -> list[str]:
    """`/a/b/c` -> [`/a`, `/a/b`]: the folders a lookup of `path` must search, outermost first."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


# ---- resource limits -------------------------------------------------------------------------

M_ARENA_MAX = -8            # mallopt's parameter (malloc.h)
_DEFAULT_THREAD_STACK = 32 << 20   # what glibc gives a thread when RLIMIT_STACK is unlimited


def threads_within_memory(memory_mb: int, processes: int) -> int:
    """The threads a run may have: its configured count, but never more than half its address
    space in thread stacks. The other half is for the program; so a thread bomb meets
    RLIMIT_NPROC (a clean "can't start new thread") before RLIMIT_AS, where CPython can create a
    thread that then fails to allocate its state and never reports itself started — and
    Thread.start() waits for it until the run's timeout."""
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    stack = soft if soft != resource.RLIM_INFINITY else _DEFAULT_THREAD_STACK
    return max(2, min(processes, (memory_mb << 20) // 2 // stack))


def one_malloc_arena() -> str:
    """glibc gives each new thread a malloc arena of its own and reserves 64 MB of address space
    for it: fourteen threads fill a 768 MB RLIMIT_AS. The engine runs on one thread, so one arena
    costs it nothing, and a thread then costs only its stack (bounded by threads_within_memory)."""
    if _libc.mallopt(M_ARENA_MAX, 1) != 1:
        return "malloc arenas not limited"
    return "one malloc arena"


def set_rlimits(*, cpu_s: int, memory_mb: int, file_mb: int, open_files: int, processes: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    mem = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    size = file_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    # RLIMIT_NPROC counts every process and thread of the user; root is exempt from it, so it
    # binds once the run has a uid of its own (become_run_user). seccomp forbids fork anyway;
    # this bounds the threads a run can start with clone().
    threads = threads_within_memory(memory_mb, processes)
    resource.setrlimit(resource.RLIMIT_NPROC, (threads, threads))


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
    scope = "files, TCP, signals, abstract sockets" if abi >= 6 else "files, TCP" if abi >= 4 else "files"
    return f"Landlock ABI {abi} ({scope})"


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
