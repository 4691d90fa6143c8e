//! Live games: what a change of a game in play needs, kept in memory
//! between its changes, so that a move neither reads the stored move list
//! again nor replays the game from its start.
//!
//! An entry holds the stored game (its row and moves), its record (the
//! position with its repetition history) and its moves as clients see them.
//! A change takes its game's entry out of the cache, judges on it, and puts
//! it back once the store has committed the change; the game's next change
//! in this process waits for that (see [`super::change_lock`]). A change
//! judged on an entry the store has moved past (another connection's or
//! server's write) writes nothing ([`Written::Stale`]), and is judged again
//! on the game read afresh. So the cache is never trusted over the store; a
//! refusal judged on an entry is judged again on the store's game too, and
//! an entry a refused change may have touched is dropped.
//!
//! The cache holds at most its capacity of entries (`--live-games`); the
//! game changed longest ago goes first. An entry costs about 1 KB a ply
//! played, as measured (43 KB for a chess game of 30-50 plies; BENCHMARKS.md,
//! Memory of the live games): the stored moves with their FENs, a position of the
//! record and a move view in every notation for each ply.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, MutexGuard},
};

use super::{
    change_lock::ChangeLocks,
    model::Status,
    model::{
        EventKind, GameError, GameView, MoveView, move_view, move_views, position_keys, rated_end,
        replay, stored_opening, takeover::engine_due_at, takeover::stamp_flag,
    },
};
use crate::{
    rules::referee::Referee,
    store::{Base, Fence, GameNotFound, GameWrite, StoredGame, Update, Written},
};

/// Default [`LiveGames`] capacity (`--live-games`).
pub const DEFAULT_LIVE_GAMES: usize = 2_000;

/// How often a change is judged again on a game read afresh, at most,
/// before it is answered as a conflict (ABORTED).
const ATTEMPTS: usize = 4;

/// A game in play as its changes need it.
pub(super) struct Live {
    pub(super) game: StoredGame,
    pub(super) record: Box<dyn Referee>,
    /// Shared with the views built from this entry: a move appends without
    /// copying once those views are gone.
    moves: Arc<Vec<MoveView>>,
}

impl Live {
    /// The entry of `game`, replayed.
    fn replayed(game: StoredGame) -> Result<Live, GameError> {
        let record = replay(&game)?;
        Ok(Live::new(game, record))
    }

    /// The entry of `game`, whose record is `record`.
    fn new(game: StoredGame, record: Box<dyn Referee>) -> Live {
        let moves = Arc::new(move_views(&game, record.as_ref()));
        Live {
            game,
            record,
            moves,
        }
    }

    /// Brings the record and the move views to the game's moves after a
    /// change (moves played on the record already, or taken back, or played
    /// on a copy of it).
    fn follow_moves(&mut self) -> Result<(), GameError> {
        follow_moves(&self.game, self.record.as_mut(), &mut self.moves)
    }

    pub(super) fn view(&self) -> GameView {
        GameView::build(&self.game, self.record.as_ref(), Arc::clone(&self.moves))
    }
}

/// Brings `record` and `views` (its moves as clients see them) to `game`'s
/// moves, which differ from the record's by moves taken back from its end
/// and moves played after: those are undone, these played.
pub(super) fn follow_moves(
    game: &StoredGame,
    record: &mut dyn Referee,
    views: &mut Arc<Vec<MoveView>>,
) -> Result<(), GameError> {
    let stored = game.moves.len();
    while record.ply() > stored {
        record.undo();
    }
    for m in &game.moves[record.ply()..] {
        record
            .play_recorded(&m.uci)
            .map_err(|e| GameError::Corrupt(format!("game {} does not replay: {e}", game.id)))?;
    }
    // Shared with the views built before: copied only while one is kept.
    let views = Arc::make_mut(views);
    views.truncate(stored);
    for ply in views.len()..stored {
        let played = record
            .played(ply)
            .ok_or_else(|| GameError::Corrupt(format!("game {}: no move at ply {ply}", game.id)))?;
        views.push(move_view(played, &game.moves[ply]));
    }
    Ok(())
}

