"""The seccomp filter's isolation rules hold on their own: a fresh interpreter that keeps root's
capabilities (so nothing else would refuse) loads only the filter, then tries each call."""
import json
import os
import subprocess
import sys

import pytest

from app.sandbox import seccomp

PROBE = r'''
import ctypes, errno, json, os
from app.sandbox import seccomp
libc = ctypes.CDLL(None, use_errno=True)
libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]

def rc(value):
    return "ok" if value != -1 else errno.errorcode[ctypes.get_errno()]

r, w = os.pipe()
stack = ctypes.create_string_buffer(1 << 16)
top = (ctypes.addressof(stack) + (1 << 16) - 64) & ~15
pause = ctypes.cast(libc.pause, ctypes.c_void_p)
thread = 0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000
# one thread before the filter: glibc's setuid asks every thread to change ids and aborts the
# process when they disagree, so a BLAS thread started by an import (outside the filter) would turn
# the filter's EPERM into SIGABRT
assert len(os.listdir("/proc/self/task")) == 1, os.listdir("/proc/self/task")
assert seccomp.install_filter() == "seccomp filter"
print(json.dumps({
    "clone_thread": rc(libc.clone(pause, top, thread, None)),
    "clone_thread_newuts": rc(libc.clone(pause, top, thread | 0x04000000, None)),
    "clone_thread_newnet": rc(libc.clone(pause, top, thread | 0x40000000, None)),
    "shmget": rc(libc.shmget(0, 4096, 0o1000 | 0o600)),
    "msgget": rc(libc.msgget(0, 0o1000 | 0o600)),
    "semget": rc(libc.semget(0, 1, 0o1000 | 0o600)),
    "F_SETOWN": rc(libc.fcntl(r, 8, os.getpid())),
    "F_SETSIG": rc(libc.fcntl(r, 10, 10)),
    "F_GETFL": rc(libc.fcntl(r, 3)),
    "setuid": rc(libc.setuid(0)),
}))
os._exit(0)
'''


@pytest.mark.skipif(os.geteuid() != 0, reason="shows the filter alone only with root's capabilities")
@pytest.mark.skipif(seccomp.load_library() is None, reason="libseccomp2 is not installed")
def test_the_filter_alone_refuses_namespaces_ipc_and_signal_owners():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # (app.sandbox imports numpy: one BLAS thread, as in a run, keeps the probe single-threaded)
    env = {**os.environ, "PYTHONPATH": repo, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert results.pop("clone_thread") == "ok"        # threads are still allowed
    assert results.pop("F_GETFL") == "ok"             # and fcntl commands that signal no one
    assert set(results.values()) == {"EPERM"}, results
