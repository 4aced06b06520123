-- A run's tensor values as one row (app/services/tensors.py's DatabaseTensorStore), written after
-- the run is answered, instead of a row per tensor written while the run held its slot: the
-- bytes of all its tensors in one value, their index (id -> dtype, shape, offset, size) beside it,
-- and a click reads its tensor's slice with substr(). The bytes are stored EXTERNAL (out of line,
-- never compressed: float values do not compress, and pglz tried on each run's megabytes; substr
-- of an uncompressed value reads only the pages it needs). The tables are UNLOGGED: these values
-- are a cache kept for a while ("run the program again" after), so they need no write-ahead log
-- (megabytes per run) and a crash may empty them; pg_dump's --no-unlogged-table-data leaves them out.
-- The kept values from before this migration are dropped with their old table.
DROP TABLE tensor_values;
DELETE FROM tensor_runs;
ALTER TABLE tensor_runs ADD COLUMN kept_at DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tensor_runs SET UNLOGGED;
CREATE UNLOGGED TABLE tensor_blobs (
    run_id TEXT PRIMARY KEY REFERENCES tensor_runs (run_id) ON DELETE CASCADE,
    tensor_index TEXT NOT NULL,
    data BYTEA NOT NULL
);
ALTER TABLE tensor_blobs ALTER COLUMN data SET STORAGE EXTERNAL;
CREATE UNLOGGED TABLE tensor_summaries (
    run_id TEXT NOT NULL REFERENCES tensor_runs (run_id) ON DELETE CASCADE,
    ref TEXT NOT NULL,
    summary TEXT NOT NULL,
    PRIMARY KEY (run_id, ref)
);
