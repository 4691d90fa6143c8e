-- Who is at the board: for each seat of a game, how many of its player's
-- game streams are open (on any server), and when the last one closed.
-- A seat with no stream open since `left_at` has left the game; a seat
-- without a row, or whose count a crashed server left above zero, is never
-- taken to have left (its game ends by its clock instead).
CREATE TABLE seat_presence (
    game_id TEXT    NOT NULL,
    side    TEXT    NOT NULL CHECK (side IN ('white', 'black')),
    streams INTEGER NOT NULL,
    left_at INTEGER,
    PRIMARY KEY (game_id, side)
);
