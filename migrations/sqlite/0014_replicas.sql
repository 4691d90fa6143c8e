-- The replicas live on this database (see
-- migrations/postgres/0005_replicas.sql). One process owns every game of a
-- SQLite database: the table is kept for a schema like PostgreSQL's.
CREATE TABLE replicas (
    owner TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);
