//! A game's past events told again from the store: each with the game as
//! it was right after it, built from the event's recorded state, the moves
//! and the moves takebacks undid.
//!
//! The game is read once and carried from one event to the next: an event
//! changes the move list by the moves played or taken back since the one
//! before, so telling the events costs the moves they change, not a copy of
//! the move list each.

use std::collections::HashMap;

use sqlx::{Row, any::AnyRow};

use super::{
    OpenSeat, Store, StoreError, StoredGame, StoredMove, StoredRematch,
    games::load_game,
    rows::{decoded, decoded_option},
};
use crate::rules::{Side, Status};

/// A game's events after a version, oldest first, and the game right
/// after each (see the module docs).
#[derive(Debug)]
pub struct History {
    /// The game as it is now.
    now: StoredGame,
    /// The events not yet told, newest first.
    events: Vec<EventRow>,
    /// The moves takebacks undid, by ply: each with the takeback's version, /// oldest first.
    undone: HashMap<usize, Vec<(i64, StoredMove)>>,
    /// The game right after the last event told.
    then: StoredGame,
}

/// An event's recorded state.
#[derive(Debug)]
struct EventRow {
    version: i64,
    kind: String,
    at: i64,
    ply: usize,
    status: Status,
    winner: Option<Side>,
    termination: Option<String>,
    draw_offer: Option<Side>,
    takeback_offer: Option<Side>,
    clock_white_ms: Option<i64>,
    clock_black_ms: Option<i64>,
    clock_turn_started_at: Option<i64>,
    open_seat: Option<Side>,
    rematch: Option<String>,
    rematch_offer: Option<Side>,
}

impl EventRow {
    /// `None` for an event recorded before events kept the game's state.
    fn read(row: &AnyRow) -> Result<Option<EventRow>, sqlx::Error> {
        let Some(ply) = row.get::<Option<i64>, _>(3) else {
            return Ok(None);
        };
        Ok(Some(EventRow {
            version: row.get(0),
            kind: row.get(1),
            at: row.get(2),
            ply: usize::try_from(ply).unwrap_or(0),
            status: decoded(row, 4)?,
            winner: decoded_option(row, 5)?,
            termination: row.get(6),
            draw_offer: decoded_option(row, 7)?,
            takeback_offer: decoded_option(row, 8)?,
            clock_white_ms: row.get(9),
            clock_black_ms: row.get(10),
            clock_turn_started_at: row.get(11),
            open_seat: decoded_option(row, 12)?,
            rematch: row.get(13),
            rematch_offer: decoded_option(row, 14)?,
        }))
    }
}

impl History {
    /// How many events are left to tell.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether every event was told.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The version of the newest event (`None`: there is none).
    pub fn last_version(&self) -> Option<i64> {
        self.events.first().map(|e| e.version)
    }

    /// The next event's kind (as recorded: `move`, `draw_offered`, ...) and
    /// the game right after it; `None` once every event was told.
    pub fn next_event(&mut self) -> Option<(String, &StoredGame)> {
        let event = self.events.pop()?;
        // Takebacks are events too: the moves before the event's ply are
        // the last event's, and only those past it are looked up.
        self.then.moves.truncate(event.ply);
        for ply in self.then.moves.len()..event.ply {
            let Some(played) = self.played(ply, event.version).cloned() else {
                break;
            };
            self.then.moves.push(played);
        }
        let then = &mut self.then;
        then.version = event.version;
        then.updated_at = event.at;
        then.status = event.status;
        then.winner = event.winner;
        then.termination = event.termination;
        then.draw_offer = event.draw_offer;
        then.takeback_offer = event.takeback_offer;
        // Seated since: the seat was open then if the event says so.
        then.open = self.now.open.clone().or_else(|| {
            Some(OpenSeat {
                side: event.open_seat?,
                join_code: self.now.join_code.clone()?,
                until: 0,
            })
        });
        then.rematch = StoredRematch {
            id: event.rematch,
            offer: event.rematch_offer,
            token_hash: None,
        };
        if let (Some(clock), Some(now)) = (&mut then.clock, &self.now.clock) {
            clock.held = then.open.is_some();
            clock.white_ms = event.clock_white_ms.unwrap_or(now.white_ms);
            clock.black_ms = event.clock_black_ms.unwrap_or(now.black_ms);
            clock.turn_started_at = event.clock_turn_started_at.unwrap_or(now.turn_started_at);
        }
        Some((event.kind, &self.then))
    }

    /// The move played at `ply` as of `version`: the one the first later
    /// takeback of that ply undid, or else the one there now.
    fn played(&self, ply: usize, version: i64) -> Option<&StoredMove> {
        self.undone
            .get(&ply)
            .and_then(|undone| undone.iter().find(|(t, _)| *t > version))
            .map(|(_, played)| played)
            .or_else(|| self.now.moves.get(ply))
    }
}

impl Store {
    /// The events of game `id` after version `after`, oldest first, at
    /// most `limit` of them. `None` if the game is unknown, or if one of
    /// them was recorded before events kept the game's state (it cannot be
    /// told again).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn events_since(
        &self,
        id: &str,
        after: i64,
        limit: usize,
    ) -> Result<Option<History>, StoreError> {
        // One snapshot of the game, its events and its undone moves.
        let mut tx = self.pool.begin_with(self.backend.begin_snapshot()).await?;
        let Some(now) = load_game(&mut tx, id).await? else {
            return Ok(None);
        };
        let events = sqlx::query(
            "SELECT version, kind, created_at, ply, status, winner, termination, draw_offer, \
             takeback_offer, clock_white_ms, clock_black_ms, clock_turn_started_at, open_seat, \
             rematch, rematch_offer FROM game_events WHERE game_seq = $1 AND version > $2 \
             ORDER BY version LIMIT $3",
        )
        .bind(now.seq)
        .bind(after)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await?;
        let undone = sqlx::query(
            "SELECT version, ply, uci, fen_after, played_at FROM undone_moves \
             WHERE game_seq = $1 AND version > $2 ORDER BY version",
        )
        .bind(now.seq)
        .bind(after)
        .fetch_all(&mut *tx)
        .await?;
        tx.rollback().await?;
        // Newest first, so that the next is popped.
        let Some(events) = events
            .iter()
            .rev()
            .map(EventRow::read)
            .collect::<Result<Option<Vec<_>>, _>>()?
        else {
            return Ok(None);
        };
        let mut by_ply: HashMap<usize, Vec<(i64, StoredMove)>> = HashMap::new();
        for row in &undone {
            let played = StoredMove {
                ply: row.get(1),
                uci: row.get(2),
                fen_after: row.get(3),
                played_at: row.get(4),
            };
            let ply = usize::try_from(played.ply).unwrap_or(0);
            by_ply.entry(ply).or_default().push((row.get(0), played));
        }
        let mut then = now.clone();
        then.moves.clear();
        Ok(Some(History {
            now,
            events,
            undone: by_ply,
            then,
        }))
    }
}
