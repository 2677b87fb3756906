-- Whose event each feed entry is, so that one account's share of the public feed is bounded
-- (NULL: seeded by an administrator, or recorded before this migration).
ALTER TABLE feed_events ADD COLUMN account_id text;
CREATE INDEX feed_events_account_idx ON feed_events (account_id, occurred_at DESC);

-- The accounts' standing as identity announces it (account.created, account.plan_changed):
-- customer text reaches the public feed only from accounts in good standing. plan_at orders the
-- plan changes, which arrive on two streams; created_at is NULL until account.created is seen.
CREATE TABLE feed_accounts (
    account_id  text PRIMARY KEY,
    plan        text NOT NULL,
    plan_at     timestamptz NOT NULL,
    created_at  timestamptz
);
