-- Projection of identity's accounts, built from events: owners and their clients, plan, last
-- login and payment state. A row may first appear from a login or an API call; account.created
-- then fills in the rest.
CREATE TABLE accounts (
    account_id       text PRIMARY KEY,
    owner_id         text,
    email            text NOT NULL DEFAULT '',
    business_name    text NOT NULL DEFAULT '',
    plan             text NOT NULL DEFAULT 'free',
    created_at       timestamptz NOT NULL,
    last_login_at    timestamptz,
    payment_status   text NOT NULL DEFAULT 'unknown',
    payment_failures integer NOT NULL DEFAULT 0,
    payment_at       timestamptz,
    -- Set on accounts made by `analytics demo seed`, never on real ones.
    demo             boolean NOT NULL DEFAULT false
);
CREATE INDEX accounts_owner ON accounts (owner_id) WHERE owner_id IS NOT NULL;
CREATE INDEX accounts_email ON accounts (email);

-- Every usage event: logged through the API (source 'api') or reported by another service
-- (source 'event').
CREATE TABLE usage_events (
    event_id    text PRIMARY KEY,
    account_id  text NOT NULL,
    feature     text NOT NULL,
    action      text,
    uses        integer NOT NULL CHECK (uses > 0),
    meta        jsonb,
    source      text NOT NULL,
    occurred_at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_events_account ON usage_events (account_id, occurred_at);

-- Daily use per feature, kept in the transaction that stores the events, so monthly allowances
-- and signal windows read a few rows per account instead of every event.
CREATE TABLE usage_daily (
    account_id text NOT NULL,
    day        date NOT NULL,
    feature    text NOT NULL,
    uses       bigint NOT NULL,
    PRIMARY KEY (account_id, day, feature)
);

-- Daily counts of the other activity the signals read.
CREATE TABLE activity_daily (
    account_id text NOT NULL,
    day        date NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('login', 'lead', 'inbound')),
    n          bigint NOT NULL,
    PRIMARY KEY (account_id, day, kind)
);

-- Idempotency-Key of log-usage: a retry with the same key gets the first response. The
-- fingerprint of the request tells a retry from a different request reusing a key.
CREATE TABLE idempotency_keys (
    account_id  text NOT NULL,
    key         text NOT NULL,
    fingerprint bytea NOT NULL,
    event_id    text NOT NULL,
    created_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Monthly allowance per plan and metered feature; NULL means unlimited. Data, not code: change
-- the rows to change the limits.
CREATE TABLE plan_limits (
    plan          text NOT NULL,
    feature       text NOT NULL,
    monthly_limit integer CHECK (monthly_limit IS NULL OR monthly_limit >= 0),
    PRIMARY KEY (plan, feature)
);
INSERT INTO plan_limits (plan, feature, monthly_limit) VALUES
    ('free',       'chat',         50),
    ('free',       'lead_scoring', 25),
    ('free',       'lead_finder',  20),
    ('growth',     'chat',         1000),
    ('growth',     'lead_scoring', 500),
    ('growth',     'lead_finder',  300),
    ('full_stack', 'chat',         NULL),
    ('full_stack', 'lead_scoring', NULL),
    ('full_stack', 'lead_finder',  2000);

-- Accounts whose facts changed since their score was computed; the health worker drains it.
CREATE TABLE dirty_accounts (
    account_id text PRIMARY KEY,
    marked_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dirty_accounts_marked ON dirty_accounts (marked_at);

-- The latest score of each account; tier is what decides entry into critical.
CREATE TABLE health_current (
    account_id  text PRIMARY KEY,
    score       integer NOT NULL CHECK (score BETWEEN 0 AND 100),
    tier        text NOT NULL CHECK (tier IN ('healthy', 'at_risk', 'critical')),
    churn       integer NOT NULL CHECK (churn BETWEEN 0 AND 100),
    signals     jsonb NOT NULL,
    computed_at timestamptz NOT NULL
);

-- History: one row each time an account's score or tier changes.
CREATE TABLE health_scores (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id  text NOT NULL,
    computed_at timestamptz NOT NULL,
    score       integer NOT NULL,
    tier        text NOT NULL,
    churn       integer NOT NULL,
    signals     jsonb NOT NULL
);
CREATE INDEX health_scores_account ON health_scores (account_id, computed_at);
