-- A copy of an inbound event is refused by a unique index instead of found by a look-up under an
-- advisory lock, so accepting an event is one batch of statements in one round trip. A record
-- without an idempotency key refuses copies of its body while dedupes_body is set; accepting the
-- same body after the duplicate window first clears the flag of the record it no longer matches.
-- Copies by idempotency key keep the unique index they had (inbox_idempotency_key).
ALTER TABLE inbox ADD COLUMN dedupes_body boolean NOT NULL DEFAULT false;

-- Records within the window (24 h, app.DuplicateWindow) refuse copies from now on: the newest of
-- each body, which the look-up would have found.
UPDATE inbox SET dedupes_body = true
FROM (SELECT DISTINCT ON (account_id, body_hash) id FROM inbox
      WHERE idempotency_key IS NULL AND received_at >= now() - interval '24 hours'
      ORDER BY account_id, body_hash, received_at DESC) AS newest
WHERE inbox.id = newest.id;

CREATE UNIQUE INDEX inbox_body_copies ON inbox (account_id, body_hash) WHERE dedupes_body;
DROP INDEX inbox_body_hash;
