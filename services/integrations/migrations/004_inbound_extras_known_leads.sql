-- Extra fields a sender added to an inbound event (bounded by the domain), kept with the record.
ALTER TABLE inbox ADD COLUMN extras jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Leads this service knows to be on an account's sheet: from lead.written, and from inbound
-- new_lead events it accepted (before leads has written them). An inbound lead whose id is here
-- merges into that lead, and the reply says so. Ids are derived from account and email
-- (leadsevents.LeadID), so this is the email identity without keeping the email.
CREATE TABLE known_leads (
    account_id text NOT NULL,
    lead_id    text NOT NULL,
    PRIMARY KEY (account_id, lead_id)
);
