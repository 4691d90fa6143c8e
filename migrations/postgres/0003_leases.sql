-- Leases on shards of games, for several servers on one database: the
-- owner of a shard's lease runs the flag timers and engine seats of the
-- games in it (a game's shard is a hash of its id modulo the rows here).
-- `expires_at` is in milliseconds since the Unix epoch, on the database's
-- clock; `epoch` is bumped whenever a lease changes hands. An empty owner
-- holds nothing.
CREATE TABLE leases (
    shard BIGINT PRIMARY KEY,
    owner TEXT NOT NULL DEFAULT '',
    epoch BIGINT NOT NULL DEFAULT 0,
    expires_at BIGINT NOT NULL DEFAULT 0
);
INSERT INTO leases (shard) SELECT generate_series(0, 63);
