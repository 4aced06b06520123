"""The store of files runs wrote (app/services/run_files.py keeps them, GET /api/files/{id}
serves them): bytes and their metadata under unguessable ids, for one owner, until they expire.

`FileStore` is the interface (put, get, expire); `DatabaseFileStore` keeps both in the database
every store shares (app/services/database.py: SQLite in the data folder, or the PostgreSQL every
replica reads, so a download may reach any replica; tables made by migrations/0003_run_files):
content-addressed (the same bytes from many runs are kept once, under their SHA-256, which the
store computes), size-bounded (the oldest files go first to make room, counted under a lock that
holds across replicas) and expiring. A run's name for a file is only ever data, never a path.
"""
from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from app.services.database import Database, database

ID_BYTES = 18                    # token_urlsafe(18): 24 characters, 144 random bits
ID_PATTERN = r"[A-Za-z0-9_-]{24}"
ROOM_LOCK = "dagscope run files"


@dataclass(frozen=True)
class StoredFile:
    id: str
    owner: str
    name: str
    size: int
    sha256: str
    created: float
    expires: float


class FileStore(Protocol):
    def put(self, owner: str, files: list[tuple[str, bytes]], ttl_s: float) -> list[StoredFile | None]:
        """Keep each (name, data) for `owner` for `ttl_s` seconds under a new id, in one
        transaction; None for one that alone is larger than the store."""

    def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        """The file and its bytes; None when expired, evicted, never there, or another owner's."""

    def expire(self, now: float | None = None) -> int:
        """Forget the files past their time; how many."""


_COLUMNS = "id, owner, name, size, sha256, created, expires"


class DatabaseFileStore:
    """The run_files and run_file_blobs tables of `db`."""

    def __init__(self, db: Database, max_bytes: int, clock=time.time):
        self.db, self.max_bytes, self._clock = db, max_bytes, clock

    def put(self, owner: str, files: list[tuple[str, bytes]], ttl_s: float) -> list[StoredFile | None]:
        now = self._clock()
        answers: list[StoredFile | None] = []
        with self.db.transaction(lock=ROOM_LOCK) as tx:
            self._expire(tx, now)
            for name, data in files:
                if len(data) > self.max_bytes:
                    answers.append(None)
                    continue
                digest = hashlib.sha256(data).hexdigest()
                stored = StoredFile(secrets.token_urlsafe(ID_BYTES), owner, name, len(data), digest, now, now + ttl_s)
                if tx.execute("SELECT 1 FROM run_file_blobs WHERE sha256 = %s", (digest,)).fetchone() is None:
                    self._make_room(tx, len(data))
                    tx.execute("INSERT INTO run_file_blobs (sha256, size, data) VALUES (%s, %s, %s)",
                               (digest, len(data), data))
                tx.execute(f"INSERT INTO run_files ({_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                           (stored.id, owner, name, stored.size, digest, now, stored.expires))
                answers.append(stored)
        return answers

    def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        with self.db.transaction() as tx:
            row = tx.execute("SELECT f.id, f.owner, f.name, f.size, f.sha256, f.created, f.expires, b.data "
                             "FROM run_files f JOIN run_file_blobs b ON b.sha256 = f.sha256 "
                             "WHERE f.id = %s AND f.expires > %s", (file_id, self._clock())).fetchone()
        if row is None or row[1] != owner:
            return None
        stored = StoredFile(row[0], row[1], row[2], int(row[3]), row[4], float(row[5]), float(row[6]))
        data = bytes(row[7])
        return (stored, data) if len(data) == stored.size else None

    def expire(self, now: float | None = None) -> int:
        with self.db.transaction(lock=ROOM_LOCK) as tx:
            return self._expire(tx, self._clock() if now is None else now)

    def used_bytes(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COALESCE(SUM(size), 0) FROM run_file_blobs").fetchone()[0])

    def blob_count(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COUNT(*) FROM run_file_blobs").fetchone()[0])

    # -- inside the transaction, under ROOM_LOCK ---------------------------------------------

    @staticmethod
    def _expire(tx, now: float) -> int:
        gone = tx.execute("DELETE FROM run_files WHERE expires <= %s", (now,)).rowcount
        if gone:
            DatabaseFileStore._drop_orphans(tx)
        return max(gone, 0)

    def _make_room(self, tx, size: int) -> None:
        """Forget the oldest files until `size` more bytes fit (a blob's bytes count once)."""
        used = int(tx.execute("SELECT COALESCE(SUM(size), 0) FROM run_file_blobs").fetchone()[0])
        if used + size <= self.max_bytes:
            return
        remaining = {d: int(n) for d, n in tx.execute(
            "SELECT sha256, COUNT(*) FROM run_files GROUP BY sha256").fetchall()}
        doomed = []
        for file_id, digest, blob_size in tx.execute(
                "SELECT id, sha256, size FROM run_files ORDER BY created, id").fetchall():
            doomed.append((file_id,))
            remaining[digest] -= 1
            if not remaining[digest]:
                used -= int(blob_size)
            if used + size <= self.max_bytes:
                break
        tx.executemany("DELETE FROM run_files WHERE id = %s", doomed)
        self._drop_orphans(tx)

    @staticmethod
    def _drop_orphans(tx) -> None:
        tx.execute("DELETE FROM run_file_blobs WHERE sha256 NOT IN (SELECT sha256 FROM run_files)")


_stores: dict[tuple[int, int], DatabaseFileStore] = {}
_stores_lock = threading.Lock()


def store(max_bytes: int, settings=None) -> DatabaseFileStore:
    """The store in the database the settings name (tests point them at temporary ones)."""
    db = database(settings)
    with _stores_lock:
        key = (id(db), max_bytes)
        found = _stores.get(key)
        if found is None or found.db is not db:
            found = _stores[key] = DatabaseFileStore(db, max_bytes)
        return found
