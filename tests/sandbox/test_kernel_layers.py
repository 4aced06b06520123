"""The kernel layers hold on their own, with no audit hook: a forked process locks itself down
exactly as a run's child does, then tries what a hostile program would do through the kernel."""
import errno
import json
import os
import resource
import select
import socket
import subprocess
import sys
import tempfile

import pytest

from app.sandbox import ZYGOTE, child
from app.sandbox.kernel import landlock_abi
from app.sandbox.limits import Limits


def _attempt(action) -> str:
    try:
        action()
        return "allowed"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))
    except ValueError as exc:  # resource.setrlimit refuses to raise a hard limit this way
        return f"ValueError: {exc}"


def _probe(scratch: str) -> dict:
    parent = os.getppid()
    return {
        "read_passwd": _attempt(lambda: open("/etc/passwd").read()),
        "read_proc": _attempt(lambda: open(f"/proc/{parent}/environ").read()),
        "write_tmp": _attempt(lambda: open("/tmp/dagscope-kernel-escape", "w").write("x")),
        "write_scratch": _attempt(lambda: open(os.path.join(scratch, "ok.txt"), "w").write("x")),
        "inet_socket": _attempt(lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
        "unix_socket": _attempt(lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
        "fork": _attempt(lambda: os._exit(0) if os.fork() == 0 else None),
        "exec": _attempt(lambda: os.execv("/bin/true", ["true"])),
        "signal_parent": _attempt(lambda: os.kill(parent, 0)),
        "raise_memory_limit": _attempt(lambda: resource.setrlimit(resource.RLIMIT_AS, (-1, -1))),
    }


def _probe_in_this_process(scratch: str, fd: int) -> None:   # pragma: no cover - runs in the child
    """What a run's child does: lock down, then report what the probe could do on `fd`."""
    try:
        layers = child.lock_down(Limits(timeout_s=5), scratch, [fd])
        os.write(fd, json.dumps({"layers": layers, **_probe(scratch)}).encode())
    finally:
        os._exit(0)


@pytest.fixture(scope="module")
def probed():
    # The probe runs in a fresh interpreter, not a fork of pytest: forking a process that has
    # threads (BLAS, servers of earlier tests) can leave the child stuck on a lock another thread
    # held at the fork, which made this test time out now and then.
    scratch = tempfile.mkdtemp(prefix="dagscope-kernel-test-")
    r, w = os.pipe()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), scratch, str(w)], pass_fds=(w,),
                            cwd=repo, env={**os.environ, "PYTHONPATH": repo})
    os.close(w)
    ready, _, _ = select.select([r], [], [], 30)
    data = b""
    while ready:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
        ready, _, _ = select.select([r], [], [], 5)
    os.close(r)
    if not data:
        proc.kill()
    proc.wait()
    assert data, "the probing child did not answer"
    yield json.loads(data)
    import shutil
    shutil.rmtree(scratch, ignore_errors=True)


def test_seccomp_refuses_processes_programs_sockets_and_signals(probed):
    if "seccomp filter" not in probed["layers"]:
        pytest.skip(f"seccomp unavailable here: {probed['layers']}")
    for action in ("inet_socket", "unix_socket", "fork", "exec", "signal_parent"):
        assert probed[action] == "EPERM", (action, probed)
    assert probed["raise_memory_limit"] != "allowed"


def test_landlock_confines_files_to_the_scratch_folder(probed):
    if landlock_abi() < 1:
        pytest.skip("Landlock unavailable here")
    assert probed["read_passwd"] == "EACCES"
    assert probed["read_proc"] == "EACCES"
    assert probed["write_tmp"] == "EACCES"
    assert probed["write_scratch"] == "allowed"
    assert not os.path.exists("/tmp/dagscope-kernel-escape")


@pytest.mark.skipif(os.geteuid() != 0, reason="a network namespace needs root (or user namespaces)")
def test_runs_live_in_their_own_network_namespace():
    ZYGOTE.ensure_started()
    assert ZYGOTE.network.startswith("network namespace")
    assert os.readlink(f"/proc/{ZYGOTE.pid}/ns/net") != os.readlink("/proc/self/ns/net")


if __name__ == "__main__":   # the probing child started by the `probed` fixture
    _probe_in_this_process(sys.argv[1], int(sys.argv[2]))
