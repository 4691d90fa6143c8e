//! Game ends under the Asian rules: mate and stalemate lose, repetitions are
//! judged by [`repetition`](super::repetition), a no-capture move limit and
//! bare material draw.

use super::{Xiangqi, piece::Kind, repetition};
use crate::rules::{Game, GameEnd, IllegalReason, Record, Side, Termination, Verdict};

/// The rule options a xiangqi game may vary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XiangqiOptions {
    /// Half-moves without a capture after which the game is drawn. Asian
    /// rules (and Pikafish) use 120 (60 moves); Fairy-Stockfish uses 100.
    /// Checks beyond ten by one side extend it by two plies each.
    pub move_limit_plies: u32,
    /// How repetitions are judged.
    pub rules: XiangqiRules,
}

impl Default for XiangqiOptions {
    fn default() -> XiangqiOptions {
        XiangqiOptions {
            move_limit_plies: 120,
            rules: XiangqiRules::default(),
        }
    }
}

/// How a xiangqi game judges repeated positions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum XiangqiRules {
    /// Asian rules: at the third occurrence, perpetual check and perpetual
    /// chase lose, anything else draws.
    #[default]
    Asian,
    /// Every third occurrence is a draw (casual play).
    RepetitionDraws,
    /// Asian rules enforced as several platforms do: the move that would
    /// complete a perpetual check or chase is refused, so the offender must
    /// vary; a side whose every legal move is refused loses.
    AsianRefusing,
}

impl XiangqiRules {
    /// Every rule set, in a stable order.
    pub const ALL: [XiangqiRules; 3] = [
        XiangqiRules::Asian,
        XiangqiRules::RepetitionDraws,
        XiangqiRules::AsianRefusing,
    ];

    /// The lower-case name stored and shown (`asian`, `repetition_draws`,
    /// `asian_refusing`).
    pub const fn name(self) -> &'static str {
        match self {
            XiangqiRules::Asian => "asian",
            XiangqiRules::RepetitionDraws => "repetition_draws",
            XiangqiRules::AsianRefusing => "asian_refusing",
        }
    }

    /// The rule set named `name` (see [`XiangqiRules::name`]).
    pub fn from_name(name: &str) -> Option<XiangqiRules> {
        XiangqiRules::ALL.into_iter().find(|r| r.name() == name)
    }
}

/// Judges the current position of `record`: a side without legal moves
/// loses (checkmate or stalemate); then bare material, repetition and the
/// move limit (extended for many checks) draw, except that a perpetual
/// checker or chaser loses. Xiangqi has no
/// draw claims: every end is automatic.
pub(super) fn adjudicate(record: &Record<Xiangqi>, has_moves: bool) -> Verdict {
    let pos = record.current();
    let end = if let Some(end) = has_moves.then(|| refused_everywhere(record)).flatten() {
        Some(end)
    } else if !has_moves {
        let termination = if pos.is_check() {
            Termination::Checkmate
        } else {
            Termination::Stalemate
        };
        Some(GameEnd::win(!pos.turn, termination))
    } else if has_insufficient_material(pos, Side::White)
        && has_insufficient_material(pos, Side::Black)
    {
        Some(GameEnd::draw(Termination::InsufficientMaterial))
    } else if let Some(end) = repetition::judge(record) {
        Some(end)
    } else if pos.halfmoves >= record.options().move_limit_plies
        && pos.halfmoves >= record.options().move_limit_plies + check_allowance(record)
    {
        Some(GameEnd::draw(Termination::MoveLimit))
    } else {
        None
    };
    Verdict {
        end,
        claimable: Vec::new(),
    }
}

/// Under [`XiangqiRules::AsianRefusing`], a side that must move and whose
/// every legal move is refused loses, by the offence the last one refused
/// would have completed.
fn refused_everywhere(record: &Record<Xiangqi>) -> Option<GameEnd> {
    if record.options().rules != XiangqiRules::AsianRefusing {
        return None;
    }
    let mut last = None;
    for m in record.current().legal_moves() {
        last = Some(repetition::forbidden(record, m)?);
    }
    let termination = match last?.reason {
        IllegalReason::PerpetualCheck => Termination::PerpetualCheck,
        _ => Termination::PerpetualChase,
    };
    Some(GameEnd::win(!record.current().turn, termination))
}

/// Checks beyond ten by one side do not count toward the move limit (AXF):
/// two plies for each check beyond ten given by the side that gave more.
/// Counted as Fairy-Stockfish counts them, over the plies since the last
/// capture (and since the start of the record): pairs of positions going
/// back from the current one, each pair the positions reached by each
/// side's moves.
fn check_allowance(record: &Record<Xiangqi>) -> u32 {
    let positions = record.positions();
    let last = positions.len() - 1;
    // Fewer plies cannot hold more than ten checks by one side.
    if last < 20 {
        return 0;
    }
    let window = (record.current().halfmoves as usize).min(last);
    let pairs = window.saturating_sub(1) / 2 + 1;
    let checks = |newest: usize| {
        (0..pairs)
            .filter(|k| positions[newest - 2 * k].is_check())
            .count() as u32
    };
    2 * checks(last).max(checks(last - 1)).saturating_sub(10)
}

/// Policy (as Fairy-Stockfish): a side with no chariot, horse, cannon or
/// soldier cannot win. Generals, advisors and elephants never cross the
/// river, so they can never attack the other general; and no stalemate can
/// be forced with them alone.
pub(super) fn has_insufficient_material(pos: &Xiangqi, side: Side) -> bool {
    [Kind::Chariot, Kind::Horse, Kind::Cannon, Kind::Soldier]
        .into_iter()
        .all(|kind| pos.pieces_of(side, kind).is_empty())
}
