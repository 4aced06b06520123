-- Large tensors' values a run sent apart from its record, for the page to fetch on a click
-- (app/services/tensors.py's DatabaseTensorStore): a row per run (its client, its bytes, when it
-- expires and when it was last read, for the least-recently-read eviction) and a row per tensor.
-- The two files differ only in the bytes' type (SQLite's BLOB, PostgreSQL's BYTEA).
CREATE TABLE tensor_runs (
    run_id TEXT PRIMARY KEY,
    client TEXT NOT NULL,
    nbytes BIGINT NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    read_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX tensor_runs_expires ON tensor_runs (expires);
CREATE INDEX tensor_runs_read_at ON tensor_runs (read_at);
CREATE TABLE tensor_values (
    run_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    dtype TEXT NOT NULL,
    shape TEXT NOT NULL,
    data BYTEA NOT NULL,
    summary TEXT,
    PRIMARY KEY (run_id, ref)
);
