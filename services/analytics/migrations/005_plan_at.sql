-- When an event last set the account's plan (account.created's createdAt, account.plan_changed's
-- at). NULL means no event has said which plan the account has (the row came from a login, a
-- payment or a request), so the caller's token decides until one does. Events are delivered in
-- no particular order: one older than plan_at does not change the plan.
ALTER TABLE accounts ADD COLUMN plan_at timestamptz;
-- Rows projected before this were taken as known; any event still overrides them.
UPDATE accounts SET plan_at = '-infinity';
