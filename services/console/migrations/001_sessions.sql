-- Signed-in browsers. The cookie carries a random secret; only its SHA-256 is stored, and the
-- API token is sealed under a key derived from the secret, so this table alone opens nothing.
CREATE TABLE sessions (
    id           bytea PRIMARY KEY,
    sealed_token bytea NOT NULL,
    email        text NOT NULL,
    plan         text NOT NULL,
    chat_session text NOT NULL DEFAULT '',
    chat         jsonb NOT NULL DEFAULT '[]',
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX sessions_expires ON sessions (expires_at);
