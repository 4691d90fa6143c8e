//! Live games: what a change of a game in play needs, kept in memory
//! between its changes, so that a move neither reads the stored move list
//! again nor replays the game from its start.
//!
//! An entry holds the stored game's row, its moves in [`Plies`] (each
//! ply's texts in one shared string: what the store keeps of it and what
//! clients see of it) and its record packed: the position at the last
//! irreversible move and the repetition keys and moves since, which is all
//! the rules look back at. A change gets the stored moves and the record
//! back from them (the positions since that move replayed), and a view
//! its move views, with neither a read nor a replay from the start; a
//! takeback past that move replays the game.
//!
//! A change takes its game's entry out of the cache, judges on it, and puts
//! it back once the store has committed the change; the game's next change
//! in this process waits for that (see [`super::change_lock`]). A change
//! judged on an entry the store has moved past (another connection's or
//! server's write) writes nothing ([`Written::Stale`]), and is judged again
//! on the game read afresh. So the cache is never trusted over the store; a
//! refusal judged on an entry is judged again on the store's game too, and
//! an entry a refused change may have touched is dropped.
//!
//! The cache holds at most its capacity of entries (`--live-games`) and
//! its budget of bytes (`--live-games-memory`), each entry counted by the
//! bytes it holds (its capacities, measured against the allocator in the
//! tests below: 5.4 KB for a chess game of 40 plies, 6.2 KB for a
//! xiangqi one); the game changed longest ago goes first. A game dropped
//! is read from the store and replayed at its next change: the budget
//! never fails a change.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex, MutexGuard},
};

use super::{
    change_lock::ChangeLocks,
    model::Status,
    model::{
        EventKind, GameError, GameView, MoveView, move_view, position_keys, rated_end, replay,
        stored_opening, takeover::engine_due_at, takeover::stamp_flag,
    },
    plies::Plies,
};
use crate::{
    rules::referee::{PackedReferee, PlayedMove, Referee},
    store::{Base, Fence, GameNotFound, GameWrite, StoredGame, StoredMove, Update, Written},
};

/// Default [`LiveGames`] count cap (`--live-games`): more than the budget
/// below holds of games of 40 plies, so that the budget decides.
pub const DEFAULT_LIVE_GAMES: usize = 100_000;

/// Default [`LiveGames`] memory budget (`--live-games-memory`), in bytes:
/// 50,000 games of 40 plies at their measured 5.4-6.2 KB each (310 MB;
/// see the tests below and BENCHMARKS.md, Memory of the live games), with
/// room for longer games: 50,000 of 10 KB.
pub const DEFAULT_LIVE_GAMES_MEMORY: usize = 512 << 20;

/// How often a change is judged again on a game read afresh, at most,
/// before it is answered as a conflict (ABORTED).
const ATTEMPTS: usize = 4;

/// A game in play as its changes need it.
pub(super) struct Live {
    pub(super) game: StoredGame,
    pub(super) record: Box<dyn Referee>,
    /// Its moves, for the stored moves and the views of the next change.
    plies: Plies,
}

/// A game in play as the cache keeps it between its changes: its row
/// without the moves, the moves in [`Plies`], the record packed.
struct Kept {
    game: StoredGame,
    plies: Plies,
    record: Box<dyn PackedReferee>,
}

impl Live {
    /// The entry of `game`, replayed.
    fn replayed(game: StoredGame) -> Result<Live, GameError> {
        let record = replay(&game)?;
        Live::new(game, record)
    }

    /// The entry of `game`, whose record is `record` (every move in it).
    fn new(game: StoredGame, record: Box<dyn Referee>) -> Result<Live, GameError> {
        let mut live = Live {
            game,
            record,
            plies: Plies::default(),
        };
        live.follow_moves()?;
        Ok(live)
    }

    /// Brings the record and the plies to the game's moves after a
    /// change (moves played on the record already, or taken back, or played
    /// on a copy of it): those taken back are undone, those played after
    /// played. A record that does not reach back far enough is replayed.
    fn follow_moves(&mut self) -> Result<(), GameError> {
        let game = &self.game;
        let stored = game.moves.len();
        if stored < self.record.first_kept() {
            self.record = replay(game)?;
        }
        follow_record(game, self.record.as_mut())?;
        self.plies.truncate(stored);
        for ply in self.plies.len()..stored {
            let played = played(game, self.record.as_ref(), ply)?;
            self.plies.push(&played, &game.moves[ply])?;
        }
        Ok(())
    }

