"""The runs' tensor values, kept for the page to fetch when a node is clicked.

A sandboxed run sends its large tensors' values apart from its record (app/sandbox/values_channel.py
checks them); they are kept here under an unguessable run id, for the client that ran it only,
bounded by bytes (the least recently read run goes first) and by age. What a click asks for is
summarised here with the engine's own tensor_json, so the page shows the numbers a record
holding the tensor would have shown, bit for bit; the values themselves are served as .npy.

Two stores with one interface: TensorStore keeps them in this process's memory (the default with
the embedded SQLite database: one server process, and nothing to write to disk per run);
DatabaseTensorStore keeps them in the shared database (the default with PostgreSQL), so that a
click answered by another replica finds them. DAGSCOPE_TENSOR_STORE=memory|database chooses
otherwise. The database's expired runs are deleted by a periodic job (app/services/expiry.py,
every DAGSCOPE_TENSOR_STORE_SWEEP seconds), not by requests; a read never returns an expired run."""
from __future__ import annotations

import collections
import io
import json
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


class DatabaseTensorStore:
    """The same store in the database every replica shares: a row per run, a row per tensor
    (migrations/0002). Bounds as TensorStore's, counted across replicas under one lock; times are
    the wall clock's (replicas share no monotonic clock)."""

    def __init__(self, db: Database, max_bytes: int, ttl_s: float, clock=time.time):
        self.db, self.max_bytes, self.ttl_s, self._clock = db, max_bytes, ttl_s, clock

    def keep(self, client: str, values: RunValues) -> str | None:
        if values.nbytes > self.max_bytes:
            return None
        run_id, now = secrets.token_urlsafe(24), self._clock()
        blob = memoryview(values.blob)
        rows = [(run_id, ref, dtype, json.dumps(list(shape)), blob[offset:offset + nbytes])
                for ref, (dtype, shape, offset, nbytes) in values.index.items()]
        with self.db.transaction(lock=EVICTION_LOCK) as tx:
            used = int(tx.execute("SELECT COALESCE(SUM(nbytes), 0) FROM tensor_runs").fetchone()[0])
            if used + values.nbytes > self.max_bytes:
                doomed, freed = [], 0
                for old_id, old_bytes in tx.execute(
                        "SELECT run_id, nbytes FROM tensor_runs ORDER BY read_at").fetchall():
                    doomed.append((old_id,))
                    freed += old_bytes
                    if used - freed + values.nbytes <= self.max_bytes:
                        break
                _delete(tx, doomed)
            tx.execute("INSERT INTO tensor_runs (run_id, client, nbytes, expires, read_at) VALUES (%s, %s, %s, %s, %s)",
                       (run_id, client, values.nbytes, now + self.ttl_s, now))
            tx.executemany("INSERT INTO tensor_values (run_id, ref, dtype, shape, data) VALUES (%s, %s, %s, %s, %s)",
                           rows)
        return run_id

    def array(self, client: str, run_id: str, ref: str) -> np.ndarray:
        return self._read(client, run_id, ref)[0]

    def summary(self, client: str, run_id: str, ref: str, summarise) -> dict:
        """Made once and kept in the tensor's row: the next click, on any replica, reads it."""
        array, kept = self._read(client, run_id, ref, with_summary=True)
        if kept is not None:
            return json.loads(kept)
        found = summarise(array)
        with self.db.transaction() as tx:
            tx.execute("UPDATE tensor_values SET summary = %s WHERE run_id = %s AND ref = %s",
                       (json.dumps(found), run_id, ref))
        return found

    def _read(self, client: str, run_id: str, ref: str, with_summary: bool = False):
        now = self._clock()
        with self.db.transaction() as tx:
            found = tx.execute("SELECT 1 FROM tensor_runs WHERE run_id = %s AND client = %s AND expires > %s",
                               (run_id, client, now)).fetchone()
            if found is None:
                raise Gone(GONE)
            tx.execute("UPDATE tensor_runs SET read_at = %s WHERE run_id = %s", (now, run_id))
            row = tx.execute("SELECT dtype, shape, data, summary FROM tensor_values WHERE run_id = %s AND ref = %s",
                             (run_id, ref)).fetchone()
        if row is None:
            raise Gone("this run kept no values under that id")
        dtype, shape_text, data, summary = row
        shape = tuple(json.loads(shape_text))
        # the row was written from checked values; checked again, as anything read back from storage is
        if dtype not in DTYPES or len(data) != math.prod(shape) * np.dtype(dtype).itemsize:
            raise Gone("this run's kept values are damaged: run the program again")
        array = np.frombuffer(bytes(data), dtype=np.dtype(dtype)).reshape(shape)
        return array, summary if with_summary else None

    @property
    def nbytes(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COALESCE(SUM(nbytes), 0) FROM tensor_runs").fetchone()[0])

    def expire(self) -> int:
        """Delete the expired runs (the periodic job); returns how many."""
        with self.db.transaction() as tx:
            doomed = tx.execute("SELECT run_id FROM tensor_runs WHERE expires <= %s", (self._clock(),)).fetchall()
            _delete(tx, [(row[0],) for row in doomed])
        return len(doomed)


def _delete(tx, run_ids: list[tuple]) -> None:
    tx.executemany("DELETE FROM tensor_values WHERE run_id = %s", run_ids)
    tx.executemany("DELETE FROM tensor_runs WHERE run_id = %s", run_ids)


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
