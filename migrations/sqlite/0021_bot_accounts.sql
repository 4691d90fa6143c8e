-- Bot accounts: a player who upgraded to one plays as a program, shown
-- with Lichess's BOT title.
ALTER TABLE players ADD COLUMN bot INTEGER NOT NULL DEFAULT 0;
