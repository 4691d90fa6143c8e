-- Open seats: a game created with a seat left open has a join code (unique,
-- looked up by JoinGame through its index), the open seat's side until a
-- player takes it, and when the game expires if nobody does (found by every
-- server's sweep through its index).
ALTER TABLE games ADD COLUMN join_code TEXT;
ALTER TABLE games ADD COLUMN open_seat TEXT CHECK (open_seat IN ('white', 'black'));
ALTER TABLE games ADD COLUMN open_until BIGINT;
CREATE UNIQUE INDEX games_by_join_code ON games(join_code) WHERE join_code IS NOT NULL;
CREATE INDEX games_by_open_until ON games(open_until)
    WHERE status = 'ongoing' AND open_until IS NOT NULL;

-- Rematches: the game a rematch was created from, the rematch of a finished
-- game once created, the side offering one, and the hash of the offerer's
-- token in the rematch to come (derived from its token here, so that only
-- it can learn it).
ALTER TABLE games ADD COLUMN rematch_of TEXT;
ALTER TABLE games ADD COLUMN rematch TEXT;
ALTER TABLE games ADD COLUMN rematch_offer TEXT CHECK (rematch_offer IN ('white', 'black'));
ALTER TABLE games ADD COLUMN rematch_token_hash TEXT;

-- The state those changes set, after each event, so that it is told again
-- as it was.
ALTER TABLE game_events ADD COLUMN open_seat TEXT;
ALTER TABLE game_events ADD COLUMN rematch TEXT;
ALTER TABLE game_events ADD COLUMN rematch_offer TEXT;
