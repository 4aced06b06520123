"""The store of files runs wrote (app/services/run_files.py keeps them, GET /api/files/{id}
serves them): bytes and their metadata under unguessable ids, for one owner, until they expire.

`FileStore` is the interface (put, get, expire); `LocalFileStore` keeps the metadata in SQLite
(WAL) and the bytes in a folder named by their SHA-256 under the data folder, as the snippet
store does: content-addressed (the same bytes from many runs are kept once), size-bounded (the
oldest files go first to make room) and expiring. Names and bytes came from a run: the store
never uses a name as a path (a blob's path is its hash, which the store computed).
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import sqlite3
import stat
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

ID_BYTES = 18                    # token_urlsafe(18): 24 characters, 144 random bits
ID_PATTERN = r"[A-Za-z0-9_-]{24}"


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
    def put(self, owner: str, name: str, data: bytes, ttl_s: float) -> StoredFile | None:
        """Keep `data` as `name` for `owner` for `ttl_s` seconds under a new id; None when it
        alone is larger than the store."""

    def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        """The file and its bytes; None when expired, evicted, never there, or another owner's."""

    def expire(self, now: float | None = None) -> int:
        """Forget the files past their time; how many."""


_SCHEMA = """CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY, owner TEXT NOT NULL, name TEXT NOT NULL, sha256 TEXT NOT NULL,
    size INTEGER NOT NULL, created REAL NOT NULL, expires REAL NOT NULL)"""
_INDEXES = ("CREATE INDEX IF NOT EXISTS files_expires ON files (expires)",
            "CREATE INDEX IF NOT EXISTS files_created ON files (created)",
            "CREATE INDEX IF NOT EXISTS files_sha256 ON files (sha256)")
_COLUMNS = "id, owner, name, size, sha256, created, expires"


class LocalFileStore:
    """SQLite for the metadata, a folder of blobs named by their hash; one per data folder."""

    def __init__(self, data_dir: Path, max_bytes: int, clock=time.time):
        # The data folder 0700, the database and the blobs 0600: runs have uids of their own.
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not data_dir.stat().st_mode & stat.S_ISVTX:      # never narrow a shared folder such as /tmp
            os.chmod(data_dir, 0o700)
        self.max_bytes, self._clock = max_bytes, clock
        self.blobs = data_dir / "files"
        self.blobs.mkdir(exist_ok=True, mode=0o700)
        os.chmod(self.blobs, 0o700)
        self.path = data_dir / "files.sqlite3"
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            for index in _INDEXES:
                db.execute(index)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def put(self, owner: str, name: str, data: bytes, ttl_s: float) -> StoredFile | None:
        if len(data) > self.max_bytes:
            return None
        digest = hashlib.sha256(data).hexdigest()
        now = self._clock()
        stored = StoredFile(secrets.token_urlsafe(ID_BYTES), owner, name, len(data), digest, now, now + ttl_s)
        with self._lock, self._connect() as db:
            self._expire(db, now)
            if not db.execute("SELECT 1 FROM files WHERE sha256 = ? LIMIT 1", (digest,)).fetchone():
                self._make_room(db, len(data))
                self._write_blob(digest, data)
            db.execute(f"INSERT INTO files ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                       (stored.id, owner, name, stored.size, digest, now, stored.expires))
        return stored

    def get(self, owner: str, file_id: str) -> tuple[StoredFile, bytes] | None:
        with self._connect() as db:
            row = db.execute(f"SELECT {_COLUMNS} FROM files WHERE id = ? AND expires > ?",
                             (file_id, self._clock())).fetchone()
        if row is None or row[1] != owner:
            return None
        stored = StoredFile(*row[:3], row[3], row[4], row[5], row[6])
        try:
            with open(self.blobs / stored.sha256, "rb") as f:
                data = f.read(stored.size + 1)
        except OSError:
            return None
        return (stored, data) if len(data) == stored.size else None

    def expire(self, now: float | None = None) -> int:
        with self._lock, self._connect() as db:
            return self._expire(db, self._clock() if now is None else now)

    def used_bytes(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT COALESCE(SUM(size), 0) FROM "
                              "(SELECT DISTINCT sha256, size FROM files)").fetchone()[0]

    # -- inside the lock ---------------------------------------------------------------------

    def _expire(self, db: sqlite3.Connection, now: float) -> int:
        doomed = [row[0] for row in db.execute("SELECT id FROM files WHERE expires <= ?", (now,))]
        self._delete(db, doomed)
        return len(doomed)

    def _make_room(self, db: sqlite3.Connection, size: int) -> None:
        """Forget the oldest files until `size` more bytes fit (a blob's bytes count once)."""
        used = db.execute("SELECT COALESCE(SUM(size), 0) FROM (SELECT DISTINCT sha256, size FROM files)").fetchone()[0]
        if used + size <= self.max_bytes:
            return
        remaining = dict(db.execute("SELECT sha256, COUNT(*) FROM files GROUP BY sha256").fetchall())
        doomed = []
        for file_id, digest, blob_size in db.execute("SELECT id, sha256, size FROM files ORDER BY created, id").fetchall():
            doomed.append(file_id)
            remaining[digest] -= 1
            if not remaining[digest]:
                used -= blob_size
            if used + size <= self.max_bytes:
                break
        self._delete(db, doomed)

    def _delete(self, db: sqlite3.Connection, ids: list[str]) -> None:
        if not ids:
            return
        digests = set()
        for file_id in ids:
            row = db.execute("SELECT sha256 FROM files WHERE id = ?", (file_id,)).fetchone()
            if row:
                digests.add(row[0])
            db.execute("DELETE FROM files WHERE id = ?", (file_id,))
        for digest in digests:
            if not db.execute("SELECT 1 FROM files WHERE sha256 = ? LIMIT 1", (digest,)).fetchone():
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(self.blobs / digest)

    def _write_blob(self, digest: str, data: bytes) -> None:
        path = self.blobs / digest
        tmp = self.blobs / f".{digest}.{secrets.token_hex(6)}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


_stores: dict[tuple[Path, int], LocalFileStore] = {}
_stores_lock = threading.Lock()


def store_for(data_dir: Path, max_bytes: int) -> LocalFileStore:
    """One store per data folder (tests point the settings at a temporary folder)."""
    key = (Path(data_dir).resolve(), max_bytes)
    with _stores_lock:
        if key not in _stores:
            _stores[key] = LocalFileStore(key[0], max_bytes)
        return _stores[key]
