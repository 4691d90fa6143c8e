-- A deleted player's row stays, marked, so that their id (their username)
-- is never anyone else's: their games and ratings no longer name them.
ALTER TABLE players ADD COLUMN deleted_at BIGINT;
