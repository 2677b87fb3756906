-- Clients may choose their session ids (opaque, up to 128 characters), so an id is unique only
-- within its account: two accounts choosing "support-chat" have two sessions. Messages name
-- their session by (account, id).
ALTER TABLE messages ADD COLUMN account_id text;
UPDATE messages m SET account_id = s.account_id FROM sessions s WHERE s.id = m.session_id;
ALTER TABLE messages ALTER COLUMN account_id SET NOT NULL;
ALTER TABLE messages DROP CONSTRAINT messages_session_id_fkey;
ALTER TABLE sessions DROP CONSTRAINT sessions_pkey;
ALTER TABLE sessions ADD PRIMARY KEY (account_id, id);
ALTER TABLE messages ADD FOREIGN KEY (account_id, session_id) REFERENCES sessions (account_id, id) ON DELETE CASCADE;
DROP INDEX messages_session_idx;
CREATE INDEX messages_session_idx ON messages (account_id, session_id, id DESC);
