-- Owners sign in; clients belong to an owner and never sign in.
CREATE TABLE accounts (
    id            text PRIMARY KEY,
    email         text NOT NULL,
    password_hash text,
    plan          text NOT NULL CHECK (plan IN ('free', 'growth', 'full_stack')),
    role          text NOT NULL CHECK (role IN ('owner', 'client')),
    owner_id      text REFERENCES accounts (id),
    business_name text NOT NULL DEFAULT '',
    owner_name    text NOT NULL DEFAULT '',
    phone         text NOT NULL DEFAULT '',
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    CHECK ((role = 'owner') = (owner_id IS NULL)),
    CHECK (role = 'client' OR password_hash IS NOT NULL)
);

-- One owner per email; a client's email is unique within its owner.
CREATE UNIQUE INDEX accounts_owner_email ON accounts (email) WHERE role = 'owner';
CREATE UNIQUE INDEX accounts_client_email ON accounts (owner_id, email) WHERE role = 'client';
CREATE INDEX accounts_owner_id ON accounts (owner_id, created_at) WHERE owner_id IS NOT NULL;

-- Ed25519 signing keys. The newest unretired key signs; retired keys stay published until every
-- token they signed has expired, so rotation never invalidates a live token.
CREATE TABLE signing_keys (
    kid         text PRIMARY KEY,
    private_key bytea NOT NULL,
    public_key  bytea NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    retired_at  timestamptz
);
