"""Share-link store: code + view state in the database (app/services/database.py: SQLite in the
data folder, or the PostgreSQL every replica shares), keyed by unguessable ids."""
from __future__ import annotations

import json
import secrets
import threading
import time
from pathlib import Path

from app.services.database import Database, database, open_database

MAX_CODE_BYTES = 100_000
MAX_STATE_BYTES = 4_000
ID_BYTES = 6                     # token_urlsafe(6) -> 8 characters, 48 random bits
QUOTA_LOCK = "dagscope snippets quota"


class _Refusal(Exception):
    """A refusal with its wording for the page (app/responses.py worded: static/i18n api.<key>)."""

    def __init__(self, message: str, key: str, **params):
        super().__init__(message)
        self.key, self.params = key, params


class SnippetTooLarge(_Refusal, ValueError):
    """The code or the view state is over its size limit."""


class SnippetInvalid(_Refusal, ValueError):
    """The view state cannot be stored as strict JSON."""


class SnippetStoreFull(_Refusal, RuntimeError):
    """The store is at its quota and holds only snippets someone has opened."""


class SnippetStore:
    """The snippets table of `db` (a Path: the SQLite database in that data folder)."""

    def __init__(self, db: Database | Path):
        self.db = open_database("", db) if isinstance(db, Path) else db

    @property
    def path(self) -> Path:
        """The SQLite file (the embedded database only)."""
        return self.db.path

    def save(self, code: str, state: dict, quota_bytes: int | None = None) -> str:
        """Store a snippet; over `quota_bytes` (code + state of all snippets; None or 0: no quota)
        the oldest snippets nobody has opened yet make room, and if they cannot, SnippetStoreFull."""
        code_bytes = len(code.encode())
        if code_bytes > MAX_CODE_BYTES:
            raise SnippetTooLarge(f"code is longer than {MAX_CODE_BYTES} bytes", "code_too_long", bytes=MAX_CODE_BYTES)
        try:
            state_text = json.dumps(state, separators=(",", ":"), allow_nan=False)
        except (ValueError, RecursionError):
            raise SnippetInvalid("view state is not plain JSON (non-finite numbers, or nested too deep)",
                                 "state_not_json") from None
        if len(state_text.encode()) > MAX_STATE_BYTES:
            raise SnippetTooLarge(f"view state is larger than {MAX_STATE_BYTES} bytes", "state_too_large",
                                  bytes=MAX_STATE_BYTES)
        size = code_bytes + len(state_text.encode())
        # the quota is counted with no other writer in between, whichever replica writes
        with self.db.transaction(lock=QUOTA_LOCK if quota_bytes else None) as tx:
            if quota_bytes:
                self._make_room(tx, size, quota_bytes)
            while True:  # a collision is astronomically rare, but never overwrite someone's snippet
                snippet_id = secrets.token_urlsafe(ID_BYTES)
                inserted = tx.execute(
                    "INSERT INTO snippets (id, code, state, created, size) VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT (id) DO NOTHING", (snippet_id, code, state_text, time.time(), size)).rowcount
                if inserted == 1:
                    return snippet_id

    @staticmethod
    def _make_room(tx, size: int, quota_bytes: int) -> None:
        used = int(tx.execute("SELECT COALESCE(SUM(size), 0) FROM snippets").fetchone()[0])   # numeric in PostgreSQL
        if used + size <= quota_bytes:
            return
        freed, doomed = 0, []
        for snippet_id, snippet_size in tx.execute(
                "SELECT id, size FROM snippets WHERE opened IS NULL ORDER BY created").fetchall():
            doomed.append((snippet_id,))
            freed += snippet_size
            if used - freed + size <= quota_bytes:
                break
        if used - freed + size > quota_bytes:
            raise SnippetStoreFull(
                f"the snippet store is full ({used / 1e6:.1f} of {quota_bytes / 1e6:.1f} MB, in snippets "
                "people have opened): ask the teacher to raise DAGSCOPE_SNIPPET_STORE_MB", "store_full",
                used=f"{used / 1e6:.1f}", quota=f"{quota_bytes / 1e6:.1f}")
        tx.executemany("DELETE FROM snippets WHERE id = %s", doomed)

    def load(self, snippet_id: str) -> dict | None:
        with self.db.transaction(writes=True) as tx:
            row = tx.execute("SELECT code, state FROM snippets WHERE id = %s", (snippet_id,)).fetchone()
            if row is not None:     # opened: kept when the quota makes room for new snippets
                tx.execute("UPDATE snippets SET opened = %s WHERE id = %s", (time.time(), snippet_id))
        if row is None:
            return None
        return {"id": snippet_id, "code": row[0], "state": json.loads(row[1])}

    def used_bytes(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COALESCE(SUM(size), 0) FROM snippets").fetchone()[0])

    def count(self) -> int:
        with self.db.transaction() as tx:
            return int(tx.execute("SELECT COUNT(*) FROM snippets").fetchone()[0])


_stores: dict[int, SnippetStore] = {}
_stores_lock = threading.Lock()


def store(settings=None) -> SnippetStore:
    """The store in the database the settings name (tests point them at temporary ones)."""
    db = database(settings)
    with _stores_lock:
        found = _stores.get(id(db))
        if found is None or found.db is not db:
            found = _stores[id(db)] = SnippetStore(db)
        return found
