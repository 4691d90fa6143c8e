-- How far the naming of games that ended before openings were stored has
-- gone: every finished chess game with seq in (next_seq, last_seq] that has
-- no opening yet is named a window at a time; past last_seq, games get
-- theirs when they end or are imported.
CREATE TABLE opening_backfill (
    id       BIGINT PRIMARY KEY CHECK (id = 1),
    next_seq BIGINT  NOT NULL,
    last_seq BIGINT  NOT NULL
);
INSERT INTO opening_backfill (id, next_seq, last_seq)
SELECT 1, 0, coalesce(max(seq), 0) FROM games;
