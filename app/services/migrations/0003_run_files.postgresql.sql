-- Files runs wrote in their working folders, for the one who ran each to download
-- (app/services/file_store.py): a row per kept file (its owner, shown name, hash, expiry) and
-- the bytes once per SHA-256 however many runs wrote them. The two files differ only in the
-- bytes' type (SQLite's BLOB, PostgreSQL's BYTEA).
CREATE TABLE run_files (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    size BIGINT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL
);
CREATE INDEX run_files_expires ON run_files (expires);
CREATE INDEX run_files_created ON run_files (created);
CREATE INDEX run_files_sha256 ON run_files (sha256);
CREATE TABLE run_file_blobs (
    sha256 TEXT PRIMARY KEY,
    size BIGINT NOT NULL,
    data BYTEA NOT NULL
);
