"""In-child policy: an audit hook and an import guard that turn forbidden actions into plain words.

This layer is for clear messages, not for safety: the kernel layers (kernel.py, seccomp.py)
stop the same actions even when a program gets around this one.

Who is asking? For each audited action the hook walks the Python stack from the innermost
frame outwards, skips neutral frames (the standard library, site-packages, frozen importlib) and
lets the first frame that is either trusted (Dagscope's own `engine`/`app` code) or untrusted
(the pasted code "<dagscope>", or any other file) decide. So the engine may load its compiled
kernels with ctypes when called from user code, while a user callback that the engine invokes,
or a standard-library helper that the user calls, is judged as the user. Code objects claiming
a trusted filename can't be made by user code directly (`compile` and `code.__new__` are checked).
This is walked around all the same (docs/security.md, "Known not to be stopped"): a C-level
callable the user hands the engine (a functools.partial given as an optimizer's closure) has no
frame of its own and is judged as the engine, and the engine's executor compiles the source its
(forgeable) spec describes under one of its own file names.

Imports are judged by the module that asks: pasted code may not import `socket`, `subprocess`
and the rest of BLOCKED_IMPORTS itself, but a standard module may (asyncio, email and
logging.handlers import socket; unittest, doctest and pdb import signal; zipfile and pkgutil
importlib), so those import; what a run then does with them is what the audit hook and the
kernel judge. A standard module that cannot import says which one the program asked for and why.
"""
from __future__ import annotations

import builtins
import os
import sys

USER_FILENAME = "<dagscope>"


class SecurityViolation(PermissionError):
    """A forbidden action in pasted code; the message says what was blocked in plain words."""


# Modules pasted code may not import (the engine itself may use them).
BLOCKED_IMPORTS = {
    "subprocess": "starting other programs", "_posixsubprocess": "starting other programs",
    "multiprocessing": "starting other processes", "pty": "starting other programs",
    "socket": "network access", "_socket": "network access", "ssl": "network access",
    "ctypes": "calling C code directly (ctypes)", "_ctypes": "calling C code directly (ctypes)",
    "cffi": "calling C code directly (cffi)", "importlib": "loading modules by hand (importlib)",
    "signal": "handling signals", "resource": "changing the run's limits", "_ssl": "network access",
}

# Why a standard module is not there to import (sys.stdlib_module_names lists every platform's).
_WINDOWS_ONLY = {"_msi", "_overlapped", "_winapi", "msilib", "msvcrt", "nt", "winreg", "winsound", "_winreg"}
_MACOS_ONLY = {"_scproxy"}


def missing_module_reason(name: str) -> str | None:
    top = name.partition(".")[0]
    if top in _WINDOWS_ONLY:
        return "it is part of Python on Windows only"
    if top in _MACOS_ONLY:
        return "it is part of Python on macOS only"
    if top in sys.stdlib_module_names:
        return ("this Python installation was built without it (its C library was missing "
                "when Python was compiled)")
    return None

