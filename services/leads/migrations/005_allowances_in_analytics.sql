-- Plan allowances are reserved with analytics, which owns plan limits and monthly usage (one
-- source of truth); the batch allowance kept here is no longer read or written.
DROP TABLE batch_usage;
DROP TABLE plan_batch_allowances;
