-- Leases on shards of games (see migrations/postgres/0003_leases.sql). One
-- process owns every game of a SQLite database: the table is kept for a
-- schema like PostgreSQL's, and nothing claims its rows.
CREATE TABLE leases (
    shard INTEGER PRIMARY KEY,
    owner TEXT NOT NULL DEFAULT '',
    epoch INTEGER NOT NULL DEFAULT 0,
    expires_at INTEGER NOT NULL DEFAULT 0
);
WITH RECURSIVE shards(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM shards WHERE n < 63)
INSERT INTO leases (shard) SELECT n FROM shards;
