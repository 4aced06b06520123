"""The runs' tensor values, kept for the page to fetch when a node is clicked.

A sandboxed run sends its large tensors' values apart from its record (app/sandbox/values_channel.py
checks them); they are kept here under an unguessable run id, for the client that ran it only,
bounded by bytes (the least recently read run goes first) and by age. What a click asks for is
summarised here with the engine's own tensor_json, so the page shows the numbers a record
holding the tensor would have shown, bit for bit; the values themselves are served as .npy.

Two stores with one interface: TensorStore keeps them in this process's memory (the default with
the embedded SQLite database: one server process, and nothing to write to disk per run);
DatabaseTensorStore (the default with PostgreSQL) keeps them in memory too and claims each run in
the shared database, so that a click answered by another replica finds them: it asks for the
tensor, and the replica holding it writes it there. DAGSCOPE_TENSOR_STORE=memory|database chooses
otherwise. The database's expired runs are deleted by a periodic job (app/services/expiry.py,
every DAGSCOPE_TENSOR_STORE_SWEEP seconds), not by requests; a read never returns an expired run."""
from __future__ import annotations

import collections
import io
import json
import logging
import math
import re
import secrets
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from app.config import get_settings
from app.sandbox.values_channel import DTYPES, RunValues
from app.services.database import Database, database, listen

log = logging.getLogger("dagscope.tensors")
RUN_ID = re.compile(r"[A-Za-z0-9_-]{20,64}")
TENSOR_ID = re.compile(r"v[0-9]{1,6}")
GONE = ("this run's tensor values are no longer kept on the server (they are kept for a while, "
        "for the one who ran it): run the program again")


class Gone(LookupError):
    """No values under this run and tensor id for this client (expired, evicted, never there).
    `key`: the page's wording of why (static/i18n api.*)."""

    KEYS = {}      # message -> key, filled below
    status = 404

    @property
    def key(self) -> str:
        return Gone.KEYS.get(str(self), "tensors_gone")


MAX_SUMMARIES_PER_RUN = 512    # summaries remembered per run (each a few kB): a repeated click costs nothing


@dataclass
class _Kept:
    client: str
    values: RunValues
    expires: float
    summaries: dict = field(default_factory=dict)


class TensorStore:
    def __init__(self, max_bytes: int, ttl_s: float, clock=time.monotonic):
        self.max_bytes, self.ttl_s, self._clock = max_bytes, ttl_s, clock
        self._runs: collections.OrderedDict[str, _Kept] = collections.OrderedDict()   # least recent first
        self._bytes = 0
        self._lock = threading.Lock()
        self._dropped: list[str] = []       # runs evicted or expired since take_dropped()

    def keep(self, client: str, values: RunValues) -> str | None:
        """A new run id for `values`, or None when they alone pass the store's bound."""
        if values.nbytes > self.max_bytes:
            return None
        run_id = secrets.token_urlsafe(24)
        with self._lock:
            self._expire()
            while self._runs and self._bytes + values.nbytes > self.max_bytes:
                self._drop(next(iter(self._runs)))
            self._runs[run_id] = _Kept(client, values, self._clock() + self.ttl_s)
            self._bytes += values.nbytes
        return run_id

    def array(self, client: str, run_id: str, ref: str) -> np.ndarray:
        """The kept array (read-only), or Gone. Another client's run is as unknown as none."""
        return self._array(self._kept(client, run_id), ref)

    def summary(self, client: str, run_id: str, ref: str, summarise) -> dict:
        """`summarise(array)` of a kept array, remembered: a summary costs a pass over the values,
        and GETs are not rate limited."""
        kept = self._kept(client, run_id)
        found = kept.summaries.get(ref)
        if found is None:
            found = summarise(self._array(kept, ref))
            if len(kept.summaries) < MAX_SUMMARIES_PER_RUN:
                kept.summaries[ref] = found
        return found

    def _kept(self, client: str, run_id: str) -> _Kept:
        with self._lock:
            self._expire()
            kept = self._runs.get(run_id)
            if kept is None or kept.client != client:
                raise Gone(GONE)
            self._runs.move_to_end(run_id)
        return kept

    @staticmethod
    def _array(kept: _Kept, ref: str) -> np.ndarray:
        array = kept.values.array(ref)
        if array is None:
            raise Gone(UNKNOWN)
        return array

    @property
    def nbytes(self) -> int:
        return self._bytes

    def _expire(self) -> None:
        now = self._clock()
        for run_id in [r for r, kept in self._runs.items() if kept.expires <= now]:
            self._drop(run_id)

    def _drop(self, run_id: str) -> None:
        self._bytes -= self._runs.pop(run_id).values.nbytes
        self._dropped.append(run_id)

    def take_dropped(self) -> list[str]:
        with self._lock:
            dropped, self._dropped = self._dropped, []
        return dropped

    def values_of(self, run_id: str) -> RunValues | None:
        """The run's values if kept here, whoever ran it (for DatabaseTensorStore's publishing)."""
        with self._lock:
            kept = self._runs.get(run_id)
        return kept.values if kept is not None else None

    def run_ids(self) -> list[str]:
        with self._lock:
            return list(self._runs)

    def expire(self) -> int:
        with self._lock:
            before = len(self._runs)
            self._expire()
            return before - len(self._runs)


