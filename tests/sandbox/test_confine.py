"""app.sandbox.confine: a trusted program run on hostile input stays inside what it was given."""
import os
import shutil
import socket
import sys
import time

import pytest

from app.sandbox import confine
from app.sandbox.kernel import landlock_abi

SH = ["/bin/sh", "-c"]
SYSTEM = [*confine.SHARED_LIBRARIES, "/usr/bin", "/bin"]
root = pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop and namespaces as root")
landlock = pytest.mark.skipif(landlock_abi() < 1, reason="kernel without Landlock")


def _sh(script: str, **kw) -> confine.Result:
    kw.setdefault("read", SYSTEM)
    kw.setdefault("timeout_s", 10)
    return confine.run([*SH, script], **kw)


def _alive(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except (OSError, ValueError):
            pass
    return found


@landlock
def test_reads_only_what_it_was_given():
    with confine.workdir("dagscope-confine-test-") as folder:
        secret = os.path.join(folder, "secret.txt")
        with open(secret, "w") as f:
            f.write("TOPSECRET")
        os.chmod(secret, 0o644)
        result = _sh(f"cat {secret}; cat /etc/shadow; cat /etc/passwd")
        assert b"TOPSECRET" not in result.stdout and b"root:" not in result.stdout
        assert result.stderr.count(b"Permission denied") == 3
        allowed = _sh(f"cat {secret}", read=[*SYSTEM, secret])
        assert allowed.stdout == b"TOPSECRET" and allowed.returncode == 0


@landlock
def test_writes_only_into_its_write_folders():
    with confine.workdir("dagscope-confine-test-") as out:
        result = _sh(f"echo x > {out}/ok; echo x > /tmp/dagscope-confine-escape; echo $?", write=[out], cwd=out)
        assert os.path.exists(os.path.join(out, "ok"))
        assert not os.path.exists("/tmp/dagscope-confine-escape")
        assert b"Permission denied" in result.stderr
    assert not os.path.exists(out)           # the work folder goes with everything in it


@root
def test_a_work_folder_under_a_closed_parent_is_still_writable(tmp_path):
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)                 # as TMPDIR under /tmp/pytest-of-root is: nobody may not search it
    with confine.workdir("dagscope-confine-test-", parent=str(closed)) as out:
        result = _sh("echo x > ok && cat ok", write=[out], cwd=out)
        assert result.stdout == b"x\n" and result.returncode == 0, result


def test_the_deadline_kills_everything_it_started_even_what_left_its_group():
    marker = f"{time.time_ns() % 10**9}.25"
    started = time.monotonic()
    # a grandchild in a session of its own (as cc1 of a driver killed alone used to be), and a
    # child ignoring SIGTERM: neither may outlive the deadline
    result = _sh(f"setsid sleep {marker} & (trap '' TERM; sleep {marker}) & sleep {marker}", timeout_s=0.5)
    assert result.timed_out and result.returncode is None
    assert time.monotonic() - started < 15
    deadline = time.monotonic() + 2
    while _alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(marker) == []


def test_a_clean_exit_leaves_nothing_behind_either():
    marker = f"{time.time_ns() % 10**9}.75"
    result = _sh(f"sleep {marker} & echo started")
    assert result.returncode == 0 and result.stdout == b"started\n" and not result.timed_out
    deadline = time.monotonic() + 2
    while _alive(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive(marker) == []


def test_rlimits_apply():
    budget = confine.Budget(cpu_s=3, memory_mb=300, file_mb=1, processes=20, open_files=40)
    result = _sh("ulimit -t; ulimit -v; ulimit -f; ulimit -p; ulimit -n; ulimit -c", budget=budget)
    # dash: CPU seconds, AS in kB, file size in 512-byte blocks, processes, files, core blocks
    assert result.stdout.split() == [b"3", b"307200", b"2048", b"20", b"40", b"0"]


def test_the_file_size_limit_also_bounds_stdout():
    result = _sh("yes | head -c 3000000", budget=confine.Budget(file_mb=1), max_output=10 << 20)
    assert len(result.stdout) == 1 << 20
    assert result.returncode == 128 + 25          # SIGXFSZ


def test_output_beyond_max_output_is_cut():
    result = _sh("yes | head -c 100000", max_output=1000)
    assert len(result.stdout) == 1000 and result.returncode == 0


def test_stdin_is_given():
    assert _sh("tr a-z A-Z", stdin=b"hello").stdout == b"HELLO"


@root
def test_runs_as_an_unprivileged_user_without_capabilities():
    result = _sh("id -u; id -g; id -G; grep CapEff /proc/self/status", read=[*SYSTEM, "/proc"])
    lines = result.stdout.decode().split("\n")
    assert lines[:3] == ["65534", "65534", "65534"]
    assert lines[3].split() == ["CapEff:", "0000000000000000"]
    assert "uid 65534" in result.layers


@root
def test_its_own_pid_and_network_namespaces():
    result = _sh("echo $$; cat /proc/net/dev", read=[*SYSTEM, "/proc"])
    lines = result.stdout.decode().split("\n")
    assert lines[0] == "1"                       # the program is its namespace's init
    interfaces = [line.split(":")[0].strip() for line in lines[3:] if ":" in line]
    assert interfaces == ["lo"]
    assert {"PID namespace", "network namespace"} <= set(result.layers)


@landlock
def test_no_network_even_without_a_namespace_of_its_own():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    port = server.getsockname()[1]
    try:
        result = confine.run(["/bin/bash", "-c", f"echo hello > /dev/tcp/127.0.0.1/{port} && echo connected"],
                             read=SYSTEM, timeout_s=10, new_network=False)
    finally:
        server.close()
    assert result.stdout == b"" and b"Permission denied" in result.stderr, result
    assert "network namespace" not in result.layers


@landlock
def test_cannot_signal_its_caller():
    result = _sh(f"kill -0 {os.getpid()} && echo reached || echo refused")
    assert result.stdout == b"refused\n"


def test_layers_are_named_for_the_run_record():
    result = _sh("true")
    assert result.layers[:1] == ["process group"] and "rlimits" in result.layers
    if landlock_abi() >= 1:
        assert any(layer.startswith("Landlock ABI") for layer in result.layers)


def test_a_missing_program_raises_in_the_caller():
    with pytest.raises(OSError):
        confine.run(["/nonexistent/program"], read=SYSTEM, timeout_s=5)
    assert shutil.which("sh")


NOT_ROOT = """
import json, os, sys
from app.sandbox import confine
os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
res = confine.run(["/bin/sh", "-c", "echo $$; cat /etc/passwd"], read=json.loads(sys.argv[1]), timeout_s=10)
print(json.dumps({"rc": res.returncode, "out": res.stdout.decode(), "err": res.stderr.decode(), "layers": res.layers}))
"""


@root
def test_a_caller_that_is_not_root_still_gets_namespaces_and_landlock():
    # a fresh interpreter that drops to nobody before confining (as a server that is not root)
    import json
    import subprocess
    root_dir = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    proc = subprocess.run([sys.executable, "-c", NOT_ROOT, json.dumps(SYSTEM)], capture_output=True, text=True,
                          timeout=60, cwd=root_dir, env={**os.environ, "PYTHONPATH": root_dir})
    result = json.loads(proc.stdout)
    assert result["out"] == "1\n", result                     # its own PID namespace (user namespace)
    assert "PID namespace" in result["layers"] and "uid 65534" not in result["layers"]
    if landlock_abi() >= 1:
        assert "Permission denied" in result["err"]
