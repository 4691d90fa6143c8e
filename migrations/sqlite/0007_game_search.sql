-- ListGames filters, each served by an index that yields games newest first
-- (in seq order), so that a page costs about its length, not the table's.
-- `status = 'ongoing'` has games_by_status (status, seq) from 0001.
CREATE INDEX games_finished ON games(seq) WHERE status != 'ongoing';
CREATE INDEX games_by_variant ON games(variant, seq);
CREATE INDEX games_by_termination ON games(termination, seq);
CREATE INDEX games_by_created ON games(created_at, seq);

-- Creation times never go backwards in seq order (a clock set back does not
-- make a newer game look older), so a time range is a range of seq that
-- games_by_created finds in two look-ups. Older rows are made so once.
UPDATE games SET created_at = earlier.latest
FROM (SELECT seq, max(created_at) OVER (ORDER BY seq) AS latest FROM games) AS earlier
WHERE earlier.seq = games.seq AND games.created_at < earlier.latest;
CREATE TRIGGER games_created_in_order AFTER INSERT ON games
WHEN NEW.created_at < (SELECT created_at FROM games WHERE seq < NEW.seq ORDER BY seq DESC LIMIT 1)
BEGIN
    UPDATE games
    SET created_at = (SELECT created_at FROM games WHERE seq < NEW.seq ORDER BY seq DESC LIMIT 1)
    WHERE seq = NEW.seq;
END;

-- The players' display names case-folded by the server (Unicode; SQLite's
-- lower() folds ASCII only), one row per game, written with the game (games
-- from before this migration get theirs when the server next starts).
CREATE TABLE game_names (
    game_seq INTEGER PRIMARY KEY REFERENCES games(seq) ON DELETE CASCADE,
    white    TEXT    NOT NULL,
    black    TEXT    NOT NULL
);
-- Their trigram index (rowid = game_seq; contentless, the text is in
-- game_names): any part of 3 or more characters is found through it.
CREATE VIRTUAL TABLE game_names_trigrams USING fts5(
    white,
    black,
    content = '',
    tokenize = 'trigram case_sensitive 1'
);
