use crate::rules::Termination;

/// How a stored game ended: by the rules, or by the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Rules(Termination),
    Resignation,
    Agreement,
    Aborted,
    /// Aborted by the operator credential, at any point of the game.
    AbortedByOperator,
    /// The side to move ran out of time.
    Timeout,
    /// The side to move ran out of time, but the opponent could not have
    /// won by any legal sequence: a draw.
    TimeoutVsInsufficientMaterial,
    /// Aborted: nobody took the game's open seat in time.
    Unjoined,
    /// The opponent left the game and the winner claimed it.
    Abandoned,
}

const RULES: [Termination; 16] = [
    Termination::Checkmate,
    Termination::Stalemate,
    Termination::InsufficientMaterial,
    Termination::ThreefoldRepetition,
    Termination::FivefoldRepetition,
    Termination::FiftyMoves,
    Termination::SeventyFiveMoves,
    Termination::PerpetualCheck,
    Termination::MoveLimit,
    Termination::PerpetualChase,
    Termination::Explosion,
    Termination::AllPiecesLost,
    Termination::KingInTheCentre,
    Termination::ThreeChecks,
    Termination::RaceFinished,
    Termination::HordeDestroyed,
];

impl Ending {
    /// The code stored in the database.
    pub const fn code(self) -> &'static str {
        match self {
            Ending::Rules(t) => match t {
                Termination::Checkmate => "checkmate",
                Termination::Stalemate => "stalemate",
                Termination::InsufficientMaterial => "insufficient_material",
                Termination::ThreefoldRepetition => "threefold_repetition",
                Termination::FivefoldRepetition => "fivefold_repetition",
                Termination::FiftyMoves => "fifty_moves",
                Termination::SeventyFiveMoves => "seventy_five_moves",
                Termination::PerpetualCheck => "perpetual_check",
                Termination::MoveLimit => "move_limit",
                Termination::PerpetualChase => "perpetual_chase",
                Termination::Explosion => "explosion",
                Termination::AllPiecesLost => "all_pieces_lost",
                Termination::KingInTheCentre => "king_in_the_centre",
                Termination::ThreeChecks => "three_checks",
                Termination::RaceFinished => "race_finished",
                Termination::HordeDestroyed => "horde_destroyed",
            },
            Ending::Resignation => "resignation",
            Ending::Agreement => "agreement",
            Ending::Aborted => "aborted",
            Ending::AbortedByOperator => "aborted_by_operator",
            Ending::Timeout => "timeout",
            Ending::TimeoutVsInsufficientMaterial => "timeout_vs_insufficient_material",
            Ending::Unjoined => "unjoined",
            Ending::Abandoned => "abandoned",
        }
    }

    /// Every ending.
    pub fn all() -> impl Iterator<Item = Ending> {
        RULES.into_iter().map(Ending::Rules).chain([
            Ending::Resignation,
            Ending::Agreement,
            Ending::Aborted,
            Ending::AbortedByOperator,
            Ending::Timeout,
            Ending::TimeoutVsInsufficientMaterial,
            Ending::Unjoined,
            Ending::Abandoned,
        ])
    }

    /// Reads a stored code.
    pub fn from_code(code: &str) -> Option<Ending> {
        Ending::all().find(|e| e.code() == code)
    }

    /// Words for people.
    pub const fn describe(self) -> &'static str {
        match self {
            Ending::Rules(t) => t.describe(),
            Ending::Resignation => "resignation",
            Ending::Agreement => "agreement",
            Ending::Aborted => "abort",
            Ending::AbortedByOperator => "abort by the operator",
            Ending::Timeout => "time forfeit",
            Ending::TimeoutVsInsufficientMaterial => "time forfeit against insufficient material",
            Ending::Unjoined => "nobody taking the open seat",
            Ending::Abandoned => "the opponent leaving the game",
        }
    }
}
