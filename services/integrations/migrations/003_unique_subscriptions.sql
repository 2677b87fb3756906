-- One subscription per (account, event, URL): a second copy only multiplied deliveries to the
-- same receiver. Duplicates made before are folded into one, keeping the oldest active copy (the
-- oldest when none is active) so a working integration is never the one removed; the others'
-- queued deliveries go with them (the kept copy has every event they had).
DELETE FROM subscriptions s
USING (
    SELECT id, row_number() OVER (PARTITION BY account_id, event, hook_url
                                  ORDER BY (status = 'active') DESC, created_at, id) AS rank
    FROM subscriptions
) ranked
WHERE s.id = ranked.id AND ranked.rank > 1;

CREATE UNIQUE INDEX subscriptions_account_event_url ON subscriptions (account_id, event, hook_url);
