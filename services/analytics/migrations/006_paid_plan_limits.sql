-- The specification makes batch scoring unlimited on paid plans, and lead_scoring is what the
-- batch reserves, so growth's lead_scoring is unlimited too. full_stack, the top plan, is
-- unlimited on every metered feature. Only rows still at their seeded values change: a limit an
-- operator set by hand is kept.
UPDATE plan_limits SET monthly_limit = NULL
 WHERE (plan, feature, monthly_limit) IN (('growth', 'lead_scoring', 500), ('full_stack', 'lead_finder', 2000));
