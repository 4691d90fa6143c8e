//! A game's past events told again from the store: each with the game as
//! it was right after it, built from the event's recorded state, the moves
//! and the moves takebacks undid.

use sqlx::Row;

use super::{OpenSeat, Store, StoreError, StoredGame, StoredMove, StoredRematch, games::load_game};

/// An event of a game's history and the game right after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PastEvent {
    /// As recorded (`move`, `draw_offered`, ...).
    pub kind: String,
    /// The game after the event; `version` is the event's.
    pub game: StoredGame,
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
    ) -> Result<Option<Vec<PastEvent>>, StoreError> {
        // One snapshot of the game, its events and its undone moves.
        let mut tx = self.pool.begin_with(self.backend.begin_snapshot()).await?;
        let Some(game) = load_game(&mut tx, id).await? else {
            return Ok(None);
        };
        let events = sqlx::query(
            "SELECT version, kind, created_at, ply, status, winner, termination, draw_offer, \
             takeback_offer, clock_white_ms, clock_black_ms, clock_turn_started_at, open_seat, \
             rematch, rematch_offer FROM game_events WHERE game_seq = $1 AND version > $2 ORDER BY version LIMIT $3",
        )
        .bind(game.seq)
        .bind(after)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&mut *tx)
        .await?;
        let undone = sqlx::query(
            "SELECT version, ply, uci, fen_after, played_at FROM undone_moves \
             WHERE game_seq = $1 AND version > $2 ORDER BY version DESC, ply",
        )
        .bind(game.seq)
        .bind(after)
        .fetch_all(&mut *tx)
        .await?;
        tx.rollback().await?;
        let mut undone: Vec<(i64, StoredMove)> = undone
            .iter()
            .map(|r| {
                (
                    r.get(0),
                    StoredMove {
                        ply: r.get(1),
                        uci: r.get(2),
                        fen_after: r.get(3),
                        played_at: r.get(4),
                    },
                )
            })
            .collect();
        // Newest first: before an event, every later takeback is undone
        // again (its moves put back where it took them from), so that the
        // move list is the one the event saw.
        let mut timeline = game.moves.clone();
        let mut told = Vec::with_capacity(events.len());
        for row in events.iter().rev() {
            let version: i64 = row.get(0);
            while undone.first().is_some_and(|(t, _)| *t > version) {
                let t = undone[0].0;
                let taken: Vec<StoredMove> = undone
                    .iter()
                    .take_while(|(v, _)| *v == t)
                    .map(|(_, m)| m.clone())
                    .collect();
                undone.drain(..taken.len());
                if let Some(first) = taken.first() {
                    timeline.truncate(usize::try_from(first.ply).unwrap_or(0));
                }
                timeline.extend(taken);
            }
            let Some(ply) = row.get::<Option<i64>, _>(3) else {
                return Ok(None);
            };
            let mut then = StoredGame {
                moves: timeline[..usize::try_from(ply).unwrap_or(0).min(timeline.len())].to_vec(),
                version,
                updated_at: row.get(2),
                status: row.get(4),
                winner: row.get(5),
                termination: row.get(6),
                draw_offer: row.get(7),
                takeback_offer: row.get(8),
                // Seated since: the seat was open then if the event says so.
                open: game.open.clone().or_else(|| {
                    let side: Option<String> = row.get(12);
                    Some(OpenSeat {
                        side: side?,
                        join_code: game.join_code.clone()?,
                        until: 0,
                    })
                }),
                rematch: StoredRematch {
                    id: row.get(13),
                    offer: row.get(14),
                    token_hash: None,
                },
                ..game.clone()
            };
            if let Some(clock) = &mut then.clock {
                clock.held = then.open.is_some();
                clock.white_ms = row.get::<Option<i64>, _>(9).unwrap_or(clock.white_ms);
                clock.black_ms = row.get::<Option<i64>, _>(10).unwrap_or(clock.black_ms);
                clock.turn_started_at = row
                    .get::<Option<i64>, _>(11)
                    .unwrap_or(clock.turn_started_at);
            }
            told.push(PastEvent {
                kind: row.get(1),
                game: then,
            });
        }
        told.reverse();
        Ok(Some(told))
    }
}
