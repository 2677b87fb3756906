-- Outbox: rows written in the producer's own transactions and published by the relay. The partial
-- index keeps the relay's scan proportional to the unpublished backlog, not the table.
CREATE TABLE outbox (
    id           text PRIMARY KEY,
    type         text NOT NULL,
    account_id   text NOT NULL,
    payload      jsonb NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    published_at timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (created_at, id) WHERE published_at IS NULL;
CREATE INDEX outbox_published ON outbox (published_at) WHERE published_at IS NOT NULL;

-- Event ids a consumer group has handled, recorded in the handler's transaction, so a redelivered
-- event is recognised and skipped.
CREATE TABLE processed_events (
    consumer_group text NOT NULL,
    event_id       text NOT NULL,
    processed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, event_id)
);
CREATE INDEX processed_events_processed_at ON processed_events (processed_at);
