-- Ratings: a rated game ends by updating both players' Glicko-2 ratings
-- in its perf (variant and speed, e.g. `chess_blitz`) in the transaction
-- that ends it; the game keeps each player's rating before it and the
-- change, and each player's history a line per rated game.
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN white_rating INTEGER;
ALTER TABLE games ADD COLUMN black_rating INTEGER;
ALTER TABLE games ADD COLUMN white_rating_diff INTEGER;
ALTER TABLE games ADD COLUMN black_rating_diff INTEGER;

CREATE TABLE player_ratings (
    player_id  TEXT    NOT NULL,
    perf       TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    volatility REAL    NOT NULL,
    games      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, perf)
);
CREATE INDEX player_ratings_by_perf ON player_ratings(perf, rating);

CREATE TABLE rating_history (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id  TEXT    NOT NULL,
    perf       TEXT    NOT NULL,
    game_id    TEXT    NOT NULL,
    rating     REAL    NOT NULL,
    deviation  REAL    NOT NULL,
    diff       INTEGER NOT NULL,
    at         INTEGER NOT NULL
);
CREATE INDEX rating_history_by_player ON rating_history(player_id, perf, seq);
