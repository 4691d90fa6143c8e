-- Saved custom positions.
CREATE TABLE positions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT, -- paging cursor, newest = largest
    id         TEXT    NOT NULL UNIQUE,
    variant    TEXT    NOT NULL,
    fen        TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    created_at INTEGER NOT NULL                    -- unix milliseconds
);

CREATE TABLE position_tags (
    position_seq INTEGER NOT NULL REFERENCES positions(seq) ON DELETE CASCADE,
    tag          TEXT    NOT NULL,
    PRIMARY KEY (position_seq, tag)
);
CREATE INDEX position_tags_by_tag ON position_tags(tag, position_seq);

-- Games: the start position, the seats (tokens stored as SHA-256 hashes) and
-- the current state. The moves are in `moves`.
CREATE TABLE games (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    variant          TEXT    NOT NULL,
    start_fen        TEXT    NOT NULL,
    white_name       TEXT    NOT NULL,
    black_name       TEXT    NOT NULL,
    white_token_hash TEXT    NOT NULL,
    black_token_hash TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('ongoing', 'decisive', 'drawn', 'aborted')),
    winner           TEXT    CHECK (winner IN ('white', 'black')),
    termination      TEXT,
    draw_offer       TEXT    CHECK (draw_offer IN ('white', 'black')),
    ply              INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL DEFAULT 0, -- bumped on every change
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX games_by_status ON games(status, seq);

-- One row per move; (game, ply) is unique, so two writers can never both
-- append the same ply.
CREATE TABLE moves (
    game_seq  INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    ply       INTEGER NOT NULL,
    uci       TEXT    NOT NULL,
    fen_after TEXT    NOT NULL,
    played_at INTEGER NOT NULL,
    PRIMARY KEY (game_seq, ply)
);

-- Everything that happened in a game besides moves (draw offers, answers,
-- resignations), in order.
CREATE TABLE game_events (
    game_seq   INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    side       TEXT,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (game_seq, version)
);
