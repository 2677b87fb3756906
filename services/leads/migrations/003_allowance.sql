-- Monthly batch-scoring allowance per plan: data, not constants. NULL means unlimited.
CREATE TABLE plan_batch_allowances (
    plan          text PRIMARY KEY,
    monthly_limit integer CHECK (monthly_limit >= 0)
);
INSERT INTO plan_batch_allowances (plan, monthly_limit) VALUES
    ('free', 25), ('growth', NULL), ('full_stack', NULL);

-- Scores spent per account and calendar month (UTC); the row is locked while a batch is admitted.
CREATE TABLE batch_usage (
    account_id text    NOT NULL,
    month      date    NOT NULL,
    used       integer NOT NULL DEFAULT 0 CHECK (used >= 0),
    PRIMARY KEY (account_id, month)
);
