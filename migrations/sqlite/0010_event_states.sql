-- The game's state after each event, so that any event can be told again
-- from the store (to a watcher on another server, or one that resumes): its
-- ply and the columns a change sets. NULL on events recorded before this.
ALTER TABLE game_events ADD COLUMN ply INTEGER;
ALTER TABLE game_events ADD COLUMN status TEXT;
ALTER TABLE game_events ADD COLUMN winner TEXT;
ALTER TABLE game_events ADD COLUMN termination TEXT;
ALTER TABLE game_events ADD COLUMN draw_offer TEXT;
ALTER TABLE game_events ADD COLUMN takeback_offer TEXT;
ALTER TABLE game_events ADD COLUMN clock_white_ms INTEGER;
ALTER TABLE game_events ADD COLUMN clock_black_ms INTEGER;
ALTER TABLE game_events ADD COLUMN clock_turn_started_at INTEGER;

-- When the side to move runs out of time, as of the game's last change (NULL:
-- nothing can run out), so that any server finds the flags due, also those
-- of games whose server is gone.
ALTER TABLE games ADD COLUMN clock_flag_at INTEGER;
CREATE INDEX games_by_flag_at ON games(clock_flag_at)
    WHERE status = 'ongoing' AND clock_flag_at IS NOT NULL;

-- When the engine seat to move should have moved by (its thinking time and
-- a margin after its turn began; NULL: a human is to move), so that any
-- server finds the engine turns of games whose server is gone.
ALTER TABLE games ADD COLUMN engine_due_at INTEGER;
CREATE INDEX games_by_engine_due_at ON games(engine_due_at)
    WHERE status = 'ongoing' AND engine_due_at IS NOT NULL;
