-- A challenge made for two other players (Lichess's open challenge): its
-- maker (`challenger` until then) does not play. The first player to accept
-- takes a seat and becomes its challenger (`for_others` then 0); the second
-- starts the game.
ALTER TABLE challenges ADD COLUMN for_others INTEGER NOT NULL DEFAULT 0;
