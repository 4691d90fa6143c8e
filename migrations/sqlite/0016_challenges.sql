-- Challenges from one player to another, to anyone (open, or open to the
-- players listed in `open_to`, a comma-separated list of ids), or to the
-- engine. One waits for an answer while its status is 'open' and
-- `expires_at` is ahead; its acceptance and the game it starts are one
-- transaction.
CREATE TABLE challenges (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    id                 TEXT    NOT NULL UNIQUE,
    challenger         TEXT    NOT NULL,
    destination        TEXT,
    open_to            TEXT,
    engine_level       INTEGER,
    engine_movetime_ms INTEGER,
    variant            TEXT    NOT NULL,
    start_fen          TEXT,
    xiangqi_rules      TEXT,
    clock_initial_ms   INTEGER,
    clock_increment_ms INTEGER,
    clock_delay_ms     INTEGER,
    clock_grace_ms     INTEGER,
    clock_days_per_move INTEGER,
    timed              INTEGER NOT NULL,
    color              TEXT    CHECK (color IN ('white', 'black')),
    rated              INTEGER NOT NULL,
    status             TEXT    NOT NULL
        CHECK (status IN ('open', 'accepted', 'declined', 'canceled')),
    decline_reason     TEXT,
    game_id            TEXT,
    acceptor           TEXT,
    created_at         INTEGER NOT NULL,
    expires_at         INTEGER NOT NULL
);
CREATE INDEX challenges_by_destination ON challenges(destination, seq) WHERE status = 'open';
CREATE INDEX challenges_by_challenger ON challenges(challenger, seq) WHERE status = 'open';
CREATE INDEX challenges_open_to_anyone ON challenges(seq)
    WHERE status = 'open' AND destination IS NULL AND engine_level IS NULL;
