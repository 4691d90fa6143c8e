-- One row the store rewrites to learn whether the database can write again
-- after a failure (a full disk, an I/O error); nothing reads it.
CREATE TABLE write_probe (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    written_at INTEGER NOT NULL -- unix milliseconds
);