    pub(super) fn view(&self) -> GameView {
        let moves = Arc::new(self.plies.views());
        GameView::build(&self.game, self.record.as_ref(), moves)
    }

    /// The entry as the cache keeps it.
    fn kept(self) -> Kept {
        let Live {
            mut game,
            record,
            mut plies,
        } = self;
        game.moves = Vec::new();
        game.undone = Vec::new();
        plies.shrink();
        Kept {
            game,
            plies,
            record: record.pack(),
        }
    }
}

impl Kept {
    /// The entry to change again.
    fn live(self) -> Live {
        let Kept {
            mut game,
            plies,
            record,
        } = self;
        game.moves = plies.stored();
        Live {
            game,
            record: record.unpack(),
            plies,
        }
    }

    /// The bytes it holds, by capacity: its struct and everything it owns
    /// on the heap.
    fn bytes(&self) -> usize {
        size_of::<Kept>() + row_bytes(&self.game) + self.plies.heap_bytes() + self.record.bytes()
    }
}

/// The bytes a game's row holds on the heap, by capacity (its moves
/// included).
fn row_bytes(game: &StoredGame) -> usize {
    let text = |s: &String| s.capacity();
    let some = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
    let moves = |moves: &Vec<StoredMove>| {
        moves.capacity() * size_of::<StoredMove>()
            + moves
                .iter()
                .map(|m| m.uci.capacity() + m.fen_after.capacity())
                .sum::<usize>()
    };
    [
        &game.id,
        &game.start_fen,
        &game.white_name,
        &game.black_name,
        &game.white_token_hash,
        &game.black_token_hash,
    ]
    .into_iter()
    .map(text)
    .sum::<usize>()
        + [
            &game.termination,
            &game.xiangqi_rules,
            &game.join_code,
            &game.rematch_of,
            &game.rematch.id,
            &game.rematch.token_hash,
            &game.white_player,
            &game.black_player,
        ]
        .into_iter()
        .map(some)
        .sum::<usize>()
        + game
            .open
            .as_ref()
            .map_or(0, |open| open.join_code.capacity())
        + moves(&game.moves)
        + moves(&game.undone)
}

/// The move played at `ply` of `game`, as `record` tells it.
fn played(game: &StoredGame, record: &dyn Referee, ply: usize) -> Result<PlayedMove, GameError> {
    record
        .played(ply)
        .ok_or_else(|| GameError::Corrupt(format!("game {}: no move at ply {ply}", game.id)))
}

/// Brings `record` to `game`'s moves, which differ from the record's by
/// moves taken back from its end and moves played after: those are
/// undone, these played.
fn follow_record(game: &StoredGame, record: &mut dyn Referee) -> Result<(), GameError> {
    let stored = game.moves.len();
    while record.ply() > stored {
        record.undo();
    }
    for m in &game.moves[record.ply()..] {
        record
            .play_recorded(&m.uci)
            .map_err(|e| GameError::Corrupt(format!("game {} does not replay: {e}", game.id)))?;
    }
    Ok(())
}

/// Brings `record` and `views` (its moves as clients see them) to `game`'s
/// moves, as [`follow_record`] does; `record` holds every move.
pub(super) fn follow_moves(
    game: &StoredGame,
    record: &mut dyn Referee,
    views: &mut Arc<Vec<MoveView>>,
) -> Result<(), GameError> {
    follow_record(game, record)?;
    let stored = game.moves.len();
    // Shared with the views built before: copied only while one is kept.
    let views = Arc::make_mut(views);
    views.truncate(stored);
    for ply in views.len()..stored {
        views.push(move_view(played(game, record, ply)?, &game.moves[ply]));
    }
    Ok(())
}

/// The live games (see the module docs).
#[derive(Debug)]
pub(super) struct LiveGames {
    capacity: usize,
    budget: usize,
    entries: Mutex<Entries>,
    /// One change of a game at a time: the entry a change takes out is
    /// back before the next change of its game looks for it.
    changing: ChangeLocks,
}