/// The live games (see the module docs).
#[derive(Debug)]
pub(super) struct LiveGames {
    capacity: usize,
    entries: Mutex<Entries>,
    /// One change of a game at a time: the entry a change takes out is
    /// back before the next change of its game looks for it.
    changing: ChangeLocks,
}

#[derive(Default)]
struct Entries {
    /// By game id: the entry and the stamp of its last put.
    by_id: HashMap<String, (u64, Live)>,
    /// Ids by the stamp of their put, oldest first; a pair whose stamp is
    /// not its entry's any more is skipped.
    order: VecDeque<(u64, String)>,
    next: u64,
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entries")
            .field("games", &self.by_id.len())
            .finish_non_exhaustive()
    }
}

impl LiveGames {
    /// A cache of at most `capacity` games (0: none are kept).
    pub(super) fn new(capacity: usize) -> LiveGames {
        LiveGames {
            capacity,
            entries: Mutex::default(),
            changing: ChangeLocks::default(),
        }
    }

    fn entries(&self) -> MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Games kept now.
    pub(super) fn len(&self) -> usize {
        self.entries().by_id.len()
    }

    /// What `look` says of game `id`'s kept game, if it is kept.
    pub(super) fn peek<R>(&self, id: &str, look: impl FnOnce(&StoredGame) -> R) -> Option<R> {
        self.entries()
            .by_id
            .get(id)
            .map(|(_, live)| look(&live.game))
    }

    /// Takes game `id`'s entry out (a change is judged on it).
    fn take(&self, id: &str) -> Option<Live> {
        self.entries().by_id.remove(id).map(|(_, live)| live)
    }

    /// Drops game `id`'s entry if it is older than `version` (another
    /// server wrote that version).
    pub(super) fn forget_before(&self, id: &str, version: i64) {
        let mut entries = self.entries();
        if entries
            .by_id
            .get(id)
            .is_some_and(|(_, live)| live.game.version < version)
        {
            entries.by_id.remove(id);
        }
    }

    /// Keeps `game` just stored (created or imported), whose record is
    /// `record`; its view.
    pub(super) fn keep(&self, game: StoredGame, record: Box<dyn Referee>) -> GameView {
        let live = Live::new(game, record);
        let view = live.view();
        self.put(live);
        view
    }

    /// Drops every entry (changes may have gone unheard).
    pub(super) fn clear(&self) {
        let mut entries = self.entries();
        entries.by_id.clear();
        entries.order.clear();
    }

    /// Keeps `live` (unless an entry as new is kept already, or its game is
    /// over: nothing changes it any more but a takeback of nothing).
    fn put(&self, live: Live) {
        if self.capacity == 0 || live.game.status != Status::Ongoing {
            return;
        }
        let mut entries = self.entries();
        let id = live.game.id.clone();
        if entries
            .by_id
            .get(&id)
            .is_some_and(|(_, kept)| kept.game.version >= live.game.version)
        {
            return;
        }
        let stamp = entries.next;
        entries.next += 1;
        entries.by_id.insert(id.clone(), (stamp, live));
        entries.order.push_back((stamp, id));
        while entries.by_id.len() > self.capacity {
            let Some((stamp, id)) = entries.order.pop_front() else {
                break;
            };
            if entries.by_id.get(&id).is_some_and(|(s, _)| *s == stamp) {
                entries.by_id.remove(&id);
            }
        }
        // Pairs of entries put again or dropped: cleared when they are as
        // many as the entries, so the order stays within twice the cache.
        if entries.order.len() > 2 * entries.by_id.len() + 16 {
            let Entries { by_id, order, .. } = &mut *entries;
            order.retain(|(stamp, id)| by_id.get(id).is_some_and(|(s, _)| s == stamp));
        }
    }
}

