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


class SnippetTooLarge(ValueError):
    """The code or the view state is over its size limit."""


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

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def save(self, code: str, state: dict) -> str:
        if len(code.encode()) > MAX_CODE_BYTES:
            raise SnippetTooLarge(f"code is longer than {MAX_CODE_BYTES} bytes")
        state_text = json.dumps(state, separators=(",", ":"))
        if len(state_text.encode()) > MAX_STATE_BYTES:
            raise SnippetTooLarge(f"view state is larger than {MAX_STATE_BYTES} bytes")
        with self._lock, self._connect() as db:
            while True:  # a collision is astronomically rare, but never overwrite someone's snippet
                snippet_id = secrets.token_urlsafe(ID_BYTES)
                try:
                    db.execute("INSERT INTO snippets VALUES (?, ?, ?, ?)",
                               (snippet_id, code, state_text, time.time()))
                    return snippet_id
                except sqlite3.IntegrityError:
                    continue

    def load(self, snippet_id: str) -> dict | None:
        with self._connect() as db:
            row = db.execute("SELECT code, state FROM snippets WHERE id = ?", (snippet_id,)).fetchone()
        if row is None:
            return None
        return {"id": snippet_id, "code": row[0], "state": json.loads(row[1])}


_stores: dict[Path, SnippetStore] = {}


def store_for(data_dir: Path) -> SnippetStore:
    """One store per data folder (tests point the settings at a temporary folder)."""
    key = Path(data_dir).resolve()
    if key not in _stores:
        _stores[key] = SnippetStore(key)
    return _stores[key]
