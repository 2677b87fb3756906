-- An answer marked Cache-Control: no-store (idempotency.ShownOnce) holds a secret shown only once:
-- it is kept without the members withheld names ('{}' and no body: all of it), and a retry is
-- answered 409 idempotency_secret_withheld instead of the secret again.
ALTER TABLE idempotent_requests ADD COLUMN withheld text[];
-- Answers stored before this kept their secrets: withhold them whole. These are the project's
-- secret forms: API keys, invitation tokens, subscription signing secrets, inbound secrets.
UPDATE idempotent_requests SET body = NULL, withheld = '{}'
WHERE position('"bza_'::bytea IN body) > 0 OR position('"bzi_'::bytea IN body) > 0
    OR position('"whsec_'::bytea IN body) > 0 OR position('"bzext_'::bytea IN body) > 0;
