-- A repeat of a lead updates it field by field (issue 26); each changed field's time is kept.
ALTER TABLE sheet_leads ADD COLUMN field_updated_at jsonb NOT NULL DEFAULT '{}';
