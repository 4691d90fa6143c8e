-- The games a collection import stored, by the key of what was imported
-- (variant, start, the seven tags and the moves): the same game imported
-- again is found here and not stored twice.
CREATE TABLE imported_games (
    import_key TEXT NOT NULL PRIMARY KEY,
    game_id    TEXT NOT NULL
);

-- The opening a finished (or imported) chess game from the standard start
-- is named by, from the Lichess openings dataset: ECO code and name (in
-- lower case), each searched by prefix.
CREATE TABLE game_openings (
    game_seq INTEGER NOT NULL PRIMARY KEY,
    eco      TEXT    NOT NULL,
    name     TEXT    NOT NULL
);
CREATE INDEX game_openings_by_eco ON game_openings (eco, game_seq);
CREATE INDEX game_openings_by_name ON game_openings (name, game_seq);
