-- Chat sessions: one account each; state is what follow-up questions are resolved against.
CREATE TABLE sessions (
    id          text PRIMARY KEY,
    account_id  text NOT NULL,
    state       jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL
);
CREATE INDEX sessions_account_idx ON sessions (account_id, updated_at DESC);

-- Messages of a session, with their token counts so that trimming to a budget needs no tokenizer.
CREATE TABLE messages (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id  text NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role        text NOT NULL CHECK (role IN ('user', 'assistant')),
    content     text NOT NULL,
    tokens      integer NOT NULL CHECK (tokens >= 0),
    created_at  timestamptz NOT NULL
);
CREATE INDEX messages_session_idx ON messages (session_id, id DESC);

-- Public feed events: only the rendered, scrubbed summary is stored, never the raw fields.
-- source_id makes recording an event from another service idempotent.
CREATE TABLE feed_events (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    source_id   text UNIQUE,
    module      text NOT NULL,
    event_type  text NOT NULL,
    summary     text NOT NULL,
    occurred_at timestamptz NOT NULL
);
CREATE INDEX feed_events_recent_idx ON feed_events (occurred_at DESC);
