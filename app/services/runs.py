"""The run service: the one place the web app asks for user code to be run, and its scheduler.

Scheduling for a classroom on a small machine:
- at most `workers` runs (one per core by default) execute at normal priority at a time;
- up to `queue_limit` more wait their turn; beyond that the caller gets `Busy` (HTTP 429);
- each client has at most `runs_in_flight_per_client` runs queued or running;
- a run still going after `demote_after_s` (an infinite loop, a long training) is moved to a
  background slot at the lowest CPU priority (nice 19) and gives its core back to the queue,
  so that three students' infinite loops cannot hold up everyone else's short runs. When the
  background slots are full, a long run keeps its core until it ends or times out.
Runs execute in a thread pool of their own, never on the event loop.

A run may carry a stop key the page made (random, 128 bits or more): `stop(client, key)` ends that
run, queued or running, and only when the same client asks (another client's key is as unknown as
none), so a Stop needs both the caller's address and a secret only the caller's page holds.
"""
from __future__ import annotations

import collections
import contextvars
import hashlib
import logging
import math
import os
import re
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from app.config import get_settings
from app.logs import REQUEST_ID
from app.sandbox import ZYGOTE, Limits, RunControl, run_code
from app.services import metrics, run_files, stop_relay, tensors

log = logging.getLogger("dagscope.runs")


class Busy(Exception):
    """The server cannot take this run now; try again after `retry_after` seconds (HTTP `status`:
    429, or 503 from a server that is shutting down: another replica can take it)."""

    def __init__(self, message: str, retry_after: int, status: int = 429, key: str = "busy", **params):
        super().__init__(message)
        self.message = message
        self.key, self.params = key, params          # its wording for the page (app/responses.py worded)
        self.retry_after = retry_after
        self.status = status


# Set when the server was told to stop (SIGTERM: app/__main__.py): the runs it took finish and are
# answered, new ones are refused with 503, then the server exits (docs/deploy.md, "Shutdown").
_draining = threading.Event()


def drain() -> None:
    _draining.set()


def draining() -> bool:
    return _draining.is_set()


def default_limits() -> Limits:
    s = get_settings()
    return Limits(timeout_s=s.run_timeout_s, memory_mb=s.run_memory_mb, max_stdout_bytes=s.max_stdout_bytes,
                  max_record_bytes=s.max_record_bytes, file_mb=s.run_file_mb, scratch_mb=s.run_scratch_mb,
                  open_files=s.run_open_files, processes=s.run_processes,
                  max_values_bytes=max(0, int(s.run_values_mb * (1 << 20))),
                  max_files=max(0, s.run_files_max), max_files_bytes=max(0, int(s.run_files_mb * (1 << 20))))


