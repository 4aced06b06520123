"""Share-link store: code + view state in SQLite (WAL) under the data folder, keyed by unguessable ids."""
from __future__ import annotations

import json
import os
import secrets
import sqlite3
import stat
import threading
import time
from pathlib import Path

MAX_CODE_BYTES = 100_000
MAX_STATE_BYTES = 4_000
ID_BYTES = 6                     # token_urlsafe(6) -> 8 characters, 48 random bits

_SCHEMA = """CREATE TABLE IF NOT EXISTS snippets (
    id TEXT PRIMARY KEY, code TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL)"""
# Added for the store quota: `size` in bytes (code + state), `opened` (when a share link was
# last followed; NULL until then). A store made before them gets them on open.
_COLUMNS = {"size": "INTEGER", "opened": "REAL"}
_UNOPENED_INDEX = "CREATE INDEX IF NOT EXISTS snippets_unopened ON snippets (created) WHERE opened IS NULL"


class SnippetTooLarge(ValueError):
    """The code or the view state is over its size limit."""


class SnippetInvalid(ValueError):
    """The view state cannot be stored as strict JSON."""


class SnippetStoreFull(RuntimeError):
    """The store is at its quota and holds only snippets someone has opened."""


class SnippetStore:
    """One SQLite file; a connection per call keeps it safe across FastAPI's worker threads."""

    def __init__(self, data_dir: Path):
        # Only the server's user may enter the data folder or read the store (runs have uids of
        # their own): the folder 0700, the database 0600 (SQLite gives its -wal and -shm files
        # the database's mode).
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not data_dir.stat().st_mode & stat.S_ISVTX:      # never narrow a shared folder such as /tmp
            os.chmod(data_dir, 0o700)
        self.path = data_dir / "snippets.sqlite3"
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            present = {row[1] for row in db.execute("PRAGMA table_info(snippets)")}
            for name, kind in _COLUMNS.items():
                if name not in present:
                    db.execute(f"ALTER TABLE snippets ADD COLUMN {name} {kind}")
            db.execute("UPDATE snippets SET size = length(CAST(code AS BLOB)) + length(CAST(state AS BLOB)) "
                       "WHERE size IS NULL")
            db.execute(_UNOPENED_INDEX)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def save(self, code: str, state: dict, quota_bytes: int | None = None) -> str:
        """Store a snippet; over `quota_bytes` (code + state of all snippets; None or 0: no quota)
        the oldest snippets nobody has opened yet make room, and if they cannot, SnippetStoreFull."""
        code_bytes = len(code.encode())
        if code_bytes > MAX_CODE_BYTES:
            raise SnippetTooLarge(f"code is longer than {MAX_CODE_BYTES} bytes")
        try:
            state_text = json.dumps(state, separators=(",", ":"), allow_nan=False)
        except (ValueError, RecursionError):
            raise SnippetInvalid("view state is not plain JSON (non-finite numbers, or nested too deep)") from None
        if len(state_text.encode()) > MAX_STATE_BYTES:
            raise SnippetTooLarge(f"view state is larger than {MAX_STATE_BYTES} bytes")
        size = code_bytes + len(state_text.encode())
        with self._lock, self._connect() as db:
            if quota_bytes:
                self._make_room(db, size, quota_bytes)
            while True:  # a collision is astronomically rare, but never overwrite someone's snippet
                snippet_id = secrets.token_urlsafe(ID_BYTES)
                try:
                    db.execute("INSERT INTO snippets (id, code, state, created, size) VALUES (?, ?, ?, ?, ?)",
                               (snippet_id, code, state_text, time.time(), size))
                    return snippet_id
                except sqlite3.IntegrityError:
                    continue

    @staticmethod
    def _make_room(db: sqlite3.Connection, size: int, quota_bytes: int) -> None:
        used = db.execute("SELECT COALESCE(SUM(size), 0) FROM snippets").fetchone()[0]
        if used + size <= quota_bytes:
            return
        freed, doomed = 0, []
        for snippet_id, snippet_size in db.execute(
                "SELECT id, size FROM snippets WHERE opened IS NULL ORDER BY created"):
            doomed.append((snippet_id,))
            freed += snippet_size
            if used - freed + size <= quota_bytes:
                break
        if used - freed + size > quota_bytes:
            raise SnippetStoreFull(
                f"the snippet store is full ({used / 1e6:.1f} of {quota_bytes / 1e6:.1f} MB, in snippets "
                "people have opened): ask the teacher to raise DAGSCOPE_SNIPPET_STORE_MB")
        db.executemany("DELETE FROM snippets WHERE id = ?", doomed)

    def load(self, snippet_id: str) -> dict | None:
        with self._connect() as db:
            row = db.execute("SELECT code, state FROM snippets WHERE id = ?", (snippet_id,)).fetchone()
            if row is not None:     # opened: kept when the quota makes room for new snippets
                db.execute("UPDATE snippets SET opened = ? WHERE id = ?", (time.time(), snippet_id))
        if row is None:
            return None
        return {"id": snippet_id, "code": row[0], "state": json.loads(row[1])}

    def used_bytes(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT COALESCE(SUM(size), 0) FROM snippets").fetchone()[0]


_stores: dict[Path, SnippetStore] = {}


def store_for(data_dir: Path) -> SnippetStore:
    """One store per data folder (tests point the settings at a temporary folder)."""
    key = Path(data_dir).resolve()
    if key not in _stores:
        _stores[key] = SnippetStore(key)
    return _stores[key]
