-- Seeks: a player asks the pairing pool for a game (variant, time
-- control, rated or casual, an acceptable rating range, a colour) and the
-- pool pairs compatible seeks. A real-time seek lives while its stream is
-- open on the server named in `holder` (a name in `replicas` on a
-- shared database), a correspondence seek (`holder` NULL) until it is
-- paired or withdrawn. Pairing marks both seeks 'paired' with their game
-- in the transaction that creates it, only if both are still open; a
-- withdrawn seek is deleted.
CREATE TABLE seeks (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    id                  TEXT    NOT NULL UNIQUE,
    player              TEXT    NOT NULL,
    rating              INTEGER NOT NULL,
    variant             TEXT    NOT NULL,
    xiangqi_rules       TEXT,
    clock_initial_ms    INTEGER NOT NULL,
    clock_increment_ms  INTEGER NOT NULL,
    clock_delay_ms      INTEGER NOT NULL,
    clock_grace_ms      INTEGER,
    clock_days_per_move INTEGER,
    rated               INTEGER NOT NULL,
    rating_min          INTEGER,
    rating_max          INTEGER,
    color               TEXT    CHECK (color IN ('white', 'black')),
    holder              TEXT,
    status              TEXT    NOT NULL CHECK (status IN ('open', 'paired')),
    game_id             TEXT,
    created_at          INTEGER NOT NULL,
    paired_at           INTEGER
);
CREATE INDEX seeks_open ON seeks(seq) WHERE status = 'open';
CREATE INDEX seeks_by_player ON seeks(player) WHERE status = 'open';
CREATE INDEX seeks_paired ON seeks(paired_at) WHERE status = 'paired';
