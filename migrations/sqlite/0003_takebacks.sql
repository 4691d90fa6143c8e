-- Takebacks: the side with a pending proposal, whether an engine seat grants
-- the human's takebacks, and the moves undone, kept with the takeback event
-- (game_events.version) that undid them.
ALTER TABLE games ADD COLUMN takeback_offer TEXT CHECK (takeback_offer IN ('white', 'black'));
ALTER TABLE games ADD COLUMN engine_grants_takebacks INTEGER NOT NULL DEFAULT 1;
CREATE TABLE undone_moves (
    game_seq  INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    version   INTEGER NOT NULL,
    ply       INTEGER NOT NULL,
    uci       TEXT    NOT NULL,
    fen_after TEXT    NOT NULL,
    played_at INTEGER NOT NULL,
    PRIMARY KEY (game_seq, version, ply)
);
