-- Game analyses: every position of an ended game as the engine evaluated
-- it, by the search setting it used (`depth=N` or `movetime=N` ms), written
-- in one transaction once the whole game is analysed, so a reader finds
-- all of a game's positions or none.
CREATE TABLE game_analyses (
    game_seq   INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    setting    TEXT    NOT NULL,
    -- 0 = the start, n = after the game's nth move.
    position   INTEGER NOT NULL,
    score_kind TEXT    NOT NULL CHECK (score_kind IN ('cp', 'mate', 'ended')),
    -- From White's (Red's) point of view; for `ended`, 1 when White won,
    -- -1 when Black won, 0 for a draw.
    score      INTEGER NOT NULL,
    depth      INTEGER NOT NULL,
    -- The best line in coordinates, space-separated (empty when ended).
    pv         TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_seq, setting, position)
);
