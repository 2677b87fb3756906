-- Churn models fitted from observed cancellations (`analytics churn fit`); the newest row is the
-- one in use, and with no row the published default model applies.
CREATE TABLE churn_models (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    fitted_at    timestamptz NOT NULL,
    intercept    double precision NOT NULL,
    coefficients jsonb NOT NULL,
    churned      integer NOT NULL,
    retained     integer NOT NULL
);