CHANNEL = "dagscope_tensors"
WAIT_S = 5.0                    # how long a read on another replica waits for the values to be written
ASK_AGAIN_S = 1.0               # a request NOTIFYed again this often while waiting (one may be missed)
NOT_WRITTEN = ("this run's tensor values are kept by the server that ran it, which did not answer "
               "(it may have stopped): run the program again")
UNKNOWN = "this run kept no values under that id"
DAMAGED = "this run's kept values are damaged: run the program again"
BUSY = "too many of your requests for tensor values are waiting: try again in a moment"
Gone.KEYS.update({GONE: "tensors_gone", NOT_WRITTEN: "tensors_not_written", UNKNOWN: "tensor_unknown",
                  DAMAGED: "tensors_damaged", BUSY: "tensors_busy"})
# Reads of one client waiting at once for another replica's values (each holds one of the server's
# threads for up to WAIT_S): a client asking for many refs its run never kept (each waits the whole
# WAIT_S: nobody writes them) held every thread of the pool that other clients' requests share
MAX_WAITING_PER_CLIENT = 2


class Busy(Gone):
    """A client's requests already wait for as many tensors as one may (429)."""
    status = 429


class DatabaseTensorStore:
    """Values every replica can read, for the cost of a small row per run. Each replica keeps its
    runs' values in its own memory (a TensorStore: bounded, read first) and claims each run in the
    shared database (tensor_runs: its client and expiry; migrations/0005-0006). A read that finds
    a run claimed but not here asks for its tensor: with PostgreSQL it NOTIFYs `dagscope_tensors`,
    and the replica holding the run writes that one tensor to tensor_values (its writer thread;
    the read waits for it, at most `wait_s`). Writing every run's megabytes to the database as
    the run is answered cost more CPU than the run itself for small models (bench/RESULTS.md,
    2026-12-02 06:27): most values are never clicked, and most clicks reach the replica that ran
    the program. Without NOTIFY (SQLite: one machine, processes sharing a file) every run's
    values are written behind the answer instead. On shutdown a replica writes all it holds
    (flush), so a drained replica's runs stay readable. A run evicted or expired here loses its
    claim and what was written of it, so the database holds at most what the replicas hold."""

    def __init__(self, db: Database, max_bytes: int, ttl_s: float, clock=time.time, wait_s: float = WAIT_S):
        self.db, self.ttl_s, self._clock, self.wait_s = db, ttl_s, clock, wait_s
        self.local = TensorStore(max_bytes, ttl_s, clock)
        self.on_demand = bool(getattr(db, "shared", False))      # PostgreSQL's LISTEN/NOTIFY
        self._queue: collections.deque[tuple[str, tuple | None]] = collections.deque()
        self._changed = threading.Condition()
        self._closing = threading.Event()
        self._sleep = time.sleep
        self._waiting: collections.Counter[str] = collections.Counter()    # client -> reads waiting (_read)
        self._waiting_lock = threading.Lock()
        self._threads = [threading.Thread(target=self._write_asked, name="tensor-store-writer", daemon=True)]
        if self.on_demand:
            self._threads.append(threading.Thread(target=self._listen, name="tensor-store-listener", daemon=True))
        for thread in self._threads:
            thread.start()

    def keep(self, client: str, values: RunValues) -> str | None:
        run_id = self.local.keep(client, values)
        gone, now = self.local.take_dropped(), self._clock()
        if run_id is None and not gone:
            return None
        with self.db.transaction() as tx:
            _delete(tx, [(old,) for old in gone])
            if run_id is not None:
                tx.execute("INSERT INTO tensor_runs (run_id, client, nbytes, expires, read_at, kept_at) "
                           "VALUES (%s, %s, %s, %s, %s, %s)",
                           (run_id, client, values.nbytes, now + self.ttl_s, now, now))
        if run_id is not None and not self.on_demand:
            self._ask(run_id, None)
        return run_id

    def _ask(self, run_id: str, refs: tuple | None) -> None:
        """Have the writer write `refs` of a run held here (None: all of them)."""
        with self._changed:
            self._queue.append((run_id, refs))
            self._changed.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Write every run held here (a replica's shutdown, after its runs were answered), and
        wait for it; False if `timeout` came first."""
        if self.on_demand:
            for run_id in self.local.run_ids():
                self._ask(run_id, None)
        with self._changed:
            return self._changed.wait_for(lambda: not self._queue, timeout)

    def close(self) -> None:
        self._closing.set()
        with self._changed:
            self._changed.notify_all()
        for thread in self._threads:
            thread.join(timeout=5)

    def _write_asked(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._queue or self._closing.is_set())
                if not self._queue:
                    return
                run_id, refs = self._queue[0]
            try:
                self._write(run_id, refs)
            except Exception:                    # noqa: BLE001 — a database hiccup: a read asks again
                log.exception("a run's tensor values could not be written to the database")
            with self._changed:
                self._queue.popleft()
                self._changed.notify_all()

    def _write(self, run_id: str, refs: tuple | None) -> None:
        """A row per tensor, only while the run is still claimed (it may have been evicted or
        expired meanwhile); a tensor written before is left as it is."""
        values = self.local.values_of(run_id)
        if values is None:
            return
        blob = memoryview(values.blob)
        rows = [(run_id, ref, dtype, json.dumps(list(shape)), blob[offset:offset + nbytes], run_id)
                for ref, (dtype, shape, offset, nbytes) in values.index.items() if refs is None or ref in refs]
        if not rows:
            return
        try:
            with self.db.transaction() as tx:
                tx.executemany("INSERT INTO tensor_values (run_id, ref, dtype, shape, data) SELECT %s, %s, %s, %s, %s "
                               "WHERE EXISTS (SELECT 1 FROM tensor_runs WHERE run_id = %s) ON CONFLICT DO NOTHING", rows)
        except self.db.integrity_errors():
            pass                                 # deleted as it was written (PostgreSQL's foreign key saw it go)

    def _listen(self) -> None:
        listen(self.db.url, CHANNEL, self._asked, self._closing, "the tensor store")

    def _asked(self, payload: str) -> None:
        run_id, _, ref = payload.partition(" ")
        if self.local.values_of(run_id) is not None:
            self._ask(run_id, (ref,))

    def array(self, client: str, run_id: str, ref: str) -> np.ndarray:
        if self.local.values_of(run_id) is not None:
            return self.local.array(client, run_id, ref)
        return self._read(client, run_id, ref)[0]

    def summary(self, client: str, run_id: str, ref: str, summarise) -> dict:
        """This replica's run: made and remembered here. Another's: made once and kept in
        tensor_summaries, so the next click, on any replica, reads it."""
        if self.local.values_of(run_id) is not None:
            return self.local.summary(client, run_id, ref, summarise)
        array, found = self._read(client, run_id, ref, with_summary=True)
        if found is not None:
            return json.loads(found)
        made = summarise(array)
        try:
            with self.db.transaction() as tx:
                tx.execute("INSERT INTO tensor_summaries (run_id, ref, summary) SELECT %s, %s, %s "
                           "WHERE EXISTS (SELECT 1 FROM tensor_runs WHERE run_id = %s) ON CONFLICT DO NOTHING",
                           (run_id, ref, json.dumps(made), run_id))
        except self.db.integrity_errors():
            pass                                 # the run was deleted meanwhile
        return made

    def _read(self, client: str, run_id: str, ref: str, with_summary: bool = False):
        """Another replica's run: its tensor from the database, asked for and waited for if it is
        not there yet."""
        deadline, pause, asked, waiting = time.monotonic() + self.wait_s, 0.02, None, False
        try:
            while True:
                with self.db.transaction() as tx:
                    if tx.execute("SELECT 1 FROM tensor_runs WHERE run_id = %s AND client = %s AND expires > %s",
                                  (run_id, client, self._clock())).fetchone() is None:
                        raise Gone(GONE)
                    row = tx.execute("SELECT dtype, shape, data FROM tensor_values WHERE run_id = %s AND ref = %s",
                                     (run_id, ref)).fetchone()
                    if row is not None:
                        summary = None
                        if with_summary:
                            found = tx.execute("SELECT summary FROM tensor_summaries "
                                               "WHERE run_id = %s AND ref = %s", (run_id, ref)).fetchone()
                            summary = found[0] if found else None
                        break
                    if self.on_demand and (asked is None or time.monotonic() - asked >= ASK_AGAIN_S):
                        tx.execute("SELECT pg_notify(%s, %s)", (CHANNEL, f"{run_id} {ref}"))     # sent at commit
                        asked = time.monotonic()
                if time.monotonic() >= deadline:
                    raise Gone(NOT_WRITTEN)
                if not waiting:
                    waiting = self._begin_wait(client)          # or Busy
                self._sleep(pause)
                pause = min(2 * pause, 0.25)
        finally:
            if waiting:
                self._end_wait(client)
        dtype, shape_text, data = row
        try:
            shape = tuple(json.loads(shape_text))
            size = math.prod(shape) * np.dtype(dtype).itemsize
        except (ValueError, TypeError, RecursionError):
            size = -1
        # the row was written from checked values; checked again, as anything read back from storage is
        if dtype not in DTYPES or size != len(data):
            raise Gone(DAMAGED)
        return np.frombuffer(bytes(data), dtype=np.dtype(dtype)).reshape(shape), summary

    def _begin_wait(self, client: str) -> bool:
        with self._waiting_lock:
            if self._waiting[client] >= MAX_WAITING_PER_CLIENT:
                raise Busy(BUSY)
            self._waiting[client] += 1
        return True

    def _end_wait(self, client: str) -> None:
        with self._waiting_lock:
            self._waiting[client] -= 1
            if not self._waiting[client]:
                del self._waiting[client]

    @property
    def nbytes(self) -> int:
        """The bytes this replica holds (what was written of them is counted by the replica holding it)."""
        return self.local.nbytes

    def expire(self) -> int:
        """Delete the expired runs (the periodic job): this replica's, and every claim past its
        time (a replica that stopped leaves its claims); returns how many claims."""
        self.local.expire()
        gone = self.local.take_dropped()
        with self.db.transaction(writes=True) as tx:
            doomed = tx.execute("SELECT run_id FROM tensor_runs WHERE expires <= %s", (self._clock(),)).fetchall()
            _delete(tx, sorted({(row[0],) for row in doomed} | {(run_id,) for run_id in gone}))
        return len(doomed)


def _delete(tx, run_ids: list[tuple]) -> None:
    if run_ids:
        for table in ("tensor_summaries", "tensor_values", "tensor_runs"):
            tx.executemany(f"DELETE FROM {table} WHERE run_id = %s", run_ids)


_memory_store: TensorStore | None = None
_database_stores: dict[int, DatabaseTensorStore] = {}
_store_lock = threading.Lock()


def in_database(settings=None) -> bool:
    """Where the values are kept: DAGSCOPE_TENSOR_STORE, or by default the database when it is
    shared (PostgreSQL) and memory when it is the embedded one."""
    s = settings or get_settings()
    if s.tensor_store in ("memory", "database"):
        return s.tensor_store == "database"
    return bool(s.database_url)


def store() -> TensorStore | DatabaseTensorStore:
    s = get_settings()
    max_bytes = int(s.tensor_store_mb * (1 << 20))
    if in_database(s):
        db = database(s)
        with _store_lock:
            found = _database_stores.get(id(db))
            if found is None or found.db is not db:
                if found is not None:
                    found.close()
                found = _database_stores[id(db)] = DatabaseTensorStore(db, max_bytes, s.tensor_store_ttl_s)
            return found
    global _memory_store
    with _store_lock:
        if _memory_store is None:
            _memory_store = TensorStore(max_bytes, s.tensor_store_ttl_s)
        return _memory_store


def flush(timeout: float) -> bool:
    """Wait until this process's database stores have written what they were given (a replica's
    shutdown, after its runs were answered); False if `timeout` came first."""
    with _store_lock:
        stores = list(_database_stores.values())
    deadline = time.monotonic() + timeout
    return all(kept.flush(max(0.0, deadline - time.monotonic())) for kept in stores)


def close_stores() -> None:
    """Stop the database stores' threads (the app's shutdown, after flush; tests)."""
    with _store_lock:
        stores = list(_database_stores.values())
        _database_stores.clear()
    for kept in stores:
        kept.close()


def keeper(client: str):
    """What the sandbox calls with a run's checked values: keeps them for `client`."""
    return lambda values: store().keep(client, values)


def summary(client: str, run_id: str, ref: str) -> dict:
    """The Tensor of the record (docs/run-record.md) with its heat-map, from the kept values."""
    from engine.record.values import tensor_json   # lazy: the engine's numpy code only when asked
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().summary(client, run_id, ref, tensor_json)


def npy_parts(client: str, run_id: str, ref: str) -> tuple[bytes, memoryview]:
    """The kept values as a .npy file (NumPy's format: a header naming dtype and shape, then the
    values in C order; np.load reads it, and so can the page): its header, and a view of the kept
    bytes, not a copy of them for each request (app/routes/tensors.py streams it)."""
    array = np.ascontiguousarray(_checked(client, run_id, ref))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, np.lib.format.header_data_from_array_1_0(array))
    return header.getvalue(), memoryview(array).cast("B")


def _checked(client: str, run_id: str, ref: str) -> np.ndarray:
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().array(client, run_id, ref)
