"""Native code a run brings (a shared library it writes into its scratch folder and loads), and
ctypes with the engine's trust: the Python layer walked around, the kernel's layers holding.

No C is compiled for a run (test_compile_broker_attacks.py), but a run can still carry a library
compiled elsewhere as bytes, write it into its scratch folder and have it loaded: as an extension
module `import`ed from there (Python's own import system, no engine code needed), or through the
engine's own loaders (engine.native's extension loader, engine.codegen.loader's ctypes one). The
Python policy does not see a dlopen; docs/security.md assumes the child runs arbitrary native
code anyway (numpy's as_strided alone reads and writes any address). What must hold is the
kernel's boundary: here the library's constructor, native code with every layer on, tries the
store, the host's files, /proc, sockets, processes, SysV IPC, namespaces, signals, ptrace, ids,
mounts, io_uring and F_SETOWN, and reports what each call returned.
"""
from __future__ import annotations

import base64
import errno
import json
import os
import platform
import shutil
import subprocess
import sysconfig

import pytest

from proc_tree import descendants

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build the library with")

# The constructor runs at dlopen, before any loader looks for a symbol. It reads the paths to try
# from targets.txt (one per line: name, then path) and writes "name=errno" lines (0: the call
# worked) to probe.txt. With a file named x32 it makes one x32-ABI system call instead.
PROBE_C = r'''
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>

static FILE *out;
static void report(const char *name, long rc) { fprintf(out, "%s=%d\n", name, rc < 0 ? errno : 0); }

__attribute__((constructor)) static void probe(void) {
    if (access("x32", F_OK) == 0) {
#ifdef __x86_64__
        syscall(0x40000000 | SYS_getpid);       /* an x32-ABI call: a filter for x86-64 only must not pass it */
#endif
        return;
    }
    out = fopen("probe.txt", "w");
    FILE *targets = fopen("targets.txt", "r");
    if (!out || !targets) return;
    char line[4096], link[256];
    while (fgets(line, sizeof line, targets)) {
        line[strcspn(line, "\n")] = 0;
        char *path = strchr(line, ' ');
        if (!path) continue;
        *path++ = 0;
        if (strncmp(line, "write:", 6) == 0)
            report(line, open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666));
        else if (strncmp(line, "readlink:", 9) == 0)
            report(line, readlink(path, link, sizeof link));
        else if (strncmp(line, "ptrace:", 7) == 0)
            report(line, ptrace(PTRACE_ATTACH, atoi(path), 0, 0));
        else
            report(line, open(path, O_RDONLY));
    }
    fclose(targets);
    int pipe_fds[2];
    pipe(pipe_fds);
    report("socket_inet", socket(AF_INET, SOCK_STREAM, 0));
    report("socket_unix", socket(AF_UNIX, SOCK_STREAM, 0));
    report("fork", syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));
    report("execve", execl("/bin/true", "true", (char *)0));
    report("shmget", shmget(IPC_PRIVATE, 1 << 20, IPC_CREAT | 0600));
    report("msgget", msgget(IPC_PRIVATE, IPC_CREAT | 0600));
    report("unshare_user", unshare(CLONE_NEWUSER));
    report("kill_everyone", kill(-1, 0));
    report("setuid_root", setuid(0));
    report("mount", mount("none", "/tmp", "tmpfs", 0, 0));
    report("io_uring", syscall(SYS_io_uring_setup, 1, 0));
    report("bpf", syscall(SYS_bpf, 0, 0, 0));
    report("f_setown", fcntl(pipe_fds[0], F_SETOWN, 1));
    fprintf(out, "uid=%d\npid=%d\n", getuid(), getpid());
    fclose(out);
}

int PyInit_native_probe(void) { return 0; }     /* NULL: the import fails, after the constructor ran */
'''

EXT_SUFFIX = sysconfig.get_config_var("EXT_SUFFIX")
LOADS = {
    # Python's import system, with the scratch folder put on sys.path
    "extension_import": ("native_probe" + EXT_SUFFIX,
                         "import sys\nsys.path.insert(0, os.getcwd())\nimport native_probe\n"),
    # the engine's CPython-extension loader (engine/native/__init__.py)
    "engine_native": ("probe.so", "from pathlib import Path\nfrom engine import native\n"
                                  "native._exec(Path(os.getcwd(), LIB))\n"),
    # the engine's kernel loader (engine/codegen/loader.py)
    "engine_codegen_loader": ("probe.so", "from pathlib import Path\nfrom engine.codegen import loader\n"
                                          "loader._open(Path(os.getcwd(), LIB), 'k', [])\n"),
}


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> str:
    """The probe compiled on the host (as an attacker would, elsewhere), base64 for the program."""
    folder = tmp_path_factory.mktemp("native-probe")
    (folder / "probe.c").write_text(PROBE_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-Os", "-s", "-o", str(folder / "probe.so"), str(folder / "probe.c")],
                   check=True, capture_output=True, timeout=120)
    return base64.b64encode((folder / "probe.so").read_bytes()).decode()


