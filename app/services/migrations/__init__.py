"""The database's schema: an ordered list of SQL files and a version table (schema_migrations).

`NNNN_name.sql` is migration NNNN for both dialects; where SQLite and PostgreSQL need different
words (BLOB and BYTEA), `NNNN_name.sqlite.sql` and `NNNN_name.postgresql.sql` replace it. Each
migration runs once, in order, in one transaction with its row in schema_migrations, under the
schema lock (database.py: BEGIN IMMEDIATE, or PostgreSQL's advisory lock), so replicas that start
together migrate once and a failed migration leaves nothing half done. A migration is never edited
once it has landed: a change is a new file. Why this and not Alembic: docs/deploy.md ("Schema")."""
from __future__ import annotations

import re
import time
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
FILE = re.compile(r"(?P<version>[0-9]{4})_(?P<name>[a-z0-9_]+?)(?:\.(?P<dialect>sqlite|postgresql))?\.sql")
VERSION_TABLE = """CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied DOUBLE PRECISION NOT NULL)"""
SCHEMA_LOCK = "dagscope schema"


def migrations(dialect: str) -> list[tuple[int, str, str]]:
    """(version, name, SQL) for `dialect`, in order."""
    found: dict[int, tuple[str, Path, str | None]] = {}
    for path in FOLDER.glob("*.sql"):
        match = FILE.fullmatch(path.name)
        if match is None:
            raise ValueError(f"migration file {path.name} is not NNNN_name[.dialect].sql")
        version, name, only = int(match["version"]), match["name"], match["dialect"]
        if only not in (None, dialect):
            continue
        if version in found and found[version][2] == only:
            raise ValueError(f"two migrations are numbered {version:04d}")
        if version not in found or only == dialect:      # the dialect's own file wins
            found[version] = (name, path, only)
    return [(v, name, path.read_text()) for v, (name, path, _) in sorted(found.items())]


def statements(sql: str) -> list[str]:
    """A file's statements: split at a `;` that ends a line (no migration puts one inside a string)."""
    without_comments = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in re.split(r";\s*$", without_comments, flags=re.M) if s.strip()]


def migrate(db) -> list[int]:
    """Apply what `db` lacks; returns the versions applied now."""
    applied = []
    with db.transaction(lock=SCHEMA_LOCK) as tx:
        tx.execute(VERSION_TABLE)
        if db.dialect == "sqlite":
            _adopt_store_from_before_migrations(tx)
        done = {row[0] for row in tx.execute("SELECT version FROM schema_migrations").fetchall()}
        for version, name, sql in migrations(db.dialect):
            if version in done:
                continue
            for statement in statements(sql):
                tx.execute(statement)
            tx.execute("INSERT INTO schema_migrations (version, name, applied) VALUES (%s, %s, %s)",
                       (version, name, time.time()))
            applied.append(version)
    return applied


def current_version(db) -> int:
    with db.transaction() as tx:
        return tx.execute("SELECT COALESCE(MAX(version), 0) FROM schema_migrations").fetchone()[0]


def _adopt_store_from_before_migrations(tx) -> None:
    """A share-link store made before the version table (SQLite only) may lack the columns the
    store quota added (size, opened): add them, so that 0001 finds the table it makes."""
    columns = {row[1] for row in tx.execute("PRAGMA table_info(snippets)").fetchall()}
    if not columns:
        return
    for name, kind in (("size", "INTEGER"), ("opened", "REAL")):
        if name not in columns:
            tx.execute(f"ALTER TABLE snippets ADD COLUMN {name} {kind}")
    tx.execute("UPDATE snippets SET size = length(CAST(code AS BLOB)) + length(CAST(state AS BLOB)) "
               "WHERE size IS NULL")
