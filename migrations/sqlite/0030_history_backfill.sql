-- The positions each game reached within its first 80 plies (board, side
-- to move and castling, hashed to 64 bits), each once: "games that reached
-- this position", in game order. Written when a game ends or is imported.
CREATE TABLE game_positions (
    position_key INTEGER NOT NULL,
    game_seq     INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    PRIMARY KEY (position_key, game_seq)
) WITHOUT ROWID;

-- How far the indexing of games that ended before this (their positions,
-- and a chess game's opening) has gone: every finished game with seq in
-- (next_seq, last_seq] and no positions is indexed a window at a time.
CREATE TABLE history_backfill (
    id       INTEGER PRIMARY KEY CHECK (id = 1),
    next_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
);
INSERT INTO history_backfill (id, next_seq, last_seq)
SELECT 1, 0, coalesce(max(seq), 0) FROM games;
