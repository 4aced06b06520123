-- Per-client token buckets (app/services/rate_buckets.py), kept here when the database is shared
-- so that a client's rate limits hold across replicas: one row per route and client address,
-- the tokens left and when they were counted. Rows unused for an hour are swept.
CREATE TABLE rate_buckets (
    route TEXT NOT NULL,
    client TEXT NOT NULL,
    tokens DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (route, client)
);
CREATE INDEX rate_buckets_updated ON rate_buckets (updated);
