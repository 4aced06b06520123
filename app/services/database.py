"""The one database every store shares: SQLite (WAL) in the data folder, or PostgreSQL.

DAGSCOPE_DATABASE_URL chooses: empty (the default) is the embedded SQLite file
`<data folder>/snippets.sqlite3` (named for its first table), fine for one server process;
`postgresql://user:password@host:5432/dbname` is PostgreSQL through psycopg 3 and its connection
pool, which several replicas of the app share (docs/deploy.md).

The stores write their SQL once for both: `%s` placeholders (turned into SQLite's `?` here), and
only what both dialects mean the same (ON CONFLICT, RETURNING, COALESCE). A store that must see
the table as no one else is writing it (a quota, an eviction) asks `transaction(lock=NAME)`:
SQLite's BEGIN IMMEDIATE (one writer at a time, across processes), PostgreSQL's transaction-scoped
advisory lock on NAME (across replicas), taken before the transaction reads anything. One that
reads and then writes says `transaction(writes=True)`: SQLite begins it IMMEDIATE too, because a
deferred transaction whose snapshot another connection wrote past cannot be upgraded to a writer
— it fails at once with "database is locked", the busy timeout never applies (WAL's
SQLITE_BUSY_SNAPSHOT). PostgreSQL needs nothing for it.

The schema is made and changed by app/services/migrations (ordered SQL files, a version table)."""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import stat
import threading
import time
from pathlib import Path

SQLITE_FILE = "snippets.sqlite3"


class Database:
    """What a store needs: transactions, a name for its dialect, and which errors mean a duplicate key."""

    dialect = ""
    shared = False                  # True: other processes (replicas) use the same data

    def transaction(self, lock: str | None = None, writes: bool = False):
        raise NotImplementedError

    def close(self) -> None:
        pass

    def check(self) -> None:
        """Raise if the database cannot answer a query now (the readiness check)."""
        with self.transaction() as tx:
            tx.execute("SELECT 1").fetchone()


class _SQLiteTransaction:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql.replace("%s", "?"), params)

    def executemany(self, sql: str, rows) -> None:
        self.conn.executemany(sql.replace("%s", "?"), rows)


class SQLiteDatabase(Database):
    """One SQLite file in WAL mode; a connection per transaction keeps it safe across threads."""

    dialect = "sqlite"

    def __init__(self, data_dir: Path):
        # Only the server's user may enter the data folder or read the store (runs have uids of
        # their own): the folder 0700, the database 0600 (SQLite gives its -wal and -shm files
        # the database's mode).
        data_dir = Path(data_dir)
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not data_dir.stat().st_mode & stat.S_ISVTX:      # never narrow a shared folder such as /tmp
            os.chmod(data_dir, 0o700)
        self.path = data_dir / SQLITE_FILE
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        self._use_wal()

    def _use_wal(self, within_s: float = 10.0) -> None:
        """Put the file in WAL mode (kept in the file: a no-op once done). Made new, the file is in
        rollback mode until then, and another process or thread opening it at the same moment may
        hold a write transaction: the change (a reader asking to write) is then refused at once,
        without the busy timeout, to avoid a deadlock — so it is tried again until `within_s`."""
        deadline = time.monotonic() + within_s
        while True:
            try:
                with contextlib.closing(self._connect()) as conn:
                    conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: no transactions opened behind our back; transaction() says BEGIN
        return sqlite3.connect(self.path, timeout=5, isolation_level=None)

    @contextlib.contextmanager
    def transaction(self, lock: str | None = None, writes: bool = False):
        conn = self._connect()
        try:
            conn.execute("BEGIN IMMEDIATE" if lock or writes else "BEGIN")
            try:
                yield _SQLiteTransaction(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        finally:
            conn.close()

    def integrity_errors(self) -> tuple:
        return (sqlite3.IntegrityError,)


class _PostgresTransaction:
    def __init__(self, conn):
        self.conn = conn

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows) -> None:
        with self.conn.cursor() as cursor:
            cursor.executemany(sql, rows)


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for pg_advisory_xact_lock (the same in every replica)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


class PostgresDatabase(Database):
    """PostgreSQL through a psycopg_pool.ConnectionPool (opened at once, so a wrong URL fails the
    start rather than the first student's share)."""

    dialect = "postgresql"
    shared = True

    def __init__(self, url: str, max_connections: int = 10, timeout_s: float = 10.0):
        from psycopg_pool import ConnectionPool     # only where PostgreSQL is chosen
        self.url = url
        self.pool = ConnectionPool(url, min_size=1, max_size=max(1, max_connections), timeout=timeout_s,
                                   open=False, name="dagscope", check=ConnectionPool.check_connection)
        self.pool.open(wait=True, timeout=timeout_s)

    @contextlib.contextmanager
    def transaction(self, lock: str | None = None, writes: bool = False):
        # the pool's connection context commits on a clean exit and rolls back on an exception
        with self.pool.connection() as conn:
            if lock:
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (lock_key(lock),))
            yield _PostgresTransaction(conn)

    def integrity_errors(self) -> tuple:
        import psycopg
        return (psycopg.errors.IntegrityError,)

    def close(self) -> None:
        self.pool.close()


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


def open_database(url: str, data_dir: Path, max_connections: int = 10) -> Database:
    """The database `url` names (empty: SQLite in `data_dir`), its schema migrated to the newest."""
    from app.services import migrations
    if not url:
        db: Database = SQLiteDatabase(data_dir)
    elif is_postgres_url(url):
        db = PostgresDatabase(url, max_connections)
    else:
        raise ValueError("DAGSCOPE_DATABASE_URL is neither empty (SQLite in the data folder) "
                         "nor a postgresql:// URL")
    try:
        migrations.migrate(db)
    except BaseException:
        db.close()
        raise
    return db


_databases: dict[tuple, Database] = {}
_databases_lock = threading.Lock()


def database(settings=None) -> Database:
    """The process's database for these settings (one per URL and data folder: tests point the
    settings at temporary ones)."""
    if settings is None:
        from app.config import get_settings
        settings = get_settings()
    key = (settings.database_url, str(Path(settings.data_dir).resolve()) if not settings.database_url else "")
    with _databases_lock:
        found = _databases.get(key)
        if found is None:
            found = _databases[key] = open_database(settings.database_url, Path(settings.data_dir),
                                                    settings.database_connections)
        return found


def close_all() -> None:
    """Close every pool this process opened (the server's shutdown)."""
    with _databases_lock:
        for db in _databases.values():
            db.close()
        _databases.clear()


def listen(url: str, channel: str, on_payload, closing: threading.Event, who: str) -> None:
    """PostgreSQL's LISTEN on `channel` until `closing` is set, `on_payload(payload)` for each NOTIFY;
    when the database goes away, `who` says so in the log and listens again 2 s later."""
    import psycopg
    while not closing.is_set():
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(f"LISTEN {channel}")
                while not closing.is_set():
                    for note in conn.notifies(timeout=1.0):
                        on_payload(note.payload)
        except Exception as exc:                # noqa: BLE001 — the database went away: listen again
            logging.getLogger("dagscope.database").warning("%s lost its connection (%s); listening again in 2 s",
                                                           who, exc)
            closing.wait(2.0)
