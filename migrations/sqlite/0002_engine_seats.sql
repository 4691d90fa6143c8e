-- Seats played by Arbiter's engine: its level (1-10) and thinking time per
-- move. NULL level = a human seat.
ALTER TABLE games ADD COLUMN white_engine_level INTEGER CHECK (white_engine_level BETWEEN 1 AND 10);
ALTER TABLE games ADD COLUMN white_engine_movetime_ms INTEGER;
ALTER TABLE games ADD COLUMN black_engine_level INTEGER CHECK (black_engine_level BETWEEN 1 AND 10);
ALTER TABLE games ADD COLUMN black_engine_movetime_ms INTEGER;
-- Finds the games whose engine must move after a restart.
CREATE INDEX games_with_engines ON games(status)
    WHERE white_engine_level IS NOT NULL OR black_engine_level IS NOT NULL;
