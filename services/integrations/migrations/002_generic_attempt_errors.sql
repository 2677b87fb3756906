-- Attempt errors are shown to the account that owns them, so they are stored in generic words
-- (domain.Failure): rewrite the detailed transport errors logged before, which could name the
-- addresses a hook's host resolved to.
UPDATE delivery_attempts SET error = CASE
    WHEN error ~ '^receiver answered [0-9]+$' THEN 'HTTP ' || substring(error FROM '[0-9]+$')
    WHEN error LIKE '%address is not a public unicast address%' THEN 'address not allowed'
    WHEN error LIKE '%redirects are not followed%' THEN 'redirect not followed'
    WHEN error LIKE '%no such host%' OR error LIKE '%server misbehaving%' THEN 'host not found'
    WHEN error LIKE '%connection refused%' THEN 'connection refused'
    WHEN error ILIKE '%timeout%' OR error LIKE '%deadline exceeded%' THEN 'timeout'
    WHEN error LIKE '%tls:%' OR error LIKE '%x509:%' THEN 'TLS error'
    ELSE 'connection failed'
END
WHERE error IS NOT NULL AND error NOT IN ('address not allowed', 'redirect not followed', 'host not found',
    'connection refused', 'timeout', 'TLS error', 'connection failed') AND error !~ '^HTTP [0-9]+$';
