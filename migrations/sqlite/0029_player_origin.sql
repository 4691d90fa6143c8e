-- Where a player comes from: 0 enrolled by Arbiter (their id is their
-- username in lower case), 1 named by the platform's identity provider
-- (their id is the JWT's `sub`); NULL for players enrolled before this was
-- recorded. A JWT never names an enrolled player, nor the other way round.
ALTER TABLE players ADD COLUMN from_provider INTEGER;
-- Usernames are unique in any case across both kinds, and found by name.
CREATE UNIQUE INDEX players_by_username ON players (lower(username))
WHERE from_provider IS NOT NULL;
CREATE INDEX players_by_any_username ON players (lower(username));
