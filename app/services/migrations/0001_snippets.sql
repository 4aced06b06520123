-- Share links: code and view state under an unguessable id (app/services/snippets.py).
-- size: bytes of code + state (the store's quota); opened: when a link was last followed (NULL until then).
CREATE TABLE IF NOT EXISTS snippets (
    id TEXT PRIMARY KEY,
    code TEXT NOT NULL,
    state TEXT NOT NULL,
    created DOUBLE PRECISION NOT NULL,
    size BIGINT,
    opened DOUBLE PRECISION
);
CREATE INDEX IF NOT EXISTS snippets_unopened ON snippets (created) WHERE opened IS NULL;
