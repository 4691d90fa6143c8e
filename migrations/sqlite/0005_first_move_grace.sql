-- A clock's grace for each side's first move, in milliseconds (NULL: the
-- default, 60 s).
ALTER TABLE games ADD COLUMN clock_grace_ms INTEGER;
