-- Credentials: API keys, revocation, sign-in for clients through invitations, withdrawn signing keys.

-- Every token of the account issued before this time is refused (password change, disable).
ALTER TABLE accounts ADD COLUMN tokens_not_before timestamptz;
ALTER TABLE accounts ADD COLUMN last_login_at timestamptz;
-- A client is invited until it accepts (and chooses a password); the token is stored hashed.
ALTER TABLE accounts DROP CONSTRAINT accounts_status_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_status_check CHECK (status IN ('invited', 'active', 'disabled'));
ALTER TABLE accounts ADD COLUMN invite_hash text;
ALTER TABLE accounts ADD COLUMN invite_expires_at timestamptz;
CREATE UNIQUE INDEX accounts_invite_hash ON accounts (invite_hash) WHERE invite_hash IS NOT NULL;
-- Clients created before could not sign in: they are invited now (their owner re-invites them).
UPDATE accounts SET status = 'invited' WHERE role = 'client' AND password_hash IS NULL AND status = 'active';
-- Whoever signs in is found by email alone, so one email signs in to one account.
CREATE UNIQUE INDEX accounts_sign_in_email ON accounts (email) WHERE password_hash IS NOT NULL;

CREATE TABLE api_keys (
    id           text PRIMARY KEY,
    account_id   text NOT NULL REFERENCES accounts (id),
    name         text NOT NULL,
    prefix       text NOT NULL,
    key_hash     text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz,
    deleted_at   timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at) WHERE deleted_at IS NULL;

-- `identity keys revoke` withdraws a signing key: it is no longer published, whatever it signed.
ALTER TABLE signing_keys ADD COLUMN withdrawn_at timestamptz;

-- A client's health as analytics last reported it (health.scored), for the owner's client list.
ALTER TABLE accounts ADD COLUMN health_score integer;
ALTER TABLE accounts ADD COLUMN health_tier text;
ALTER TABLE accounts ADD COLUMN health_at timestamptz;
