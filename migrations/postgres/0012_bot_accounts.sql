-- Bot accounts: a player who upgraded to one plays as a program, shown
-- with Lichess's BOT title.
ALTER TABLE players ADD COLUMN bot BIGINT NOT NULL DEFAULT 0;
