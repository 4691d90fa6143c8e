-- The Event, Site, Date and Round of an imported game, as its PGN gave
-- them (NULL: the tag was missing or unknown), so that its export gives
-- them back and re-imports as the same game.
CREATE TABLE game_roster (
    game_seq INTEGER PRIMARY KEY,
    event    TEXT,
    site     TEXT,
    date     TEXT,
    round    TEXT
);
