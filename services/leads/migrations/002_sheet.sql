-- Each account's leads sheet. Same email (any case) or same phone within an account is the same lead.
CREATE TABLE sheet_leads (
    id            text        PRIMARY KEY,
    account_id    text        NOT NULL,
    name          text        NOT NULL,
    email         text        NOT NULL,
    phone         text        NOT NULL DEFAULT '',
    business_name text        NOT NULL DEFAULT '',
    source        text        NOT NULL,
    created_at    timestamptz NOT NULL
);

CREATE UNIQUE INDEX sheet_leads_account_email ON sheet_leads (account_id, lower(email));
CREATE UNIQUE INDEX sheet_leads_account_phone ON sheet_leads (account_id, phone) WHERE phone <> '';
-- Listing pages through an account's sheet newest first; ids are ULIDs so they sort by time.
CREATE INDEX sheet_leads_account_id ON sheet_leads (account_id, id DESC);
