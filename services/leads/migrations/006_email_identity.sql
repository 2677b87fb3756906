-- A lead's identity within an account is its email (case-insensitive), as in CRMs: a shared phone
-- (an office line) no longer makes two people one lead. A lead's id is derived from its account
-- and email (libs/ids.Derived, leadsevents.LeadID), so integrations can answer an inbound lead
-- with the id the row gets; rows written before are rekeyed to that id here.
DROP INDEX sheet_leads_account_phone;

-- The function lives in the service's schema for this migration only: a pg_temp one would need
-- TEMPORARY on the database, a grant the role needs for nothing else.
CREATE FUNCTION migration_006_derived_lead_id(account text, email text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    -- ids.Derived: SHA-256 over each part followed by a zero byte, first 16 bytes as a ULID.
    b        bytea := substring(sha256(convert_to(account, 'UTF8') || '\x00'::bytea || convert_to(lower(btrim(email)), 'UTF8') || '\x00'::bytea) FROM 1 FOR 16);
    alphabet text  := '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    out      text  := 'lead_';
    v        int;
    bit      int;
BEGIN
    -- 26 characters of 5 bits are 130 bits: two zero bits, then the 128 bits, most significant first.
    FOR i IN 0..25 LOOP
        v := 0;
        FOR j IN 0..4 LOOP
            bit := i * 5 + j - 2;
            v := v * 2 + CASE WHEN bit < 0 THEN 0 ELSE get_bit(b, (bit / 8) * 8 + 7 - bit % 8) END;
        END LOOP;
        out := out || substr(alphabet, v + 1, 1);
    END LOOP;
    RETURN out;
END $$;

UPDATE sheet_leads SET id = migration_006_derived_lead_id(account_id, email)
 WHERE id <> migration_006_derived_lead_id(account_id, email);
DROP FUNCTION migration_006_derived_lead_id(text, text);

-- Derived ids do not sort by time, so pages are ordered by when a lead was written.
DROP INDEX sheet_leads_account_id;
CREATE INDEX sheet_leads_account_created ON sheet_leads (account_id, created_at DESC, id DESC);

-- What an inbound sender gave beyond the spec's fields: the new_lead notes and extra string
-- fields (bounded by integrations), shown with the lead.
ALTER TABLE sheet_leads ADD COLUMN notes text NOT NULL DEFAULT '';
ALTER TABLE sheet_leads ADD COLUMN extras jsonb NOT NULL DEFAULT '{}'::jsonb;
