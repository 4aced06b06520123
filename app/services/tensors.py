"""The runs' tensor values, kept for the page to fetch when a node is clicked.

A sandboxed run sends its large tensors' values apart from its record (app/sandbox/values_channel.py
checks them); they are kept here under an unguessable run id, for the client that ran it only,
bounded by bytes (the least recently read run goes first) and by age. What a click asks for is
summarised here with the engine's own tensor_json, so the page shows the numbers a record
holding the tensor would have shown, bit for bit; the values themselves are served as .npy.

Two stores with one interface: TensorStore keeps them in this process's memory (the default with
the embedded SQLite database: one server process, and nothing to write to disk per run);
DatabaseTensorStore keeps them in the shared database (the default with PostgreSQL), so that a
click answered by another replica finds them (written after the run is answered, one row per
run). DAGSCOPE_TENSOR_STORE=memory|database chooses otherwise. The database's expired runs are deleted by a periodic job (app/services/expiry.py,
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
from app.services.database import Database, database

log = logging.getLogger("dagscope.tensors")
RUN_ID = re.compile(r"[A-Za-z0-9_-]{20,64}")
TENSOR_ID = re.compile(r"v[0-9]{1,6}")
GONE = ("this run's tensor values are no longer kept on the server (they are kept for a while, "
        "for the one who ran it): run the program again")


class Gone(LookupError):
    """No values under this run and tensor id for this client (expired, evicted, never there)."""


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
            raise Gone("this run kept no values under that id")
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


    def expire(self) -> int:
        with self._lock:
            before = len(self._runs)
            self._expire()
            return before - len(self._runs)


EVICTION_LOCK = "dagscope tensor store"
WAIT_S = 10.0                   # how long a read on another replica waits for values still being written
MAX_PENDING_BYTES = 256 << 20   # values answered but not yet written, per replica, before keep() waits
INDEXES_KEPT = 64               # written runs whose parsed index a replica remembers
NOT_WRITTEN = ("this run's tensor values were never written to the shared database (the server that "
               "ran it may have stopped): run the program again")


class DatabaseTensorStore:
    """The same store in the database every replica shares (migrations/0005): a row per run in
    tensor_runs, claimed when the run is answered (the bound counted across replicas under one
    lock, as TensorStore counts it), and the run's values as one row in tensor_blobs, written
    after the answer by this store's writer thread. A run no longer holds its slot while its
    megabytes go to the database (bench/RESULTS.md, 2026-12-02). Until they are written, this
    replica reads them from memory, and another replica's read waits for them (at most `wait_s`
    after the claim: a claim never written was its replica's, stopped before writing). Times are
    the wall clock's (replicas share no monotonic clock)."""

    def __init__(self, db: Database, max_bytes: int, ttl_s: float, clock=time.time, wait_s: float = WAIT_S,
                 max_pending_bytes: int = MAX_PENDING_BYTES):
        self.db, self.max_bytes, self.ttl_s, self._clock = db, max_bytes, ttl_s, clock
        self.wait_s, self.max_pending_bytes = wait_s, max_pending_bytes
        self._pending: dict[str, _Kept] = {}          # claimed, not yet written
        self._queue: collections.deque[str] = collections.deque()
        self._pending_bytes = 0
        self._changed = threading.Condition()
        self._writer: threading.Thread | None = None
        self._indexes: collections.OrderedDict[str, dict] = collections.OrderedDict()
        self._sleep = time.sleep

    def keep(self, client: str, values: RunValues) -> str | None:
        if values.nbytes > self.max_bytes:
            return None
        with self._changed:          # a writer this far behind holds new runs back: memory stays bounded
            while self._pending_bytes and self._pending_bytes + values.nbytes > self.max_pending_bytes:
                self._changed.wait()
        run_id, now = secrets.token_urlsafe(24), self._clock()
        doomed = []
        with self.db.transaction(lock=EVICTION_LOCK) as tx:
            used = int(tx.execute("SELECT COALESCE(SUM(nbytes), 0) FROM tensor_runs").fetchone()[0])
            if used + values.nbytes > self.max_bytes:
                freed = 0
                for old_id, old_bytes in tx.execute(
                        "SELECT run_id, nbytes FROM tensor_runs ORDER BY read_at").fetchall():
                    doomed.append((old_id,))
                    freed += old_bytes
                    if used - freed + values.nbytes <= self.max_bytes:
                        break
                _delete(tx, doomed)
            tx.execute("INSERT INTO tensor_runs (run_id, client, nbytes, expires, read_at, kept_at) "
                       "VALUES (%s, %s, %s, %s, %s, %s)", (run_id, client, values.nbytes, now + self.ttl_s, now, now))
        with self._changed:
            for (old_id,) in doomed:                   # evicted before it was written: never written
                self._forget(old_id)
            self._pending[run_id] = _Kept(client, values, now + self.ttl_s)
            self._pending_bytes += values.nbytes
            self._queue.append(run_id)
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_pending, name="tensor-store-writer", daemon=True)
                self._writer.start()
            self._changed.notify_all()
        return run_id

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every run answered here has its values written; False if `timeout` came first."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._queue, timeout)

    def _write_pending(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._queue)
                run_id = self._queue[0]
                kept = self._pending.get(run_id)
            try:
                if kept is not None:
                    self._write(run_id, kept)
            except Exception:                    # noqa: BLE001 — a database hiccup: this run's values are lost
                log.exception("a run's tensor values could not be written to the database")
            with self._changed:
                self._queue.popleft()
                self._forget(run_id)
                self._changed.notify_all()

    def _forget(self, run_id: str) -> None:
        kept = self._pending.pop(run_id, None)
        if kept is not None:
            self._pending_bytes -= kept.values.nbytes

    def _write(self, run_id: str, kept: _Kept) -> None:
        """One row: the index as JSON and every tensor's bytes in one value (only if the run is
        still claimed: it may have been evicted or expired meanwhile), and the summaries this
        replica made before it was written."""
        index = json.dumps({ref: [dtype, list(shape), offset, nbytes]
                            for ref, (dtype, shape, offset, nbytes) in kept.values.index.items()})
        try:
            with self.db.transaction() as tx:
                tx.execute("INSERT INTO tensor_blobs (run_id, tensor_index, data) SELECT %s, %s, %s "
                           "WHERE EXISTS (SELECT 1 FROM tensor_runs WHERE run_id = %s)",
                           (run_id, index, kept.values.blob, run_id))
                for ref, made in list(kept.summaries.items()):
                    _keep_summary(tx, run_id, ref, made)
        except self.db.integrity_errors():
            pass                                 # deleted as it was written (PostgreSQL's foreign key saw it go)

    def array(self, client: str, run_id: str, ref: str) -> np.ndarray:
        kept = self._pending_for(client, run_id)
        if kept is not None:
            return TensorStore._array(kept, ref)
        return self._read(client, run_id, ref)[0]

    def summary(self, client: str, run_id: str, ref: str, summarise) -> dict:
        """Made once and kept in tensor_summaries: the next click, on any replica, reads it."""
        kept = self._pending_for(client, run_id)
        if kept is not None:                     # not written yet: made from memory, and written with the values
            found = kept.summaries.get(ref)
            if found is None:
                found = summarise(TensorStore._array(kept, ref))
                if len(kept.summaries) < MAX_SUMMARIES_PER_RUN:
                    kept.summaries[ref] = found
            return found
        array, found = self._read(client, run_id, ref, with_summary=True)
        if found is not None:
            return json.loads(found)
        made = summarise(array)
        try:
            with self.db.transaction() as tx:
                _keep_summary(tx, run_id, ref, made)
        except self.db.integrity_errors():
            pass                                 # the run was deleted meanwhile
        return made

    def _pending_for(self, client: str, run_id: str) -> _Kept | None:
        """This replica's run not yet written, read (the least-recently-read order is the
        database's), or None; Gone if it is another client's, expired or evicted."""
        with self._changed:
            kept = self._pending.get(run_id)
        if kept is None:
            return None
        now = self._clock()
        with self.db.transaction() as tx:
            read = tx.execute("UPDATE tensor_runs SET read_at = %s WHERE run_id = %s AND client = %s AND expires > %s",
                              (now, run_id, client, now)).rowcount
        if not read:
            raise Gone(GONE)
        return kept

    def _read(self, client: str, run_id: str, ref: str, with_summary: bool = False):
        deadline, pause = time.monotonic() + self.wait_s, 0.02
        while True:
            now = self._clock()
            with self.db.transaction() as tx:
                # the write first: SQLite's transaction then takes the write lock as it begins
                # (one that read first could not take it after another connection wrote)
                tx.execute("UPDATE tensor_runs SET read_at = %s WHERE run_id = %s AND client = %s AND expires > %s",
                           (now, run_id, client, now))
                claimed = tx.execute("SELECT kept_at FROM tensor_runs WHERE run_id = %s AND client = %s AND expires > %s",
                                     (run_id, client, now)).fetchone()
                if claimed is None:
                    raise Gone(GONE)
                index = self._index(tx, run_id)
                if index is not None:
                    if ref not in index:
                        raise Gone("this run kept no values under that id")
                    dtype, shape, offset, nbytes = index[ref]
                    data = tx.execute("SELECT substr(data, %s, %s) FROM tensor_blobs WHERE run_id = %s",
                                      (offset + 1, nbytes, run_id)).fetchone()[0]
                    summary = None
                    if with_summary:
                        row = tx.execute("SELECT summary FROM tensor_summaries WHERE run_id = %s AND ref = %s",
                                         (run_id, ref)).fetchone()
                        summary = row[0] if row else None
                    break
            # claimed and not yet written: the replica that ran it is writing it now
            if now - claimed[0] > self.wait_s or time.monotonic() >= deadline:
                raise Gone(NOT_WRITTEN)
            self._sleep(pause)
            pause = min(2 * pause, 0.25)
        data = bytes(data or b"")
        if len(data) != nbytes:                  # checked again, as anything read back from storage is
            raise Gone("this run's kept values are damaged: run the program again")
        return np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape), summary

    def _index(self, tx, run_id: str) -> dict | None:
        """The written run's index {ref: (dtype, shape, offset, nbytes)}, checked; None if not written yet."""
        with self._changed:
            index = self._indexes.get(run_id)
        if index is not None:
            return index
        row = tx.execute("SELECT tensor_index, length(data) FROM tensor_blobs WHERE run_id = %s", (run_id,)).fetchone()
        if row is None:
            return None
        index = _checked_index(row[0], int(row[1]))
        with self._changed:
            self._indexes[run_id] = index
            while len(self._indexes) > INDEXES_KEPT:
                self._indexes.popitem(last=False)
        return index

    @property
    def nbytes(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COALESCE(SUM(nbytes), 0) FROM tensor_runs").fetchone()[0])

    def expire(self) -> int:
        """Delete the expired runs (the periodic job); returns how many."""
        with self.db.transaction(lock=EVICTION_LOCK) as tx:
            doomed = tx.execute("SELECT run_id FROM tensor_runs WHERE expires <= %s", (self._clock(),)).fetchall()
            _delete(tx, [(row[0],) for row in doomed])
        return len(doomed)


def _keep_summary(tx, run_id: str, ref: str, made: dict) -> None:
    tx.execute("INSERT INTO tensor_summaries (run_id, ref, summary) SELECT %s, %s, %s "
               "WHERE EXISTS (SELECT 1 FROM tensor_runs WHERE run_id = %s) ON CONFLICT DO NOTHING",
               (run_id, ref, json.dumps(made), run_id))


def _delete(tx, run_ids: list[tuple]) -> None:
    for table in ("tensor_summaries", "tensor_blobs", "tensor_runs"):
        tx.executemany(f"DELETE FROM {table} WHERE run_id = %s", run_ids)


def _checked_index(text: str, size: int) -> dict:
    """A stored index, checked as the values channel checks one (written from checked values;
    anything read back from storage is checked again)."""
    damaged = Gone("this run's kept values are damaged: run the program again")
    try:
        entries = json.loads(text)
    except (ValueError, RecursionError):
        raise damaged from None
    if not isinstance(entries, dict):
        raise damaged
    index = {}
    for ref, entry in entries.items():
        if not (TENSOR_ID.fullmatch(ref) and isinstance(entry, list) and len(entry) == 4):
            raise damaged
        dtype, shape, offset, nbytes = entry
        if not (isinstance(dtype, str) and dtype in DTYPES and isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)
                and type(offset) is int and type(nbytes) is int and 0 <= offset and offset + nbytes <= size
                and nbytes == math.prod(shape) * np.dtype(dtype).itemsize):
            raise damaged
        index[ref] = (dtype, tuple(shape), offset, nbytes)
    return index


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


def keeper(client: str):
    """What the sandbox calls with a run's checked values: keeps them for `client`."""
    return lambda values: store().keep(client, values)


def summary(client: str, run_id: str, ref: str) -> dict:
    """The Tensor of the record (docs/run-record.md) with its heat-map, from the kept values."""
    from engine.record.values import tensor_json   # lazy: the engine's numpy code only when asked
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().summary(client, run_id, ref, tensor_json)


def npy(client: str, run_id: str, ref: str) -> bytes:
    """The kept values as a .npy file (NumPy's format: a header naming dtype and shape, then the
    values in C order); np.load reads it, and so can the page."""
    out = io.BytesIO()
    np.save(out, _checked(client, run_id, ref), allow_pickle=False)
    return out.getvalue()


def _checked(client: str, run_id: str, ref: str) -> np.ndarray:
    if not (RUN_ID.fullmatch(run_id) and TENSOR_ID.fullmatch(ref)):
        raise Gone(GONE)
    return store().array(client, run_id, ref)
