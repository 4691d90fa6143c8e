-- Players: accounts that own seats across games. A player's id is their
-- username in lower case (unique, so usernames are unique in any case).
CREATE TABLE players (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT    NOT NULL UNIQUE,
    username     TEXT    NOT NULL,
    display_name TEXT    NOT NULL,
    created_at   INTEGER NOT NULL
);

-- A player's tokens, stored as SHA-256 hashes; revoking one deletes it.
CREATE TABLE player_tokens (
    token_hash TEXT    PRIMARY KEY,
    player_id  TEXT    NOT NULL REFERENCES players(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL
);
CREATE INDEX player_tokens_by_player ON player_tokens(player_id);

-- The players a game's seats are bound to, if any; a player's games are
-- found through these indexes.
ALTER TABLE games ADD COLUMN white_player TEXT;
ALTER TABLE games ADD COLUMN black_player TEXT;
CREATE INDEX games_by_white_player ON games(white_player, seq) WHERE white_player IS NOT NULL;
CREATE INDEX games_by_black_player ON games(black_player, seq) WHERE black_player IS NOT NULL;
