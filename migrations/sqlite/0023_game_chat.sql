-- Each game's chat: the lines of its players' room and its spectators'
-- room, numbered from 1 per game (`game_chat_heads.head` is the last
-- number given, taken in the writing transaction, so numbers never repeat).
-- The oldest lines beyond --chat-lines per game are dropped as new ones come.
CREATE TABLE game_chat_heads (
    game_id TEXT    NOT NULL PRIMARY KEY,
    head    INTEGER NOT NULL
);
CREATE TABLE game_chat (
    game_id   TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    room      TEXT    NOT NULL CHECK (room IN ('player', 'spectator')),
    -- The writer; NULL once the player is deleted.
    player_id TEXT,
    username  TEXT    NOT NULL,
    text      TEXT    NOT NULL,
    sent_at   INTEGER NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX game_chat_by_player ON game_chat(player_id);
