-- A disabled account (account.revoked with reason account_disabled) is never in good standing;
-- identity never enables one again.
ALTER TABLE feed_accounts ADD COLUMN disabled boolean NOT NULL DEFAULT false;