class Scheduler:
    def __init__(self, workers: int, queue_limit: int, background: int, per_client: int):
        self.workers, self.queue_limit, self.background, self.per_client = workers, queue_limit, background, per_client
        self._cond = threading.Condition()
        self.running = 0          # runs holding a core slot
        self.waiting = 0          # admitted runs waiting for a core slot
        self.demoted = 0          # long runs moved to background slots
        self._clients: collections.Counter = collections.Counter()
        self._line: collections.deque = collections.deque()   # runs waiting for a core, in order
        self._durations: collections.deque = collections.deque([0.5], maxlen=32)
        self.executor = ThreadPoolExecutor(max_workers=workers + queue_limit + background,
                                           thread_name_prefix="dagscope-run")

    def admit(self, client: str, limited: bool = True) -> None:
        """Reserve a place for one run of `client`, or raise Busy."""
        with self._cond:
            if limited and self._clients[client] >= self.per_client:
                raise Busy("your previous run is still going; wait for it to finish", 1, key="run_going")
            if self.running >= self.workers and self.waiting >= self.queue_limit:
                raise Busy("the server is busy with other runs; try again shortly", self._retry_after(), key="busy")
            self._clients[client] += 1
            self.waiting += 1

    def _retry_after(self) -> int:
        average = sum(self._durations) / len(self._durations)
        return max(1, min(30, math.ceil((self.waiting + 1) * average / self.workers)))

    def execute(self, client: str, work, stopped=lambda: False) -> dict:
        """Wait for a core slot, then call `work(on_slow)`; always releases what admit reserved.
        A run `stopped()` while it waits calls `work` at once without a slot (it will not run;
        `wake()` makes the waiting ones look)."""
        slot = "waiting"
        ticket = object()
        try:
            with self._cond:
                self._line.append(ticket)        # first come, first served
                while (self._line[0] is not ticket or self.running >= self.workers) and not stopped():
                    self._cond.wait()
                if self._line[0] is ticket and self.running < self.workers:
                    self._line.popleft()
                    self.waiting -= 1
                    self.running += 1
                    slot = "core"
                    self._cond.notify_all()      # the next in line may find a free core too
            if slot == "waiting":                # stopped while it waited: `work` ends at once
                return work(lambda pid: None)

            def on_slow(pid: int) -> None:
                nonlocal slot
                with self._cond:
                    if self.demoted >= self.background:
                        return
                    self.demoted += 1
                    self.running -= 1
                    slot = "background"
                    self._cond.notify_all()
                try:
                    os.setpriority(os.PRIO_PROCESS, pid, 19)
                except OSError:
                    pass   # it already ended

            return work(on_slow)
        finally:
            with self._cond:
                if slot == "core":
                    self.running -= 1
                elif slot == "background":
                    self.demoted -= 1
                else:
                    self.waiting -= 1
                    if ticket in self._line:
                        self._line.remove(ticket)
                self._clients[client] -= 1
                if self._clients[client] <= 0:
                    del self._clients[client]
                self._cond.notify_all()

    def wake(self) -> None:
        """Let the waiting runs check whether they were stopped."""
        with self._cond:
            self._cond.notify_all()

    def cancel(self, client: str) -> None:
        """Give back a reservation from `admit` that will never execute."""
        with self._cond:
            self.waiting -= 1
            self._clients[client] -= 1
            if self._clients[client] <= 0:
                del self._clients[client]

    def note_duration(self, seconds: float) -> None:
        with self._cond:
            self._durations.append(seconds)

    def status(self) -> dict:
        with self._cond:
            return {"workers": self.workers, "running": self.running, "waiting": self.waiting,
                    "background": self.demoted, "queue_limit": self.queue_limit}


_scheduler: Scheduler | None = None
_scheduler_lock = threading.Lock()


def scheduler() -> Scheduler:
    global _scheduler
    with _scheduler_lock:
        if _scheduler is None:
            s = get_settings()
            _scheduler = Scheduler(s.workers, s.queue_limit, s.background_runs, s.runs_in_flight_per_client)
            metrics.watch_scheduler(_scheduler.status)
        return _scheduler


_PARTITION_SALT = secrets.token_bytes(16)


def cache_partition(client: str) -> str:
    """The client's own part of the kernel cache (the address is not written down as such)."""
    return hashlib.sha256(_PARTITION_SALT + client.encode()).hexdigest()[:32]


# A stop key as the page makes it (crypto.getRandomValues, base64url): 22 characters carry 132 bits.
STOP_KEY = re.compile(r"[A-Za-z0-9_-]{22,64}")


class KeyInUse(Exception):
    """This client already has a run going under that stop key."""


_stoppable: dict[tuple[str, str], RunControl] = {}
_by_digest: dict[str, RunControl] = {}          # the same runs under stop_relay.digest(client, key)
_stoppable_lock = threading.Lock()
_relay: stop_relay.StopRelay | None = None       # set with a shared database: Stop reaches any replica


def stop(client: str, key: str) -> bool:
    """Stop `client`'s run under `key`, queued or running, here or (with a shared database) on
    another replica; False when it has none (ended, never there, or another client's: the same answer)."""
    if not STOP_KEY.fullmatch(key):
        return False
    with _stoppable_lock:
        control = _stoppable.get((client, key))
    if control is None:
        return _relay is not None and _relay.forward(stop_relay.digest(client, key))
    control.stop()
    scheduler().wake()
    return True


def _stop_by_digest(run_digest: str) -> bool:
    """What the relay calls when another replica forwarded a Stop."""
    with _stoppable_lock:
        control = _by_digest.get(run_digest)
    if control is None:
        return False
    control.stop()
    scheduler().wake()
    return True


def relay_stops(db) -> stop_relay.StopRelay:
    """Start relaying Stops through `db` (the app's start, with PostgreSQL)."""
    global _relay
    _relay = stop_relay.StopRelay(db, _stop_by_digest)
    _relay.start()
    return _relay


def current_relay() -> stop_relay.StopRelay | None:
    return _relay


def stop_relaying() -> None:
    global _relay
    if _relay is not None:
        _relay.close()
        _relay = None


