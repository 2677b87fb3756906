-- Private keys are stored sealed with libs/sealbox (envelope encryption, the key id beside the
-- ciphertext, the row's kid as associated data). Rows written before this migration keep their
-- plaintext seed in private_key until identity seals them (on `identity migrate` and on start),
-- which also empties private_key.
ALTER TABLE signing_keys ADD COLUMN sealed_private_key text;
ALTER TABLE signing_keys ALTER COLUMN private_key DROP NOT NULL;
ALTER TABLE signing_keys ADD CONSTRAINT signing_keys_private_key_present
    CHECK (private_key IS NOT NULL OR sealed_private_key IS NOT NULL);
