-- Answers to requests sent with an Idempotency-Key, per caller, kept for the key's lifetime so a
-- retry gets the first answer instead of a second effect. status is NULL while the first request
-- runs; locked_until lets a retry take over a claim whose process died.
CREATE TABLE idempotent_requests (
    scope        text NOT NULL,
    key          text NOT NULL,
    fingerprint  bytea NOT NULL,
    status       integer,
    content_type text,
    body         bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    locked_until timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotent_requests_created ON idempotent_requests (created_at);
