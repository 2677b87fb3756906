-- Each usage-writer worker keeps its own rollup row and dirty mark per account (its lane), so
-- concurrent batches for one busy account never wait on each other's row locks until commit.
-- Readers sum over lanes.
ALTER TABLE usage_daily ADD COLUMN lane smallint NOT NULL DEFAULT 0;
ALTER TABLE usage_daily DROP CONSTRAINT usage_daily_pkey;
ALTER TABLE usage_daily ADD PRIMARY KEY (account_id, day, feature, lane);

ALTER TABLE dirty_accounts ADD COLUMN lane smallint NOT NULL DEFAULT 0;
ALTER TABLE dirty_accounts DROP CONSTRAINT dirty_accounts_pkey;
ALTER TABLE dirty_accounts ADD PRIMARY KEY (account_id, lane);
