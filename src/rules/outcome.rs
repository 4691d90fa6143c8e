use std::fmt;

use super::{Side, Variant, xiangqi};

/// How the rules ended a game (the service adds resignation, agreement,
/// time forfeit and the like on top).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move has no legal move and is not in check (a draw in
    /// chess, a loss in xiangqi).
    Stalemate,
    /// Neither side can ever win.
    InsufficientMaterial,
    /// A threefold repetition (claimed in chess; automatic in xiangqi).
    ThreefoldRepetition,
    /// The same position for the fifth time (chess, automatic).
    FivefoldRepetition,
    /// Fifty moves without capture or pawn move (chess, claimed).
    FiftyMoves,
    /// Seventy-five moves without capture or pawn move (chess, automatic).
    SeventyFiveMoves,
    /// A side checked on every move of a repetition cycle (xiangqi).
    PerpetualCheck,
    /// The no-capture move limit was reached (xiangqi).
    MoveLimit,
    /// A side chased the same piece with every one of its moves in a
    /// repetition cycle (xiangqi, Asian rules): it loses.
    PerpetualChase,
    /// Atomic: the opponent's king exploded.
    Explosion,
    /// Antichess: the winner lost every piece.
    AllPiecesLost,
    /// King of the Hill: the winner's king reached the centre.
    KingInTheCentre,
    /// Three-check: the winner gave check a third time.
    ThreeChecks,
    /// Racing Kings: the winner's king reached the eighth rank (a draw when
    /// both did).
    RaceFinished,
    /// Horde: Black captured every white piece.
    HordeDestroyed,
}

/// A finished game: the winner (`None` for a draw) and why it ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    pub winner: Option<Side>,
    pub termination: Termination,
    /// For a perpetual chase: which piece chased which.
    pub chase: Option<Chase>,
}

impl GameEnd {
    pub const fn win(winner: Side, termination: Termination) -> GameEnd {
        GameEnd {
            winner: Some(winner),
            termination,
            chase: None,
        }
    }

    pub const fn draw(termination: Termination) -> GameEnd {
        GameEnd {
            winner: None,
            termination,
            chase: None,
        }
    }

    /// The chaser's opponent wins by perpetual chase.
    pub const fn perpetual_chase(chase: Chase) -> GameEnd {
        GameEnd {
            winner: Some(chase.chaser.other()),
            termination: Termination::PerpetualChase,
            chase: Some(chase),
        }
    }
}

/// The offence of a perpetual chase (xiangqi): the piece that chased, and
/// the piece it chased, where it stood at the chaser's last move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chase {
    pub chaser: Side,
    pub chasing: xiangqi::Kind,
    pub chased: xiangqi::Kind,
    pub on: xiangqi::Square,
    /// Whether the chased piece had a protector (only a chariot threatened
    /// by a horse or cannon is chased while protected).
    pub protected: bool,
}

impl fmt::Display for Chase {
    /// "Black's chariot chased the unprotected horse on c2"
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = match self.chaser {
            Side::White => "Red",
            Side::Black => "Black",
        };
        let unprotected = if self.protected { "" } else { "unprotected " };
        write!(
            f,
            "{side}'s {} chased the {unprotected}{} on {}",
            self.chasing.name(),
            self.chased.name(),
            self.on
        )
    }
}

impl Termination {
    /// Lower-case words, as used in messages.
    pub const fn describe(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::InsufficientMaterial => "insufficient material",
            Termination::ThreefoldRepetition => "threefold repetition",
            Termination::FivefoldRepetition => "fivefold repetition",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::SeventyFiveMoves => "seventy-five-move rule",
            Termination::PerpetualCheck => "perpetual check",
            Termination::MoveLimit => "move limit",
            Termination::PerpetualChase => "perpetual chase",
            Termination::Explosion => "exploding the king",
            Termination::AllPiecesLost => "losing every piece",
            Termination::KingInTheCentre => "bringing the king to the centre",
            Termination::ThreeChecks => "giving three checks",
            Termination::RaceFinished => "reaching the eighth rank",
            Termination::HordeDestroyed => "destroying the horde",
        }
    }
}

impl GameEnd {
    /// The end in words, with the sides named as players of `variant` name
    /// them: "black won by checkmate", "red won by perpetual chase: Black's
    /// chariot chased the unprotected horse on d0", "drawn by stalemate".
    pub fn describe(&self, variant: Variant) -> String {
        let how = self.termination.describe();
        match (self.winner, self.chase) {
            (Some(side), Some(chase)) => {
                format!("{} won by {how}: {chase}", variant.side_name(side))
            }
            (Some(side), None) => format!("{} won by {how}", variant.side_name(side)),
            (None, _) => format!("drawn by {how}"),
        }
    }
}

/// A draw a player may claim in the current position (chess).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawClaim {
    /// The current position has occurred at least three times.
    ThreefoldRepetition,
    /// Fifty moves by each side without capture or pawn move.
    FiftyMoves,
}

impl DrawClaim {
    /// The termination recorded when the claim is granted.
    pub const fn termination(self) -> Termination {
        match self {
            DrawClaim::ThreefoldRepetition => Termination::ThreefoldRepetition,
            DrawClaim::FiftyMoves => Termination::FiftyMoves,
        }
    }
}

/// The rules' judgement of a position reached by a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    /// The end of the game, if the rules end it here.
    pub end: Option<GameEnd>,
    /// Draws the side to move (or either side, in chess) may claim now.
    pub claimable: Vec<DrawClaim>,
}

impl Verdict {
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_winner_is_named_as_the_game_names_it() {
        let mate = GameEnd::win(Side::White, Termination::Checkmate);
        assert_eq!(mate.describe(Variant::Chess), "white won by checkmate");
        assert_eq!(mate.describe(Variant::Xiangqi), "red won by checkmate");
        let black = GameEnd::win(Side::Black, Termination::PerpetualCheck);
        assert_eq!(
            black.describe(Variant::Xiangqi),
            "black won by perpetual check"
        );
        let draw = GameEnd::draw(Termination::Stalemate);
        assert_eq!(draw.describe(Variant::Chess), "drawn by stalemate");
    }
}
