-- A run's tensor values as one row, written after the run is answered (the PostgreSQL file says
-- why; SQLite has no storage modes nor unlogged tables, and the store deletes a run's rows itself).
DROP TABLE tensor_values;
DELETE FROM tensor_runs;
ALTER TABLE tensor_runs ADD COLUMN kept_at DOUBLE PRECISION NOT NULL DEFAULT 0;
CREATE TABLE tensor_blobs (
    run_id TEXT PRIMARY KEY,
    tensor_index TEXT NOT NULL,
    data BLOB NOT NULL
);
CREATE TABLE tensor_summaries (
    run_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (run_id, ref)
);
