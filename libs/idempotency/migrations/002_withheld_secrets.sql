-- An answer whose members idempotency.ShownOnce named holds a secret shown only once: it is kept
-- without the members withheld names (without any body when the answer was not a JSON object,
-- or '{}' and no body below), and a retry is answered 409 idempotency_secret_withheld instead.
ALTER TABLE idempotent_requests ADD COLUMN withheld text[];
-- Answers stored before this kept their secrets: withhold them whole. These are the project's
-- secret forms: API keys, invitation tokens, subscription signing secrets, inbound secrets.
UPDATE idempotent_requests SET body = NULL, withheld = '{}'
WHERE position('"bza_'::bytea IN body) > 0 OR position('"bzi_'::bytea IN body) > 0
    OR position('"whsec_'::bytea IN body) > 0 OR position('"bzext_'::bytea IN body) > 0;
