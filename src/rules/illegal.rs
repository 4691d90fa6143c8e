use std::fmt;

/// Why a move is illegal, as a stable code. [`IllegalMove`] adds the
/// human-readable explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The game is already over.
    GameOver,
    /// There is no piece on the origin square.
    NoPiece,
    /// The piece on the origin square belongs to the side not to move.
    OpponentPiece,
    /// The destination holds a piece of the mover's own side.
    OwnPieceOnDestination,
    /// The piece never moves that way.
    CannotMoveThatWay,
    /// A piece stands in the way.
    PathBlocked,
    /// The move would leave the mover's own king (general) in check.
    OwnKingInCheck,
    /// No piece of the named kind can reach the destination (SAN input).
    NoPieceCanReach,
    /// Castling without the castling right.
    CastlingWithoutRight,
    /// Castling while in check.
    CastlingOutOfCheck,
    /// Castling across an attacked square.
    CastlingThroughCheck,
    /// Castling onto an attacked square.
    CastlingIntoCheck,
    /// Castling with pieces between king and rook.
    CastlingBlocked,
    /// A pawn reaching the last rank must promote.
    PromotionMissing,
    /// Promotion where none is possible, or to a piece one cannot promote to.
    PromotionNotAllowed,
    /// Xiangqi: a piece stands on the horse's leg (the point next to it).
    HorseLegBlocked,
    /// Xiangqi: a piece stands on the elephant's eye (the midpoint).
    ElephantEyeBlocked,
    /// Xiangqi: elephants never cross the river.
    ElephantCannotCrossRiver,
    /// Xiangqi: the general and advisors never leave the palace.
    MustStayInPalace,
    /// Xiangqi: a cannon captures only by jumping exactly one piece.
    CannonNeedsScreen,
    /// Xiangqi: soldiers never move backwards, nor sideways before the river.
    SoldierCannotMoveThatWay,
    /// Xiangqi: the two generals would face each other on an open file.
    GeneralsFacing,
    /// Xiangqi, under rules that refuse forbidden repetitions: the move
    /// would complete a perpetual check.
    PerpetualCheck,
    /// Xiangqi, under rules that refuse forbidden repetitions: the move
    /// would complete a perpetual chase.
    PerpetualChase,
    /// Antichess: a capture is possible, so a capture must be made.
    CaptureCompulsory,
    /// Atomic: a king never captures.
    KingCannotCapture,
    /// Atomic: the explosion would take the mover's own king.
    ExplodesOwnKing,
    /// Racing Kings: no move may give check.
    GivesCheck,
    /// Crazyhouse: the piece is not in the mover's pocket.
    NotInPocket,
    /// Crazyhouse: the square is occupied, or a pawn would stand on the
    /// first or last rank.
    DropNotAllowed,
}

impl IllegalReason {
    /// A stable, machine-readable code (`SCREAMING_SNAKE_CASE`).
    pub const fn code(self) -> &'static str {
        match self {
            IllegalReason::GameOver => "GAME_OVER",
            IllegalReason::NoPiece => "NO_PIECE",
            IllegalReason::OpponentPiece => "OPPONENT_PIECE",
            IllegalReason::OwnPieceOnDestination => "OWN_PIECE_ON_DESTINATION",
            IllegalReason::CannotMoveThatWay => "CANNOT_MOVE_THAT_WAY",
            IllegalReason::PathBlocked => "PATH_BLOCKED",
            IllegalReason::OwnKingInCheck => "OWN_KING_IN_CHECK",
            IllegalReason::NoPieceCanReach => "NO_PIECE_CAN_REACH",
            IllegalReason::CastlingWithoutRight => "CASTLING_WITHOUT_RIGHT",
            IllegalReason::CastlingOutOfCheck => "CASTLING_OUT_OF_CHECK",
            IllegalReason::CastlingThroughCheck => "CASTLING_THROUGH_CHECK",
            IllegalReason::CastlingIntoCheck => "CASTLING_INTO_CHECK",
            IllegalReason::CastlingBlocked => "CASTLING_BLOCKED",
            IllegalReason::PromotionMissing => "PROMOTION_MISSING",
            IllegalReason::PromotionNotAllowed => "PROMOTION_NOT_ALLOWED",
            IllegalReason::HorseLegBlocked => "HORSE_LEG_BLOCKED",
            IllegalReason::ElephantEyeBlocked => "ELEPHANT_EYE_BLOCKED",
            IllegalReason::ElephantCannotCrossRiver => "ELEPHANT_CANNOT_CROSS_RIVER",
            IllegalReason::MustStayInPalace => "MUST_STAY_IN_PALACE",
            IllegalReason::CannonNeedsScreen => "CANNON_NEEDS_SCREEN",
            IllegalReason::SoldierCannotMoveThatWay => "SOLDIER_CANNOT_MOVE_THAT_WAY",
            IllegalReason::GeneralsFacing => "GENERALS_FACING",
            IllegalReason::PerpetualCheck => "PERPETUAL_CHECK",
            IllegalReason::PerpetualChase => "PERPETUAL_CHASE",
            IllegalReason::CaptureCompulsory => "CAPTURE_COMPULSORY",
            IllegalReason::KingCannotCapture => "KING_CANNOT_CAPTURE",
            IllegalReason::ExplodesOwnKing => "EXPLODES_OWN_KING",
            IllegalReason::GivesCheck => "GIVES_CHECK",
            IllegalReason::NotInPocket => "NOT_IN_POCKET",
            IllegalReason::DropNotAllowed => "DROP_NOT_ALLOWED",
        }
    }
}

/// An illegal move: the reason as a code, and a sentence a player would
/// understand ("the black bishop on b4 would attack your king on e1").
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct IllegalMove {
    pub reason: IllegalReason,
    pub message: String,
}

impl IllegalMove {
    pub fn new(reason: IllegalReason, message: impl Into<String>) -> IllegalMove {
        IllegalMove {
            reason,
            message: message.into(),
        }
    }
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move: {}", self.message)
    }
}