impl super::Games {
    /// Changes game `id`: `change` judges it (and mutates it: new moves are
    /// played on the record and appended to the game's, taken-back ones
    /// popped into its `undone`), then the change is written in the next
    /// group commit, its event told to the game's watchers (before the
    /// game's next change may start), and the game's new view returned. Records what the
    /// game's owner needs to arm its flag and engine turn. Concurrent
    /// changes of one game each see the other's result: in this process
    /// they go one after another; a change judged on a game another
    /// process on the same database changed meanwhile is judged again.
    ///
    /// # Errors
    ///
    /// `change`'s error, an unknown game, a conflict when the game keeps
    /// changing under the change, or a database failure.
    pub(super) async fn change<T, E>(
        &self,
        id: &str,
        change: impl FnMut(&mut StoredGame, &mut dyn Referee) -> Result<Update<T>, E>,
    ) -> Result<(GameView, T), E>
    where
        E: From<GameError>,
    {
        self.change_fenced(id, None, change).await
    }

    /// [`Games::change`], written only while `fence`'s lease is held.
    pub(super) async fn change_fenced<T, E>(
        &self,
        id: &str,
        fence: Option<&Fence>,
        mut change: impl FnMut(&mut StoredGame, &mut dyn Referee) -> Result<Update<T>, E>,
    ) -> Result<(GameView, T), E>
    where
        E: From<GameError>,
    {
        let judge = |game: &mut StoredGame, record: &mut dyn Referee| {
            change(game, record).map(|update| (update, None))
        };
        let (view, value, _) = self.write_change(id, fence, judge).await?;
        Ok((view, value))
    }

    /// [`Games::change`] whose change may create a game too (a rematch):
    /// the change and the new game are written in one transaction, both or
    /// neither. Returns the new game as stored.
    pub(super) async fn change_creating<T, E>(
        &self,
        id: &str,
        change: impl FnMut(
            &mut StoredGame,
            &mut dyn Referee,
        ) -> Result<(Update<T>, Option<StoredGame>), E>,
    ) -> Result<(GameView, T, Option<StoredGame>), E>
    where
        E: From<GameError>,
    {
        self.write_change(id, None, change).await
    }

    async fn write_change<T, E>(
        &self,
        id: &str,
        fence: Option<&Fence>,
        mut change: impl FnMut(
            &mut StoredGame,
            &mut dyn Referee,
        ) -> Result<(Update<T>, Option<StoredGame>), E>,
    ) -> Result<(GameView, T, Option<StoredGame>), E>
    where
        E: From<GameError>,
    {
        let _changing = self.live.changing.lock(id).await;
        let mut ply = 0;
        for _ in 0..ATTEMPTS {
            let (mut live, kept) = match self.live.take(id) {
                Some(live) => (live, true),
                None => (self.load_live(id).await?, false),
            };
            ply = live.game.moves.len();
            let base = Base::of(&live.game);
            let was_ongoing = live.game.status == Status::Ongoing;
            let (update, creates) = match change(&mut live.game, live.record.as_mut()) {
                Ok(changed) => changed,
                // The entry may be behind the store, and `change` may have
                // touched it: judge again on the stored game.
                Err(_) if kept => continue,
                Err(refused) => return Err(refused),
            };
            let now = self.time.now();
            let game = &mut live.game;
            let moves = game.moves.len();
            stamp_flag(&game.start_fen, moves, &mut game.clock);
            game.engine_due_at = engine_due_at(
                &game.start_fen,
                moves,
                [game.white_engine, game.black_engine],
                now,
            );
            live.follow_moves()?;
            // The change that ends a rated game rates it, in its write.
            let rating = was_ongoing.then(|| rated_end(&live.game)).flatten();
            // So does the change that ends a chess game name its opening.
            let ends = was_ongoing && live.game.status != Status::Ongoing;
            let opening = ends.then(|| stored_opening(&live.game)).flatten();
            // And it records the positions the game reached.
            let positions = if ends {
                let fens = live.game.moves.iter().map(|m| m.fen_after.as_str());
                position_keys(&live.game.start_fen, fens)
            } else {
                Vec::new()
            };
            let Live {
                game,
                record,
                moves,
            } = live;
            let written = self
                .store
                .write_game(GameWrite {
                    game,
                    base,
                    event: update.event,
                    side: update.side,
                    fence: fence.cloned(),
                    creates,
                    rating,
                    opening,
                    positions,
                })
                .await
                .map_err(GameError::from)?;
            match written {
                Written::Committed { game, created } => {
                    // A game's end, or a seat taken by a player, is news
                    // to its players' event streams.
                    let seated = update.event == EventKind::SeatJoined.name();
                    if seated || (was_ongoing && game.status != Status::Ongoing) {
                        self.ring_players(&game);
                    }
                    let live = Live {
                        game,
                        record,
                        moves,
                    };
                    let view = live.view();
                    self.live.put(live);
                    // Told while the change is held: the game's next change
                    // waits, so its watchers hear the events in order.
                    if let Some(kind) = EventKind::from_name(update.event) {
                        let played = (kind == EventKind::Move)
                            .then(|| view.moves.last().cloned())
                            .flatten();
                        self.tell(kind, &view, played).await;
                    }
                    return Ok((view, update.value, created.map(|game| *game)));
                }
                // Judged on a game the store has moved past.
                Written::Stale(_) => {}
            }
        }
        Err(GameError::Conflict {
            current_ply: u32::try_from(ply).unwrap_or(u32::MAX),
        }
        .into())
    }

