-- Tensor values written on demand (app/services/tensors.py's DatabaseTensorStore): each replica
-- keeps its runs' values in memory and claims them in tensor_runs; a tensor another replica asks
-- for is written here, a row per tensor, instead of every run's values as one row in tensor_blobs
-- (0005: writing them all cost more CPU than a small model's run). UNLOGGED and EXTERNAL as 0005
-- says why. The kept values from before are dropped with their claims.
DROP TABLE tensor_blobs;
DELETE FROM tensor_summaries;
DELETE FROM tensor_runs;
CREATE UNLOGGED TABLE tensor_values (
    run_id TEXT NOT NULL REFERENCES tensor_runs (run_id) ON DELETE CASCADE,
    ref TEXT NOT NULL,
    dtype TEXT NOT NULL,
    shape TEXT NOT NULL,
    data BYTEA NOT NULL,
    PRIMARY KEY (run_id, ref)
);
ALTER TABLE tensor_values ALTER COLUMN data SET STORAGE EXTERNAL;
