-- A phone keeps its extension apart from the E.164 number, and a number that does not parse is kept
-- as given instead of being dropped (issue 26).
ALTER TABLE sheet_leads
    ADD COLUMN phone_extension text NOT NULL DEFAULT '',
    ADD COLUMN phone_raw       text NOT NULL DEFAULT '';
