-- Every read goes through usage_daily; the raw events are kept for audit and replay only, so the
-- per-account index cost every log-usage insert work and served no query.
DROP INDEX IF EXISTS usage_events_account;
