-- The SHA-256 of each saved position's owner token, which CreatePosition
-- returns once and DeletePosition requires. NULL: saved before positions
-- had owners; only the operator credential (--admin-token) deletes those.
ALTER TABLE positions ADD COLUMN owner_token_hash TEXT;
