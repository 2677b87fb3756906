-- What integrations knows of each lead's fields (from lead.written and the inbound new_lead events
-- it accepted), so that the reply to a repeat can name the fields it changes (issue 26).
ALTER TABLE known_leads ADD COLUMN fields jsonb NOT NULL DEFAULT '{}'::jsonb;
