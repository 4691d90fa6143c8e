use std::sync::Arc;

use crate::{
    rules::{
        DrawClaim, Game, MoveDescription, RuleChoices, Side, Termination, Variant,
        chess::{
            Chess,
            openings::{self, Opening},
        },
        referee::{PlayedMove, Referee},
    },
    store::{StoredGame, StoredMove, StoredOpening},
};

use super::{
    Status,
    clock::{GameClock, TimeControl},
    ending::Ending,
    error::GameError,
    ids::GameId,
    play::{replay, rule_choices},
    seats::{EngineSeat, engine_of},
};

/// How much of a game an answer or a watch event carries
/// (`arbiter.v1.GameView`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    /// Everything but the move list: an answer that does not grow with the
    /// game.
    Basic,
    /// Every move played, too.
    Full,
}

/// The outcome of a game so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutcomeView {
    pub status: Status,
    pub winner: Option<Side>,
    pub ending: Option<Ending>,
    pub claimable: Vec<DrawClaim>,
    pub description: String,
}

/// A played move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveView {
    pub ply: u32,
    pub side: Side,
    pub description: MoveDescription,
    pub fen_after: String,
    pub played_at: i64,
}

/// A game as clients see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameView {
    pub id: GameId,
    pub variant: Variant,
    /// The rules the game is played under.
    pub rules: RuleChoices,
    pub version: i64,
    pub start_fen: String,
    pub fen: String,
    /// `None` once the game is over.
    pub turn: Option<Side>,
    pub ply: u32,
    /// Shared with the live game it was built from (see `games::live`).
    pub moves: Arc<Vec<MoveView>>,
    pub outcome: OutcomeView,
    pub white_name: String,
    pub black_name: String,
    /// The players the seats are bound to (by id), if any.
    pub white_player: Option<String>,
    pub black_player: Option<String>,
    /// A rated game's end changes its players' ratings.
    pub rated: bool,
    /// Each player's rating before the game and its change, once it has
    /// ended rated.
    pub white_rating: Option<Rated>,
    pub black_rating: Option<Rated>,
    /// The engine's settings, for a seat it plays.
    pub white_engine: Option<EngineSeat>,
    pub black_engine: Option<EngineSeat>,
    pub draw_offer: Option<Side>,
    pub takeback_offer: Option<Side>,
    /// The clocks of a timed game.
    pub clock: Option<GameClock>,
    pub is_check: bool,
    pub created_at: i64,
    pub updated_at: i64,
    /// The seat no player has taken yet.
    pub open_seat: Option<Side>,
    /// The game this one is the rematch of.
    pub rematch_of: Option<String>,
    /// This game's rematch, once created.
    pub rematch: Option<String>,
    /// The side offering a rematch of this finished game.
    pub rematch_offer: Option<Side>,
}

/// A player's rating before a rated game, and the game's change of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rated {
    pub before: i64,
    pub diff: i64,
}

impl Rated {
    fn of(before: Option<i64>, diff: Option<i64>) -> Option<Rated> {
        Some(Rated {
            before: before?,
            diff: diff?,
        })
    }
}

impl GameView {
    /// The chess opening the game is named by: the last position of the
    /// openings dataset it reached, from the standard start.
    pub fn opening(&self) -> Option<Opening> {
        opening_of(
            self.variant,
            &self.start_fen,
            self.moves.iter().map(|m| m.fen_after.as_str()),
        )
    }

    /// The mover's time left after each move, in milliseconds, replayed
    /// from the moves' times (clocked games only: empty otherwise).
    pub fn clocks_after_moves(&self) -> Vec<i64> {
        let Some(clock) = self
            .clock
            .filter(|c| matches!(c.control, TimeControl::Clock { .. }))
        else {
            return Vec::new();
        };
        // The first moves are free, so the replay can start at the first one.
        let mut replay = clock
            .control
            .start(self.moves.first().map_or(0, |m| m.played_at));
        self.moves
            .iter()
            .enumerate()
            .map_while(|(ply, m)| {
                replay.charge(m.side, ply, m.played_at).ok()?;
                Some(replay.remaining[usize::from(m.side == Side::Black)])
            })
            .collect()
    }

    /// The full view: moves in every notation (`moves`, the record's as
    /// [`move_views`] tells them), outcome, claims.
    pub(in crate::games) fn build(
        game: &StoredGame,
        record: &dyn Referee,
        moves: Arc<Vec<MoveView>>,
    ) -> GameView {
        let mut view = GameView::summary(game);
        view.variant = record.variant();
        view.fen = record.fen();
        view.is_check = record.is_check();
        view.moves = moves;
        view.ply = view.moves.len() as u32;
        if view.outcome.ending == Some(Ending::Rules(Termination::PerpetualChase)) {
            // Which piece chased which is not stored: the rules tell again.
            if let Some(end) = record.verdict().end {
                view.outcome.description = end.describe(view.variant);
            }
        }
        if view.outcome.status == Status::Ongoing {
            view.turn = Some(record.turn());
            view.outcome.claimable = record.verdict().claimable;
        }
        view
    }

