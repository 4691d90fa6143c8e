-- Each player's log of what a resumed WatchEvents stream must not miss:
-- their games started and ended, and the challenges made to them,
-- withdrawn, or declined. Numbered from 1 per player: `events_head` is the
-- last number given, taken in the transaction that logs (on PostgreSQL it
-- locks the player's row until commit), so numbers are given in commit
-- order and never skip. Old entries are pruned (--player-events-retention).
ALTER TABLE players ADD COLUMN events_head INTEGER NOT NULL DEFAULT 0;
CREATE TABLE player_events (
    player_id  TEXT    NOT NULL,
    seq        INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('game_started', 'game_ended', 'challenge',
                                                'challenge_canceled', 'challenge_declined')),
    -- The game's id, or the challenge's.
    subject    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (player_id, seq)
);
CREATE INDEX player_events_by_age ON player_events(created_at);
