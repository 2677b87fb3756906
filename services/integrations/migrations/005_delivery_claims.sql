-- A delivery planned by this service is first attempted by the process that planned it, without a
-- queue job: claimed_until is how long that process owns it. A pending delivery whose claim has
-- run out (its process died or fell behind) is handed to a River job by the claim sweeper; a
-- delivery with no claim is a job's.
ALTER TABLE deliveries ADD COLUMN claimed_until timestamptz;
CREATE INDEX deliveries_claim_expiry ON deliveries (claimed_until) WHERE claimed_until IS NOT NULL;