    /// The view from the stored row alone (for lists: no moves, no replay).
    pub(in crate::games) fn summary(game: &StoredGame) -> GameView {
        let status = game.status;
        let ending = game.termination.as_deref().and_then(Ending::from_code);
        let winner = game.winner;
        let variant = game.variant;
        let description = match (status, winner, ending) {
            (Status::Ongoing, ..) => "ongoing".to_owned(),
            (Status::Aborted, _, Some(Ending::AbortedByOperator)) => {
                "aborted by the operator".to_owned()
            }
            (Status::Aborted, ..) => "aborted".to_owned(),
            (_, Some(w), Some(e)) => {
                format!("{} won by {}", variant.side_name(w), e.describe())
            }
            (_, None, Some(e)) => format!("drawn by {}", e.describe()),
            _ => game.status.name().to_owned(),
        };
        GameView {
            id: GameId::stored(&game.id),
            variant,
            rules: rule_choices(game).unwrap_or_default(),
            version: game.version,
            start_fen: game.start_fen.clone(),
            fen: game
                .moves
                .last()
                .map_or_else(|| game.start_fen.clone(), |m| m.fen_after.clone()),
            turn: None,
            ply: game.moves.len() as u32,
            moves: Arc::default(),
            outcome: OutcomeView {
                status,
                winner,
                ending,
                claimable: Vec::new(),
                description,
            },
            white_name: game.white_name.clone(),
            black_name: game.black_name.clone(),
            white_player: game.white_player.clone(),
            black_player: game.black_player.clone(),
            rated: game.rated,
            white_rating: Rated::of(game.white_rating, game.white_rating_diff),
            black_rating: Rated::of(game.black_rating, game.black_rating_diff),
            white_engine: engine_of(game, Side::White),
            black_engine: engine_of(game, Side::Black),
            draw_offer: game.draw_offer,
            takeback_offer: game.takeback_offer,
            clock: game.clock.map(|c| GameClock::from_stored(&c)),
            is_check: false,
            created_at: game.created_at,
            updated_at: game.updated_at,
            open_seat: game.open.as_ref().map(|o| o.side),
            rematch_of: game.rematch_of.clone(),
            rematch: game.rematch.id.clone(),
            rematch_offer: game.rematch.offer,
        }
    }

    /// Whether nothing more happens to the game: it is over, and its
    /// rematch exists or cannot be (a seat was never taken, or the engine
    /// plays both).
    pub fn is_final(&self) -> bool {
        let rematch_possible = self.open_seat.is_none()
            && (self.white_engine.is_none() || self.black_engine.is_none());
        self.outcome.status != Status::Ongoing && (self.rematch.is_some() || !rematch_possible)
    }
}

/// The view of `played`, the move stored as `stored`.
pub(in crate::games) fn move_view(played: PlayedMove, stored: &StoredMove) -> MoveView {
    MoveView {
        ply: u32::try_from(stored.ply).unwrap_or(u32::MAX),
        // Upper-case pieces are White's (Red's).
        side: if played.description.piece.is_uppercase() {
            Side::White
        } else {
            Side::Black
        },
        description: played.description,
        fen_after: played.fen_after,
        played_at: stored.played_at,
    }
}

/// The views of every move of `game`, as `record` (its replay) tells them.
pub(in crate::games) fn move_views(game: &StoredGame, record: &dyn Referee) -> Vec<MoveView> {
    record
        .history()
        .into_iter()
        .zip(&game.moves)
        .map(|(played, stored)| move_view(played, stored))
        .collect()
}

/// The view of a game read from the store (replayed).
pub(in crate::games) fn view_of(game: &StoredGame) -> Result<GameView, GameError> {
    let record = replay(game)?;
    let moves = Arc::new(move_views(game, record.as_ref()));
    Ok(GameView::build(game, record.as_ref(), moves))
}

/// The chess opening a game of `variant` from `start_fen` whose positions
/// after each move are `fens` is named by: the last position of the
/// openings dataset it reached, from the standard start.
pub fn opening_of<'a>(
    variant: Variant,
    start_fen: &str,
    fens: impl IntoIterator<Item = &'a str>,
) -> Option<Opening> {
    let standard = variant == Variant::Chess && start_fen == Chess::start().fen();
    standard.then(|| openings::opening_of(fens)).flatten()
}

/// The opening a stored game is named by, as the store keeps it (its name
/// in lower case, for searches by prefix).
pub(in crate::games) fn stored_opening(game: &StoredGame) -> Option<StoredOpening> {
    stored_opening_of(
        game.variant,
        &game.start_fen,
        game.moves.iter().map(|m| m.fen_after.as_str()),
    )
}

/// The opening of a game of `variant` from `start_fen` through the
/// positions `fens`, as the store keeps it.
pub(in crate::games) fn stored_opening_of<'a>(
    variant: Variant,
    start_fen: &str,
    fens: impl IntoIterator<Item = &'a str>,
) -> Option<StoredOpening> {
    let opening = opening_of(variant, start_fen, fens)?;
    Some(StoredOpening {
        eco: opening.eco.to_owned(),
        name: opening.name.to_lowercase(),
    })
}