    /// Game `id` read from the store and replayed.
    async fn load_live(&self, id: &str) -> Result<Live, GameError> {
        let game = self
            .store
            .game(id)
            .await
            .map_err(GameError::from)?
            .ok_or_else(|| GameError::from(GameNotFound(id.to_owned())))?;
        Live::replayed(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Status, Variant};

    fn live(id: &str, version: i64) -> Live {
        let game = StoredGame {
            seq: 1,
            id: id.to_owned(),
            variant: Variant::Chess,
            start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_owned(),
            white_name: "White".to_owned(),
            black_name: "Black".to_owned(),
            status: Status::Ongoing,
            engine_grants_takebacks: true,
            version,
            ..StoredGame::default()
        };
        Live::replayed(game).unwrap()
    }

    #[test]
    fn the_game_changed_longest_ago_goes_first() {
        let cache = LiveGames::new(2);
        cache.put(live("a", 1));
        cache.put(live("b", 1));
        cache.put(live("a", 2)); // a changed again: b is the oldest now
        cache.put(live("c", 1));
        assert_eq!(cache.len(), 2);
        assert!(cache.take("b").is_none());
        assert_eq!(cache.take("a").map(|l| l.game.version), Some(2));
        assert!(cache.take("c").is_some());
    }

    #[test]
    fn an_older_entry_never_replaces_a_newer_one() {
        let cache = LiveGames::new(10);
        cache.put(live("a", 3));
        cache.put(live("a", 2));
        assert_eq!(cache.peek("a", |g| g.version), Some(3));
        cache.forget_before("a", 3);
        assert_eq!(cache.peek("a", |g| g.version), Some(3));
        cache.forget_before("a", 4);
        assert_eq!(cache.peek("a", |g| g.version), None);
    }

    #[test]
    fn the_order_stays_within_twice_the_entries() {
        let cache = LiveGames::new(4);
        for version in 1..1_000 {
            cache.put(live("a", version));
        }
        assert_eq!(cache.len(), 1);
        assert!(cache.entries().order.len() <= 2 + 16);
    }

    #[test]
    fn no_capacity_keeps_nothing() {
        let cache = LiveGames::new(0);
        cache.put(live("a", 1));
        assert_eq!(cache.len(), 0);
    }
}
