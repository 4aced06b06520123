-- Tensor values a row per tensor again (the PostgreSQL file says why).
DROP TABLE tensor_blobs;
DELETE FROM tensor_summaries;
DELETE FROM tensor_runs;
CREATE TABLE tensor_values (
    run_id TEXT NOT NULL,
    ref TEXT NOT NULL,
    dtype TEXT NOT NULL,
    shape TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, ref)
);