/// What the cache keeps of a game: its entry, the stamp of its last put,
/// and the bytes it counts for.
struct Slot {
    stamp: u64,
    bytes: usize,
    kept: Box<Kept>,
}

#[derive(Default)]
struct Entries {
    by_id: HashMap<String, Slot>,
    /// Ids by the stamp of their put, oldest first; a pair whose stamp is
    /// not its entry's any more is skipped.
    order: VecDeque<(u64, String)>,
    next: u64,
    /// The bytes of every entry kept.
    bytes: usize,
}

impl std::fmt::Debug for Entries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entries")
            .field("games", &self.by_id.len())
            .field("bytes", &self.bytes)
            .finish_non_exhaustive()
    }
}

impl Entries {
    fn remove(&mut self, id: &str) -> Option<Kept> {
        let slot = self.by_id.remove(id)?;
        self.bytes -= slot.bytes;
        Some(*slot.kept)
    }
}

/// The bytes an entry of game `id` counts for: the entry itself, and its
/// places in the cache's map and order with their copies of the id.
fn slot_bytes(kept: &Kept) -> usize {
    kept.bytes() + size_of::<(String, Slot)>() + size_of::<(u64, String)>() + 2 * kept.game.id.len()
}

impl LiveGames {
    /// A cache of at most `capacity` games (0: none are kept) and `budget`
    /// bytes of them.
    pub(super) fn new(capacity: usize, budget: usize) -> LiveGames {
        LiveGames {
            capacity,
            budget,
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

    /// The bytes of the games kept now.
    pub(super) fn bytes(&self) -> usize {
        self.entries().bytes
    }

    /// What `look` says of game `id`'s kept row and its number of moves,
    /// if it is kept.
    pub(super) fn peek<R>(
        &self,
        id: &str,
        look: impl FnOnce(&StoredGame, usize) -> R,
    ) -> Option<R> {
        self.entries()
            .by_id
            .get(id)
            .map(|slot| look(&slot.kept.game, slot.kept.plies.len()))
    }

    /// Takes game `id`'s entry out (a change is judged on it).
    fn take(&self, id: &str) -> Option<Live> {
        let kept = self.entries().remove(id)?;
        Some(kept.live())
    }

    /// Drops game `id`'s entry if it is older than `version` (another
    /// server wrote that version).
    pub(super) fn forget_before(&self, id: &str, version: i64) {
        let mut entries = self.entries();
        if entries
            .by_id
            .get(id)
            .is_some_and(|slot| slot.kept.game.version < version)
        {
            entries.remove(id);
        }
    }

    /// Keeps `game` just stored (created or imported), whose record is
    /// `record`; its view.
    pub(super) fn keep(
        &self,
        game: StoredGame,
        record: Box<dyn Referee>,
    ) -> Result<GameView, GameError> {
        let live = Live::new(game, record)?;
        let view = live.view();
        self.put(live);
        Ok(view)
    }

    /// Drops every entry (changes may have gone unheard).
    pub(super) fn clear(&self) {
        let mut entries = self.entries();
        entries.by_id.clear();
        entries.order.clear();
        entries.bytes = 0;
    }

    /// Keeps `live` (unless an entry as new is kept already, or its game is
    /// over: nothing changes it any more but a takeback of nothing), then
    /// drops the entries put longest ago while the cache is over its count
    /// or its bytes.
    fn put(&self, live: Live) {
        if self.capacity == 0 || self.budget == 0 || live.game.status != Status::Ongoing {
            return;
        }
        let id = live.game.id.clone();
        if self
            .entries()
            .by_id
            .get(&id)
            .is_some_and(|slot| slot.kept.game.version >= live.game.version)
        {
            return;
        }
        // Packed outside the lock.
        let kept = Box::new(live.kept());
        let bytes = slot_bytes(&kept);
        let mut entries = self.entries();
        if entries
            .by_id
            .get(&id)
            .is_some_and(|slot| slot.kept.game.version >= kept.game.version)
        {
            return;
        }
        entries.remove(&id);
        let stamp = entries.next;
        entries.next += 1;
        entries.bytes += bytes;
        entries
            .by_id
            .insert(id.clone(), Slot { stamp, bytes, kept });
        entries.order.push_back((stamp, id));
        while entries.by_id.len() > self.capacity || entries.bytes > self.budget {
            let Some((stamp, id)) = entries.order.pop_front() else {
                break;
            };
            if entries
                .by_id
                .get(&id)
                .is_some_and(|slot| slot.stamp == stamp)
            {
                entries.remove(&id);
            }
        }
        // Pairs of entries put again or dropped: cleared when they are as
        // many as the entries, so the order stays within twice the cache.
        if entries.order.len() > 2 * entries.by_id.len() + 16 {
            let Entries { by_id, order, .. } = &mut *entries;
            order.retain(|(stamp, id)| by_id.get(id).is_some_and(|slot| slot.stamp == *stamp));
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
                plies,
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
                        plies,
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
    use std::{
        alloc::{GlobalAlloc, Layout, System},
        cell::Cell,
    };

    use super::*;
    use crate::rules::{Status, Variant, referee::referee};

    /// Counts the bytes each thread holds allocated, for the tests that
    /// check what an entry says it holds.
    struct Counting;

    thread_local! {
        static HELD: Cell<isize> = const { Cell::new(0) };
    }

    fn count(bytes: isize) {
        let _ = HELD.try_with(|held| held.set(held.get() + bytes));
    }

    // SAFETY: every call goes to the system allocator as it came.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            count(layout.size() as isize);
            // SAFETY: as the caller's.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            count(-(layout.size() as isize));
            // SAFETY: as the caller's.
            unsafe { System.dealloc(ptr, layout) }
        }
        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            count(new_size as isize - layout.size() as isize);
            // SAFETY: as the caller's.
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    fn held() -> isize {
        HELD.with(Cell::get)
    }

    const CHESS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const XIANGQI: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

    /// A Breyer Ruy Lopez, 40 plies.
    const RUY_LOPEZ: &str = "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 \
        d4 Nbd7 Nbd2 Bb7 Bc2 Re8 Nf1 Bf8 Ng3 g6 a4 c5 d5 c4 Bg5 h6 Be3 Nc5 Qd2 h5 Bg5 Be7";

    /// A game of `variant` as the store keeps it (ids and hashes as long
    /// as real ones), `moves` played from its start, or `plies` moves
    /// picked by a fixed sequence when `moves` is empty.
    fn game(id: &str, variant: Variant, moves: &str, plies: usize) -> StoredGame {
        let start = if variant == Variant::Chess {
            CHESS
        } else {
            XIANGQI
        };
        let mut record = referee::<&str>(variant, Some(start), &[]).unwrap();
        let mut texts: Vec<String> = moves.split_whitespace().map(str::to_owned).collect();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        while texts.len() < plies {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let legal = record.legal_moves_coordinates();
            let pick = legal[(state % legal.len() as u64) as usize].clone();
            record.play(&pick).unwrap();
            texts.push(pick);
        }
        let mut record = referee::<&str>(variant, Some(start), &[]).unwrap();
        let moves = texts
            .iter()
            .enumerate()
            .map(|(ply, text)| {
                let played = record.play(text).unwrap();
                StoredMove {
                    ply: ply as i64,
                    uci: played.description.uci.into(),
                    fen_after: played.fen_after,
                    played_at: 1_700_000_000_000 + ply as i64 * 5_000,
                }
            })
            .collect();
        StoredGame {
            seq: 1,
            id: id.to_owned(),
            variant,
            start_fen: start.to_owned(),
            white_name: "White player".to_owned(),
            black_name: "Black player".to_owned(),
            white_token_hash: "a".repeat(64),
            black_token_hash: "b".repeat(64),
            xiangqi_rules: (variant == Variant::Xiangqi).then(|| "asian".to_owned()),
            status: Status::Ongoing,
            engine_grants_takebacks: true,
            version: 1,
            moves,
            ..StoredGame::default()
        }
    }

    fn live(id: &str, version: i64) -> Live {
        let game = StoredGame {
            version,
            ..game(id, Variant::Chess, "", 0)
        };
        Live::replayed(game).unwrap()
    }

    /// A game of 40 plies as the cache keeps it, and the bytes the thread
    /// held more once it was built.
    fn kept_of(variant: Variant, moves: &str) -> (Box<Kept>, isize) {
        let before = held();
        let game = game("Xk3dP9qLm2Ra", variant, moves, 40);
        let kept = Box::new(Live::replayed(game).unwrap().kept());
        (kept, held() - before)
    }

    #[test]
    fn a_game_of_40_plies_takes_at_most_8_kb_as_it_counts() {
        for (variant, moves) in [(Variant::Chess, RUY_LOPEZ), (Variant::Xiangqi, "")] {
            kept_of(variant, moves); // what is set up once, out of the count
            let (kept, held) = kept_of(variant, moves);
            let counted = kept.bytes() + size_of::<Box<Kept>>();
            let slot = slot_bytes(&kept);
            println!("{variant:?}: counts {counted} bytes, holds {held}; {slot} in the cache");
            assert!(slot <= 8_000, "{variant:?}: {slot} bytes");
            // Every byte held is counted, and nothing more: the Box's
            // pointer itself lives on the stack here.
            assert_eq!(
                counted - size_of::<Box<Kept>>(),
                held as usize,
                "{variant:?}"
            );
            assert_eq!(kept.plies.len(), 40);
        }
    }

    #[test]
    fn a_kept_game_comes_back_as_it_went() {
        for (variant, moves) in [(Variant::Chess, RUY_LOPEZ), (Variant::Xiangqi, "")] {
            let game = game("g", variant, moves, 40);
            let whole = Live::replayed(game.clone()).unwrap();
            let view = whole.view();
            let back = whole.kept().live();
            assert_eq!(back.game, game);
            assert_eq!(back.view(), view);
            assert_eq!(back.record.ply(), 40);
            assert_eq!(back.record.fen(), view.fen);
        }
    }

    #[test]
    fn takebacks_past_what_is_kept_replay_the_game() {
        let game = game("g", Variant::Chess, RUY_LOPEZ, 40);
        let whole = Live::replayed(game.clone()).unwrap();
        let mut live = whole.kept().live();
        assert!(live.record.first_kept() > 10);
        live.game.moves.truncate(10);
        live.follow_moves().unwrap();
        let mut shorter = game;
        shorter.moves.truncate(10);
        let replayed = Live::replayed(shorter).unwrap();
        assert_eq!(live.view(), replayed.view());
        assert_eq!(live.record.first_kept(), 0);
    }

    #[test]
    fn the_budget_drops_the_games_put_longest_ago() {
        let each = slot_bytes(&live("g00", 1).kept());
        let budget = each * 7 / 2;
        let cache = LiveGames::new(usize::MAX, budget);
        for i in 0..10 {
            cache.put(live(&format!("g{i:02}"), 1));
            assert!(cache.bytes() <= budget);
        }
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.bytes(), 3 * each);
        cache.put(live("g07", 2)); // g07 changed again: g08 is the oldest now
        cache.put(live("g10", 1));
        assert!(cache.take("g08").is_none());
        for id in ["g07", "g09", "g10"] {
            assert!(cache.take(id).is_some(), "{id}");
        }
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn the_game_changed_longest_ago_goes_first() {
        let cache = LiveGames::new(2, usize::MAX);
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
        let cache = LiveGames::new(10, usize::MAX);
        cache.put(live("a", 3));
        cache.put(live("a", 2));
        assert_eq!(cache.peek("a", |g, _| g.version), Some(3));
        cache.forget_before("a", 3);
        assert_eq!(cache.peek("a", |g, _| g.version), Some(3));
        cache.forget_before("a", 4);
        assert_eq!(cache.peek("a", |g, _| g.version), None);
        assert_eq!(cache.bytes(), 0);
    }

    #[test]
    fn the_order_stays_within_twice_the_entries() {
        let cache = LiveGames::new(4, usize::MAX);
        for version in 1..1_000 {
            cache.put(live("a", version));
        }
        assert_eq!(cache.len(), 1);
        assert!(cache.entries().order.len() <= 2 + 16);
    }

    #[test]
    fn no_capacity_keeps_nothing() {
        for (count, bytes) in [(0, usize::MAX), (usize::MAX, 0)] {
            let cache = LiveGames::new(count, bytes);
            cache.put(live("a", 1));
            assert_eq!(cache.len(), 0);
        }
    }
}