def submit(client: str, code: str, options: dict, stop_key: str | None = None, timing: dict | None = None):
    """Admit a run (raises Busy) and start it in the run pool; returns a concurrent Future.
    `stop_key` (STOP_KEY) lets `stop(client, stop_key)` end it; one in use raises KeyInUse.
    `timing` gets where its time went, in seconds: "queue" (admitted until it had a core) and
    app/sandbox/runner.py's RUN_PHASES."""
    control = RunControl()
    if stop_key is not None:
        if not STOP_KEY.fullmatch(stop_key):
            raise ValueError("a stop key is 22 to 64 characters of A-Z, a-z, 0-9, _ and -")
        with _stoppable_lock:
            if (client, stop_key) in _stoppable:
                raise KeyInUse("a run of yours is already going under this stop key")
            _stoppable[(client, stop_key)] = control
            _by_digest[stop_relay.digest(client, stop_key)] = control
    try:
        future = _submit(client, code, options, control,
                         stop_relay.digest(client, stop_key) if stop_key is not None and _relay else None, timing)
    except BaseException:
        _forget(client, stop_key)
        raise
    future.add_done_callback(lambda _: _forget(client, stop_key))   # an ended run's key stops nothing
    return future


def _forget(client: str, stop_key: str | None) -> None:
    if stop_key is not None:
        with _stoppable_lock:
            _stoppable.pop((client, stop_key), None)
            _by_digest.pop(stop_relay.digest(client, stop_key), None)


def _submit(client: str, code: str, options: dict, control: RunControl, relay_digest: str | None = None,
            timing: dict | None = None):
    sched = scheduler()
    admitted = time.monotonic()
    timing = {} if timing is None else timing
    try:
        if _draining.is_set():
            raise Busy("this server is shutting down; run again (another server will take it)", 1, status=503,
                       key="draining")
        sched.admit(client, limited=client not in get_settings().unlimited_clients)
    except Busy as busy:
        metrics.refused()
        log.info("run refused: %s", busy.message, extra={"status": busy.status})
        raise
    limits = default_limits()
    demote_after = get_settings().demote_after_s
    log.info("run admitted (%d waiting)", sched.status()["waiting"], extra={"code_bytes": len(code)})

    def work(on_slow):
        timing["queue"] = time.monotonic() - admitted
        record = run_code(code, options, limits, slow_after_s=demote_after, on_slow=on_slow,
                          cache_partition=cache_partition(client), keep_values=tensors.keeper(client),
                          control=control, keep_files=run_files.keeper(client), request_id=REQUEST_ID.get(),
                          timing=timing)
        sched.note_duration(record.get("elapsed_ms", 0) / 1000)
        metrics.observe_run(record)
        outcome = "ok" if record.get("ok") else (record.get("error") or {}).get("kind")
        # the supervisor's account (exit, limits, layers) as the record holds it, under this request's id
        log.info("run finished: %s in %.0f ms", outcome, record.get("elapsed_ms") or 0,
                 extra={"outcome": outcome, "elapsed_ms": record.get("elapsed_ms"), "run_id": record.get("run_id"),
                        "sandbox_layers": len(record.get("sandbox") or [])})
        return record

    relay = _relay

    def execute():
        if relay_digest is None or relay is None:
            return sched.execute(client, work, lambda: control.stopped)
        try:                                  # in the run's thread: the event loop never waits on the database
            relay.register(relay_digest)
        except Exception as exc:              # noqa: BLE001 — the run goes on; only a remote Stop misses it
            log.warning("the run's stop key could not be registered: %s", exc)
        try:
            return sched.execute(client, work, lambda: control.stopped)
        finally:
            try:
                relay.unregister(relay_digest)
            except Exception as exc:          # noqa: BLE001 — the sweep removes it later
                log.warning("the run's stop key could not be removed: %s", exc)

    context = contextvars.copy_context()      # the request's id (app/logs.py) goes with it to the run's thread
    try:
        return sched.executor.submit(context.run, execute)
    except RuntimeError:          # the pool is shutting down
        sched.cancel(client)
        metrics.refused()
        raise Busy("the server is shutting down", 5, status=503, key="shutting_down") from None


def warm_up() -> None:
    """Start the warm pool (the zygote imports numpy and the engine once, ~0.3 s)."""
    ZYGOTE.ensure_started()


def run(code: str, options: dict, client: str = "127.0.0.1") -> dict:
    """Run synchronously outside the scheduler (scripts and tests); its values are kept for `client`."""
    return run_code(code, options, default_limits(), keep_values=tensors.keeper(client),
                    keep_files=run_files.keeper(client))
