//! The rules' vocabulary as protobuf enum values: variants, how games end,
//! and why moves are illegal.

use tonic::Status;

use super::{error::invalid_argument, proto as pb};
use crate::{
    reason::Reason,
    rules::{IllegalReason, Termination, Variant},
};

/// Each variant with its protobuf value.
const VARIANTS: [(Variant, pb::Variant); 10] = [
    (Variant::Chess, pb::Variant::Chess),
    (Variant::Xiangqi, pb::Variant::Xiangqi),
    (Variant::Chess960, pb::Variant::Chess960),
    (Variant::Crazyhouse, pb::Variant::Crazyhouse),
    (Variant::Antichess, pb::Variant::Antichess),
    (Variant::Atomic, pb::Variant::Atomic),
    (Variant::Horde, pb::Variant::Horde),
    (Variant::KingOfTheHill, pb::Variant::KingOfTheHill),
    (Variant::RacingKings, pb::Variant::RacingKings),
    (Variant::ThreeCheck, pb::Variant::ThreeCheck),
];

/// The variants a request may name, for messages.
fn expected() -> String {
    VARIANTS
        .iter()
        .map(|(_, value)| value.as_str_name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The variant of a request; UNSPECIFIED or unknown is INVALID_ARGUMENT.
pub fn variant(field: &str, value: i32) -> Result<Variant, Status> {
    let known = VARIANTS.iter().find(|(_, v)| *v as i32 == value);
    match (known, pb::Variant::try_from(value)) {
        (Some((variant, _)), _) => Ok(*variant),
        (None, Ok(pb::Variant::Unspecified)) => Err(invalid_argument(
            field,
            Reason::MissingVariant,
            format!("a variant is required: one of {}", expected()),
        )),
        (None, _) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            format!("unknown variant {value}: expected one of {}", expected()),
        )),
    }
}

pub fn variant_to_pb(variant: Variant) -> i32 {
    VARIANTS
        .iter()
        .find(|(v, _)| *v == variant)
        .map_or(pb::Variant::Unspecified, |(_, value)| *value) as i32
}

pub(super) fn termination(t: Termination) -> pb::Termination {
    match t {
        Termination::Checkmate => pb::Termination::Checkmate,
        Termination::Stalemate => pb::Termination::Stalemate,
        Termination::InsufficientMaterial => pb::Termination::InsufficientMaterial,
        Termination::ThreefoldRepetition => pb::Termination::ThreefoldRepetition,
        Termination::FivefoldRepetition => pb::Termination::FivefoldRepetition,
        Termination::FiftyMoves => pb::Termination::FiftyMoves,
        Termination::SeventyFiveMoves => pb::Termination::SeventyFiveMoves,
        Termination::PerpetualCheck => pb::Termination::PerpetualCheck,
        Termination::MoveLimit => pb::Termination::MoveLimit,
        Termination::PerpetualChase => pb::Termination::PerpetualChase,
        Termination::Explosion => pb::Termination::Explosion,
        Termination::AllPiecesLost => pb::Termination::AllPiecesLost,
        Termination::KingInTheCentre => pb::Termination::KingInTheCentre,
        Termination::ThreeChecks => pb::Termination::ThreeChecks,
        Termination::RaceFinished => pb::Termination::RaceFinished,
        Termination::HordeDestroyed => pb::Termination::HordeDestroyed,
    }
}

pub fn illegal_reason(r: IllegalReason) -> i32 {
    use pb::IllegalReason as P;
    (match r {
        IllegalReason::GameOver => P::GameOver,
        IllegalReason::NoPiece => P::NoPiece,
        IllegalReason::OpponentPiece => P::OpponentPiece,
        IllegalReason::OwnPieceOnDestination => P::OwnPieceOnDestination,
        IllegalReason::CannotMoveThatWay => P::CannotMoveThatWay,
        IllegalReason::PathBlocked => P::PathBlocked,
        IllegalReason::OwnKingInCheck => P::OwnKingInCheck,
        IllegalReason::NoPieceCanReach => P::NoPieceCanReach,
        IllegalReason::CastlingWithoutRight => P::CastlingWithoutRight,
        IllegalReason::CastlingOutOfCheck => P::CastlingOutOfCheck,
        IllegalReason::CastlingThroughCheck => P::CastlingThroughCheck,
        IllegalReason::CastlingIntoCheck => P::CastlingIntoCheck,
        IllegalReason::CastlingBlocked => P::CastlingBlocked,
        IllegalReason::PromotionMissing => P::PromotionMissing,
        IllegalReason::PromotionNotAllowed => P::PromotionNotAllowed,
        IllegalReason::HorseLegBlocked => P::HorseLegBlocked,
        IllegalReason::ElephantEyeBlocked => P::ElephantEyeBlocked,
        IllegalReason::ElephantCannotCrossRiver => P::ElephantCannotCrossRiver,
        IllegalReason::MustStayInPalace => P::MustStayInPalace,
        IllegalReason::CannonNeedsScreen => P::CannonNeedsScreen,
        IllegalReason::SoldierCannotMoveThatWay => P::SoldierCannotMoveThatWay,
        IllegalReason::GeneralsFacing => P::GeneralsFacing,
        IllegalReason::PerpetualCheck => P::PerpetualCheck,
        IllegalReason::PerpetualChase => P::PerpetualChase,
        IllegalReason::CaptureCompulsory => P::CaptureCompulsory,
        IllegalReason::KingCannotCapture => P::KingCannotCapture,
        IllegalReason::ExplodesOwnKing => P::ExplodesOwnKing,
        IllegalReason::GivesCheck => P::GivesCheck,
        IllegalReason::NotInPocket => P::NotInPocket,
        IllegalReason::DropNotAllowed => P::DropNotAllowed,
    }) as i32
}
