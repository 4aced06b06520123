"""A seccomp syscall filter for the run's child, built with Debian's libseccomp through ctypes.

Default allow, with a deny list: no new programs (execve), no new processes (fork, clone
without CLONE_THREAD), no namespaces (unshare, setns, clone with a CLONE_NEW* flag), no sockets,
no SysV or POSIX IPC (shared memory, message queues, semaphores: a channel between runs), no
signals or tracing aimed at other processes (kill, F_SETOWN/F_SETSIG and FIOSETOWN that make the
kernel signal someone else), no changing of ids, no raising of limits or priorities, no typing
into a terminal (TIOCSTI), and none of the administrative calls (mount, modules, bpf, io_uring,
...). Denied calls fail with EPERM, so trusted code that probes (e.g. a compiler
fallback) sees an ordinary PermissionError instead of dying.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import functools
import os

SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_NE, SCMP_CMP_MASKED_EQ = 1, 7
CLONE_THREAD = 0x00010000


def _act_errno(code: int) -> int:
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


# Always refused (EPERM).
DENIED = [
    "execve", "execveat", "fork", "vfork", "socket", "socketpair", "tkill",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal", "setrlimit", "prlimit64", "setpriority", "sched_setscheduler",
    "sched_setparam", "sched_setattr", "ioprio_set", "mount", "umount2", "pivot_root", "chroot",
    "unshare", "setns", "swapon", "swapoff", "reboot", "init_module", "finit_module",
    "delete_module", "kexec_load", "kexec_file_load", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "acct", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "syslog", "quotactl", "open_by_handle_at", "name_to_handle_at", "personality", "mknod",
    "mknodat", "ioperm", "iopl", "fanotify_init", "move_pages", "migrate_pages", "vhangup",
    "uselib", "mount_setattr", "fsopen", "fsmount", "fsconfig", "move_mount", "open_tree",
    "open_tree_attr", "listmount", "statmount", "quotactl_fd", "fanotify_mark", "modify_ldt",
    "process_madvise", "process_mrelease", "sethostname", "setdomainname", "lookup_dcookie",
    # ids: a run keeps the uid it was given (setuid back to root fails without capabilities too)
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
    "setgroups",
    # SysV IPC (and the i386 multiplexer) and POSIX message queues
    "ipc", "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl", "semget",
    "semop", "semtimedop", "semctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive",
    "mq_notify", "mq_getsetattr",
]
# Allowed only when aimed at this process itself (argument 0 is its pid).
SELF_ONLY = ["kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"]
# Calls newer than some libseccomp releases know by name; numbers from 424 on are the same on
# every architecture.
UNIFIED_NUMBERS = {"statmount": 457, "listmount": 458, "open_tree_attr": 467}
# Refused commands (argument 1). The kernel reads the command as a 32-bit int, so only the low
# 32 bits are compared: a command with junk in the high bits is still recognised.
F_SETOWN, F_SETSIG, F_SETOWN_EX = 8, 10, 15          # the kernel would signal the named owner
TIOCSTI, TIOCSPGRP, TIOCLINUX = 0x5412, 0x5410, 0x541C   # type into / take over a terminal
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902                # F_SETOWN spelt as a socket ioctl
DENIED_COMMANDS = {"fcntl": [F_SETOWN, F_SETSIG, F_SETOWN_EX], "fcntl64": [F_SETOWN, F_SETSIG, F_SETOWN_EX],
                   "ioctl": [TIOCSTI, TIOCSPGRP, TIOCLINUX, FIOSETOWN, SIOCSPGRP]}
# clone with any of these makes a new namespace (clone3 is refused below).
CLONE_NEW_FLAGS = [0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000]


@functools.lru_cache(maxsize=1)
def load_library():
    """libseccomp, loaded once in the zygote (find_library runs programs: never in a run)."""
    for name in ("libseccomp.so.2", ctypes.util.find_library("seccomp")):
        try:
            lib = ctypes.CDLL(name, use_errno=True)
            break
        except (OSError, TypeError):
            lib = None
    if lib is None:
        return None
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(_ArgCmp)]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def install_filter() -> str:
    """Load the filter into this process (irreversible). Returns what was applied."""
    lib = load_library()
    if lib is None:
        return "no seccomp (libseccomp2 is not installed)"
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        return "no seccomp (init failed)"
    deny = _act_errno(errno.EPERM)
    me = os.getpid()
    try:
        for name in DENIED:
            _rule(lib, ctx, deny, name, [])
        for name in SELF_ONLY:
            _rule(lib, ctx, deny, name, [_ArgCmp(0, SCMP_CMP_NE, me, 0)])
        for name, commands in DENIED_COMMANDS.items():
            for command in commands:
                _rule(lib, ctx, deny, name, [_ArgCmp(1, SCMP_CMP_MASKED_EQ, 0xFFFFFFFF, command)])
        # clone creating a process (no CLONE_THREAD) is a fork; clone creating a thread is fine,
        # unless it asks for a namespace of its own.
        _rule(lib, ctx, deny, "clone", [_ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)])
        for flag in CLONE_NEW_FLAGS:
            _rule(lib, ctx, deny, "clone", [_ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag)])
        # clone3 passes its flags in memory a filter cannot read: ENOSYS makes glibc fall back to clone.
        _rule(lib, ctx, _act_errno(errno.ENOSYS), "clone3", [])
        rc = lib.seccomp_load(ctx)   # also sets no_new_privs
        if rc != 0:
            return f"no seccomp (load failed: {os.strerror(-rc)})"
    finally:
        lib.seccomp_release(ctx)
    return "seccomp filter"


def _rule(lib, ctx, action: int, name: str, comparisons: list[_ArgCmp]) -> None:
    nr = lib.seccomp_syscall_resolve_name(name.encode())
    if nr < 0 and name in UNIFIED_NUMBERS:
        nr = UNIFIED_NUMBERS[name]
    if nr < 0:
        return  # not a syscall on this architecture
    array = (_ArgCmp * max(len(comparisons), 1))(*comparisons)
    rc = lib.seccomp_rule_add_array(ctx, action, nr, len(comparisons), array)
    if rc != 0:
        raise OSError(-rc, f"seccomp rule for {name}: {os.strerror(-rc)}")
