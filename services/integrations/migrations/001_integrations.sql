-- Accounts as projected from identity's account.created: enough to match payment events by
-- email and to know which accounts own webhook secrets.
CREATE TABLE accounts (
    id         text PRIMARY KEY,
    email      text NOT NULL,
    role       text NOT NULL CHECK (role IN ('owner', 'client')),
    owner_id   text,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX accounts_email ON accounts (lower(email));

-- One inbound webhook secret per owner account, stored as SHA-256 of a 256-bit random secret.
CREATE TABLE webhook_secrets (
    account_id  text PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    secret_hash bytea NOT NULL UNIQUE,
    rotated_at  timestamptz NOT NULL DEFAULT now()
);

-- Every accepted inbound event (the contact-form records live here too).
CREATE TABLE inbox (
    id              text PRIMARY KEY,
    account_id      text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    event           text NOT NULL,
    fields          jsonb NOT NULL,
    idempotency_key text,
    body_hash       bytea NOT NULL,
    received_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX inbox_idempotency_key ON inbox (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX inbox_body_hash ON inbox (account_id, body_hash, received_at DESC);

CREATE TABLE subscriptions (
    id            text PRIMARY KEY,
    account_id    text NOT NULL,
    event         text NOT NULL,
    hook_url      text NOT NULL,
    secret        text NOT NULL,
    status        text NOT NULL CHECK (status IN ('active', 'disabled')),
    failing_since timestamptz,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX subscriptions_account_event ON subscriptions (account_id, event) WHERE status = 'active';

-- One row per (event, subscription); its id is the stable webhook-id across retries and replays.
CREATE TABLE deliveries (
    id              text PRIMARY KEY,
    subscription_id text NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    event           text NOT NULL,
    payload         jsonb NOT NULL,
    status          text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'canceled')),
    attempts        int NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz
);
CREATE INDEX deliveries_subscription ON deliveries (subscription_id, created_at DESC);

CREATE TABLE delivery_attempts (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id     text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
    subscription_id text NOT NULL,
    attempted_at    timestamptz NOT NULL DEFAULT now(),
    status_code     int,
    latency_ms      int NOT NULL,
    error           text
);
CREATE INDEX delivery_attempts_subscription ON delivery_attempts (subscription_id, attempted_at DESC);
CREATE INDEX delivery_attempts_delivery ON delivery_attempts (delivery_id);

-- Stripe events already handled, so a redelivered event is acknowledged without effects.
CREATE TABLE payment_events (
    id          text PRIMARY KEY,
    type        text NOT NULL,
    account_id  text,
    received_at timestamptz NOT NULL DEFAULT now()
);

-- Stripe customer ids learned from events that carry both id and email, so that events carrying
-- only the customer id (subscription changes) still find their account.
CREATE TABLE payment_customers (
    customer_id text PRIMARY KEY,
    account_id  text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE
);