def program(library: str, load: str, targets: dict[str, str], x32: bool = False) -> str:
    name, how = LOADS[load]
    lines = "".join(f"{key} {path}\n" for key, path in targets.items())
    return (f"import base64, os\nLIB = {name!r}\nopen(LIB, 'wb').write(base64.b64decode({library!r}))\n"
            f"open('targets.txt', 'w').write({lines!r})\n" + ("open('x32', 'w').close()\n" if x32 else "") +
            f"try:\n" + "".join(f"    {line}\n" for line in how.splitlines()) +
            "except BaseException as exc:\n    print('load:', type(exc).__name__)\n"
            "print(open('probe.txt').read())\n")


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def probe_results(record: dict) -> dict[str, str]:
    results = {}
    for line in record["stdout"].splitlines():
        key, sep, value = line.partition("=")
        if sep and key not in ("uid", "pid"):
            results[key] = "ok" if value == "0" else errno.errorcode.get(int(value), value)
        elif sep:
            results[key] = int(value)
    return results


@pytest.mark.parametrize("load", list(LOADS))
def test_a_library_the_run_loads_meets_the_kernel_layers(attack, live_server, library, load):
    """Native code with every layer on: each attempt fails with the errno of the layer that stops
    it (EACCES: Landlock and the run's uid; EPERM: seccomp; ENOENT: the run's own /proc)."""
    zygote = next(pid for pid in descendants(live_server.pid) if "app.sandbox.zygote" in _cmdline(pid))
    targets = {"store": str(live_server.data_dir / "snippets.sqlite3"), "data_folder": str(live_server.data_dir),
               "shadow": "/etc/shadow", "server_environ": f"/proc/{live_server.pid}/environ",
               "readlink:zygote_cwd": f"/proc/{zygote}/cwd", "ptrace:server": str(live_server.pid),
               "write:tmp": "/tmp/dagscope-native-drop",
               "write:stdlib": os.path.join(sysconfig.get_path("stdlib"), "dagscope_native_drop.py")}
    assert live_server.request("POST", "/api/snippets", json={"code": "# a snippet to steal\n"}).status_code == 201
    record = attack(program(library, load, targets))
    assert record["ok"], record["error"]
    results = probe_results(record)
    assert "pid" in results, record["stdout"]            # the constructor ran
    if os.geteuid() != 0:
        pytest.skip(f"the server is not root: the layers it has are {record['sandbox']}")
    assert results.pop("pid") == 1                       # as PID 1 of the run's own namespace
    assert results.pop("uid") >= 2_000_000_000
    for name in ("shadow", "write:tmp", "write:stdlib"):
        assert results.pop(name) == "EACCES", (name, results)
    # the suite's server keeps its data under /tmp, which a run sees as an empty tmpfs (ENOENT);
    # a store the run can see is refused by its uid and Landlock (test_isolation_attacks' raw tests)
    for name in ("store", "data_folder"):
        assert results.pop(name) in ("ENOENT", "EACCES"), (name, results)
    assert results.pop("server_environ") in ("ENOENT", "EACCES")
    assert results.pop("readlink:zygote_cwd") == "ENOENT"        # readlink: only the PID namespace stops it
    assert set(results.values()) == {"EPERM"}, results           # seccomp: every call that remains
    assert len(results) == 14, results
    assert not os.path.exists("/tmp/dagscope-native-drop")


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the x32 ABI is x86-64's")
def test_an_x32_system_call_from_native_code_ends_the_run(attack, library):
    """A call through the x32 ABI (its own numbers, the same architecture tag) would slip past a
    filter that listed x86-64's numbers only: libseccomp's filter kills the run (SIGSYS)."""
    record = attack(program(library, "extension_import", {}, x32=True))
    assert not record["ok"]
    assert record["error"]["kind"] == "security_violation", record["error"]
    assert "system call" in record["error"]["message"]


# The Python layer walked around with the engine's trust: the audit hook judges an action by the
# first Dagscope or user frame on the stack, so a C-level callable a run hands the engine (here a
# functools.partial of ctypes, given to an optimizer as its closure) is judged as the engine. This
# is what docs/security.md means by "nothing on its own": the calls still meet the kernel.
DEPUTY = '''
import errno, functools, json, torch
from engine.codegen import loader
w = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([w], lr=0.1)
call = lambda fn, *args: opt.step(functools.partial(fn, *args))      # fn(*args), from Optimizer.step's frame
libc = call(functools.partial(loader.ctypes.CDLL, None, use_errno=True))
def attempt(name, *args):
    rc = call(call(getattr, libc, name), *args)
    return "ok" if rc != -1 else errno.errorcode[loader.ctypes.get_errno()]
print(json.dumps({"getpid": call(call(getattr, libc, "getpid")),
                  "open_shadow": attempt("open", b"/etc/shadow", 0),
                  "socket": attempt("socket", 2, 1, 0),
                  "fork": attempt("fork"),
                  "shmget": attempt("shmget", 0, 4096, 0o1000 | 0o600),
                  "kill_everyone": attempt("kill", -1, 0)}))
'''


def test_ctypes_with_the_engines_trust_meets_the_kernel_layers(attack):
    """A run that gets ctypes past the Python policy (libc called through an optimizer's closure)
    is still refused by Landlock and the uid (EACCES) and by seccomp (EPERM)."""
    record = attack(DEPUTY)
    assert record["ok"], record["error"]
    results = json.loads(record["stdout"])
    # libc answered: the policy was walked around (should the policy ever stop this, the test has
    # nothing left to show and must find another way past it)
    assert isinstance(results.pop("getpid"), int) and results["open_shadow"] != "ok", results
    if os.geteuid() != 0:
        pytest.skip(f"the server is not root: the layers it has are {record['sandbox']}")
    assert results == {"open_shadow": "EACCES", "socket": "EPERM", "fork": "EPERM", "shmget": "EPERM",
                       "kill_everyone": "EPERM"}, results