# Audit events refused for everyone once user code runs: nothing in a run needs them.
PROCESS_EVENTS = {
    "os.system": "starting other programs (os.system)", "os.exec": "starting other programs (os.exec*)",
    "os.posix_spawn": "starting other programs (os.posix_spawn)", "os.spawn": "starting other programs",
    "subprocess.Popen": "starting other programs (subprocess)", "pty.spawn": "starting other programs",
    "os.fork": "creating processes (os.fork)", "os.forkpty": "creating processes (os.forkpty)",
    "os.kill": "sending signals to processes (os.kill)", "os.killpg": "sending signals to processes",
    "signal.pthread_kill": "sending signals", "socket.__new__": "network access (socket)",
    "socket.getaddrinfo": "network access (name lookup)", "socket.gethostbyname": "network access",
    "resource.setrlimit": "changing the run's limits", "resource.prlimit": "changing the run's limits",
    "sys.addaudithook": "replacing the sandbox's audit hook", "webbrowser.open": "opening a browser",
}
# Refused when the deciding frame is untrusted.
USER_EVENTS = {
    "ctypes.dlopen": "calling C code directly (ctypes)", "ctypes.dlsym": "calling C code directly (ctypes)",
    "ctypes.dlsym/handle": "calling C code directly (ctypes)", "ctypes.cdata": "reading raw memory (ctypes)",
    "ctypes.cdata/buffer": "reading raw memory (ctypes)", "ctypes.call_function": "calling C code directly (ctypes)",
    "ctypes.addressof": "reading raw memory (ctypes)", "ctypes.string_at": "reading raw memory (ctypes)",
    "ctypes.wstring_at": "reading raw memory (ctypes)", "ctypes.PyObj_FromPtr": "reading raw memory (ctypes)",
    "code.__new__": "building code objects by hand", "marshal.loads": "loading raw code (marshal)",
}
# File events: (index of the path argument, whether the event writes).
FILE_EVENTS = {
    "open": (0, None), "os.listdir": (0, False), "os.scandir": (0, False), "glob.glob": (0, False),
    "os.remove": (0, True), "os.rmdir": (0, True), "os.mkdir": (0, True), "os.rename": (0, True),
    "os.chmod": (0, True), "os.chown": (0, True), "os.truncate": (0, True), "os.utime": (0, True),
    "os.link": (0, True), "os.symlink": (1, True), "shutil.rmtree": (0, True), "os.chflags": (0, True),
    "os.setxattr": (0, True), "os.removexattr": (0, True), "os.getxattr": (0, False),
    "os.listxattr": (0, False), "tempfile.mkstemp": (0, True), "tempfile.mkdtemp": (0, True),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
# Dagscope's files that act for whoever calls them, as the standard library does: this policy, and
# the standard-library loader, which a run can reach and call by hand (and rewire: its globals are
# the run's to change), so it must lend no trust to what it compiles.
NEUTRAL_FILES = frozenset({__file__, os.path.join(os.path.dirname(__file__), "stdlib_import.py")})


class Policy:
    """Decides each audited action of one run; records what it blocked."""

    def __init__(self, scratch: str, read_roots: list[str], trusted_roots: list[str]):
        self.scratch = os.path.realpath(scratch)
        self.read_roots = [os.path.realpath(p) for p in read_roots] + [self.scratch]
        self.trusted_roots = tuple(os.path.realpath(p) + os.sep for p in trusted_roots)
        self.neutral_roots = tuple({os.path.realpath(p) + os.sep for p in
                                    (sys.prefix, sys.base_prefix, sys.exec_prefix)})
        self.blocked: list[str] = []
        self._inside = False
        self._importing: list[str] = []   # the imports under way, outermost first (for messages)

    # -- who is asking --------------------------------------------------------------------------
    def caller_is_user(self, frame) -> bool:
        while frame is not None:
            name = frame.f_code.co_filename
            if name == USER_FILENAME:
                return True
            if name.startswith(self.trusted_roots) and name not in NEUTRAL_FILES:
                return False
            if not (name.startswith(self.neutral_roots) or name.startswith("<frozen") or name in NEUTRAL_FILES):
                return True   # a file the user wrote, "<string>", ...: untrusted
            frame = frame.f_back
        return False          # no user frame at all: the child's own setup or teardown

    def is_user_file(self, name: str) -> bool:
        """Whether code from this file is the user's (not Dagscope's, not the installation's)."""
        if name == USER_FILENAME:
            return True
        if name.startswith(self.trusted_roots) or name.startswith(self.neutral_roots):
            return False
        return not (name.startswith("<frozen") or name in NEUTRAL_FILES)

    # -- the hook ---------------------------------------------------------------------------------
    def audit(self, event: str, args: tuple) -> None:
        if self._inside:
            return
        if event in FILE_EVENTS:
            self._check_file(event, args)
        elif event in PROCESS_EVENTS:
            self._deny(PROCESS_EVENTS[event])
        elif event in USER_EVENTS or event == "compile" or event == "object.__setattr__":
            self._inside = True
            try:
                user = self.caller_is_user(sys._getframe(1))
            finally:
                self._inside = False
            if not user:
                return
            if event == "marshal.loads" and self._importing:
                self._deny(f"`import {self._importing[0]}`: loading compiled bytecode (.pyc, marshal) from "
                           "outside the standard library")
            if event in USER_EVENTS:
                self._deny(USER_EVENTS[event])
            elif event == "compile" and isinstance(args[1], str) and args[1].startswith(self.trusted_roots):
                self._deny("compiling code under the name of Dagscope's own files")
            elif event == "object.__setattr__" and len(args) > 1 and args[1] == "__code__":
                self._deny("replacing a function's code")

    def _check_file(self, event: str, args: tuple) -> None:
        index, writes = FILE_EVENTS[event]
        if len(args) <= index:
            return
        path = args[index]
        if path is None and event.startswith(("os.listdir", "os.scandir")):
            path = "."
        if isinstance(path, int) or path is None:
            return   # an already-open descriptor, or a default folder
        try:
            path = os.fsdecode(os.fspath(path))
        except TypeError:
            return
        if writes is None:
            writes = _open_writes(args)
        real = os.path.realpath(path)
        if real in ("/dev/null", "/dev/urandom") or _beneath(real, [self.scratch]):
            return
        if not writes and _beneath(real, self.read_roots):
            return
        verb = "writing" if writes else "reading"
        self._deny(f"{verb} {path} (a run may only use files in its own scratch folder)")

    def _deny(self, what: str) -> None:
        self.blocked.append(what)
        raise SecurityViolation(f"Blocked by the sandbox: {what} is not allowed in Dagscope.")

    # -- imports ------------------------------------------------------------------------------------
    def guarded_import(self, real_import):
        def __import__(name, globals=None, locals=None, fromlist=(), level=0):
            top = name.partition(".")[0]
            if level == 0 and top in BLOCKED_IMPORTS and self.is_user_file(sys._getframe(1).f_code.co_filename):
                self._deny(f"`import {name}` ({BLOCKED_IMPORTS[top]})")
            if level == 0 and name in sys.modules and not fromlist:
                return real_import(name, globals, locals, fromlist, level)   # the common case, at once
            self._importing.append(name if level == 0 else "." * level + name)
            try:
                return real_import(name, globals, locals, fromlist, level)
            except ModuleNotFoundError as exc:
                reason = missing_module_reason(exc.name or "")
                if reason is None or getattr(exc, "_dagscope_explained", False):
                    raise
                asked = self._importing[0]
                via = "" if asked == exc.name else f" (needed by `import {asked}`)"
                explained = ModuleNotFoundError(f"No module named '{exc.name}'{via}: {reason}", name=exc.name)
                explained._dagscope_explained = True
                raise explained from None
            finally:
                self._importing.pop()
        return __import__


def _open_writes(args: tuple) -> bool:
    mode = args[1] if len(args) > 1 else "r"
    flags = args[2] if len(args) > 2 else 0
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return True
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def _beneath(path: str, roots: list[str]) -> bool:
    return any(path == r or path.startswith(r + os.sep) for r in roots)


def install(policy: Policy) -> None:
    """Irreversible for this process: add the audit hook and guard `import` statements."""
    builtins.__import__ = policy.guarded_import(builtins.__import__)
    sys.addaudithook(policy.audit)
