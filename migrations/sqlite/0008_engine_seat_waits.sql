-- The ply at which the engine seat to move waits for a search slot: its
-- clock (and its first-move grace) has not started. NULL: not waiting; a
-- value that is not the game's ply is stale and means nothing.
ALTER TABLE games ADD COLUMN clock_engine_waiting_ply INTEGER;
