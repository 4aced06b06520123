-- Stop keys of the runs going on any replica (app/services/stop_relay.py): a Stop that reaches
-- another replica finds the key here and tells the one running it (PostgreSQL's NOTIFY).
-- The key is kept as a hash with the client's address, never as given.
CREATE TABLE run_stop_keys (
    digest TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL
);
