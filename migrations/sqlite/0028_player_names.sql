-- Each player name once, case-folded by the server (`player_names`, with a
-- trigram index of its own), and the games each name played in, in game
-- order: a search finds the few names that match, then reads a page of
-- each one's games, however many games there are.
CREATE TABLE player_names (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
);
CREATE TABLE game_player_names (
    name_id  INTEGER NOT NULL REFERENCES player_names(id),
    game_seq INTEGER NOT NULL REFERENCES games(seq) ON DELETE CASCADE,
    PRIMARY KEY (name_id, game_seq)
) WITHOUT ROWID;
CREATE INDEX game_player_names_by_game ON game_player_names (game_seq);

-- rowid = player_names.id; contentless, the text is in player_names.
CREATE VIRTUAL TABLE player_names_trigrams USING fts5(
    name,
    content = '',
    tokenize = 'trigram case_sensitive 1'
);
CREATE TRIGGER player_names_indexed AFTER INSERT ON player_names
BEGIN
    INSERT INTO player_names_trigrams (rowid, name) VALUES (NEW.id, NEW.name);
END;
CREATE TRIGGER player_names_unindexed AFTER DELETE ON player_names
BEGIN
    INSERT INTO player_names_trigrams (player_names_trigrams, rowid, name)
    VALUES ('delete', OLD.id, OLD.name);
END;

INSERT INTO player_names (name)
SELECT white FROM game_names UNION SELECT black FROM game_names ORDER BY 1;
INSERT INTO game_player_names (name_id, game_seq)
SELECT player_names.id, game_names.game_seq
FROM game_names JOIN player_names ON player_names.name = game_names.white
UNION
SELECT player_names.id, game_names.game_seq
FROM game_names JOIN player_names ON player_names.name = game_names.black;

DROP TABLE game_names_trigrams;
DROP TABLE game_names;
