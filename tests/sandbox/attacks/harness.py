"""The attack suite's harness (its fixtures are in conftest.py): a real server, a /healthz
poller over the whole suite, and a check after every attack that nothing was left behind.

Every attack goes through the server a teacher runs (`python -m app`, as the user running the
tests: root in CI, so every layer is on), so "contained" means what a class would see:
- the answer is HTTP 200 with a typed error, within the run limit + its interrupt's grace + 2 s
  for the sandbox's start and collection on a loaded machine (`attack`);
- `/healthz` answers 200 within 2 s all through the suite (a poller thread, judged at the end);
- afterwards no process is left below the server but its zygote, no SysV IPC object is new,
  the server's temporary folder holds no scratch or compiler folder, and no file of a run's uid
  is in the host's /tmp, /var/tmp, /dev/shm or /run/lock (`attack`'s teardown). Memory a run
  could leave is held by one of these (SysV segments, tmpfs and /dev/shm files) or by a
  process, so it is checked with them.
"""
from __future__ import annotations

import os
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from app.sandbox.kernel import SHARED_WRITABLE
from app.sandbox.zygote import RUN_ID_BASE

RUN_TIMEOUT_S = 3.0
HEALTH_EVERY_S = 0.1
HEALTH_SLOW_S = 2.0
SYSV_IPC_TABLES = ("/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sysv_ipc_objects() -> set[tuple[str, str]]:
    """(table, key/id) of every SysV IPC object in this IPC namespace that a run could have made.

    A root server runs each program under a uid of its own (RUN_ID_BASE and up), so only objects
    created by such uids count: other programs on the machine (the browser tests' Chromium makes
    private segments) are not the sandbox's leftovers. A non-root server's runs share its uid,
    so there every object counts."""
    found = set()
    for table in SYSV_IPC_TABLES:
        try:
            with open(table) as f:
                header = next(f, "").split()
                cuid = header.index("cuid") if "cuid" in header else None
                for line in f:
                    fields = line.split()
                    if len(fields) < 2:
                        continue
                    if os.geteuid() == 0 and cuid is not None and int(fields[cuid]) < RUN_ID_BASE:
                        continue
                    found.add((table, f"{fields[0]}/{fields[1]}"))
        except OSError:
            pass
    return found


def files_of_runs(folders=SHARED_WRITABLE, depth: int = 2) -> set[str]:
    """Files and folders owned by a run's uid (RUN_ID_BASE and up) in the host's world-writable
    folders, `depth` levels down: what a run left behind should one of its layers (the private
    tmpfs over these folders, Landlock, the uid's modes) ever fail. Only a root server gives runs
    such uids, and nothing else on the machine owns files under them, so the scan is exact even
    with other people's files about."""
    found: set[str] = set()
    todo = [(folder, 0) for folder in folders]
    while todo:
        folder, level = todo.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_uid >= RUN_ID_BASE or st.st_gid >= RUN_ID_BASE:
                found.add(entry.path)
            elif level + 1 < depth and entry.is_dir(follow_symlinks=False):
                todo.append((entry.path, level + 1))
    return found


@dataclass
class LiveServer:
    url: str
    pid: int
    data_dir: Path
    tmp_dir: Path                     # the server's TMPDIR: its scratch base and compiler folders
    run_timeout_s: float = RUN_TIMEOUT_S
    client: httpx.Client = field(default=None, repr=False)

    @property
    def origin(self) -> str:
        return self.url

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        """A request to the server; POSTs carry this server's own Origin unless `headers` is given."""
        if "headers" not in kwargs and method.upper() not in ("GET", "HEAD", "OPTIONS"):
            kwargs["headers"] = {"Origin": self.origin}
        kwargs.setdefault("timeout", 30.0)
        return self.client.request(method, self.url + path, **kwargs)

    def leftovers(self) -> list[str]:
        """What a finished run left behind in the server's temporary folder."""
        left = []
        for entry in self.tmp_dir.iterdir():
            if entry.name.startswith("dagscope-scratch-") and entry.is_dir():
                left += [f"scratch {p.name}" for p in entry.iterdir()]
            elif entry.name.startswith("dagscope-cc-"):
                left.append(f"compiler folder {entry.name}")
        return left


class HealthPoller(threading.Thread):
    """GET /healthz every 0.1 s until stopped; keeps each answer's latency and every failure."""

    def __init__(self, url: str):
        super().__init__(daemon=True, name="healthz-poller")
        self.url = url + "/healthz"
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self._stop_event = threading.Event()

    def run(self) -> None:
        with httpx.Client(timeout=10.0) as client:
            while not self._stop_event.is_set():
                started = time.monotonic()
                try:
                    status = client.get(self.url).status_code
                except httpx.HTTPError as exc:
                    status = f"{type(exc).__name__}: {exc}"
                took = time.monotonic() - started
                self.latencies.append(took)
                if status != 200 or took > HEALTH_SLOW_S:
                    self.failures.append(f"at {time.strftime('%H:%M:%S')}: {status} after {took:.2f} s")
                self._stop_event.wait(HEALTH_EVERY_S)

    def stop(self) -> None:
        self._stop_event.set()
        self.join(timeout=15)
