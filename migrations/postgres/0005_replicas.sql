-- The replicas live on this database, for the leases on shards to be
-- shared evenly among them: each renews its row with its leases (to the
-- same `expires_at`, on the database's clock) and deletes it when it
-- stops. A row whose time is past is a replica gone; any replica may
-- delete it.
CREATE TABLE replicas (
    owner TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
