-- Clocks. NULL clock_days_per_move with clock_initial_ms NULL = untimed.
-- A correspondence game has clock_days_per_move (0 = no limit); a clocked
-- game has the initial time, increment and delay. The remaining times are as
-- of the start of the current turn (clock_turn_started_at, unix ms).
ALTER TABLE games ADD COLUMN clock_initial_ms INTEGER;
ALTER TABLE games ADD COLUMN clock_increment_ms INTEGER;
ALTER TABLE games ADD COLUMN clock_delay_ms INTEGER;
ALTER TABLE games ADD COLUMN clock_days_per_move INTEGER;
ALTER TABLE games ADD COLUMN clock_white_ms INTEGER;
ALTER TABLE games ADD COLUMN clock_black_ms INTEGER;
ALTER TABLE games ADD COLUMN clock_turn_started_at INTEGER;
-- Finds the running clocks after a restart.
CREATE INDEX games_with_clocks ON games(status) WHERE clock_turn_started_at IS NOT NULL;
