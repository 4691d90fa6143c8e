//! Lichess's names of Arbiter's games: variant keys, the `variant` object,
//! and perfs.

use serde_json::{Value, json};

use crate::{
    api::proto as pb,
    games::model::{Speed, perf},
    rules::Variant,
};

/// Chess's standard start: a game from it is `standard`, from any other
/// position `fromPosition`.
pub(super) const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Lichess's variants of chess: ours, its protobuf value, Lichess's short
/// name (the key and name are the variant's `name` and `title`).
const CHESS_VARIANTS: [(Variant, pb::Variant, &str); 7] = [
    (Variant::Crazyhouse, pb::Variant::Crazyhouse, "Crazy"),
    (Variant::Antichess, pb::Variant::Antichess, "Anti"),
    (Variant::Atomic, pb::Variant::Atomic, "Atom"),
    (Variant::Horde, pb::Variant::Horde, "Horde"),
    (Variant::KingOfTheHill, pb::Variant::KingOfTheHill, "KotH"),
    (Variant::RacingKings, pb::Variant::RacingKings, "Race"),
    (Variant::ThreeCheck, pb::Variant::ThreeCheck, "3check"),
];

/// The Lichess variant of chess whose key is `key`.
pub(super) fn chess_variant(key: &str) -> Option<pb::Variant> {
    CHESS_VARIANTS
        .iter()
        .find(|(variant, _, _)| variant.name() == key)
        .map(|&(_, value, _)| value)
}

pub(super) fn is_xiangqi(variant: i32) -> bool {
    variant == pb::Variant::Xiangqi as i32
}

/// Arbiter's perf name of a game of `variant` at `speed`.
pub(super) fn perf_of(variant: i32, speed: Speed) -> String {
    let variant = match pb::Variant::try_from(variant) {
        Ok(pb::Variant::Xiangqi) => Variant::Xiangqi,
        Ok(pb::Variant::Chess960) => Variant::Chess960,
        Ok(value) => CHESS_VARIANTS
            .iter()
            .find(|(_, v, _)| *v == value)
            .map_or(Variant::Chess, |&(variant, _, _)| variant),
        Err(_) => Variant::Chess,
    };
    perf(variant, speed)
}

/// `variant{key,name,short}`.
pub(super) fn variant(variant: i32, start_fen: &str) -> Value {
    if is_xiangqi(variant) {
        json!({"key": "xiangqi", "name": "Xiangqi", "short": "Xiangqi"})
    } else if variant == pb::Variant::Chess960 as i32 {
        json!({"key": "chess960", "name": "Chess960", "short": "960"})
    } else if let Some((lichess, _, short)) =
        CHESS_VARIANTS.iter().find(|(_, v, _)| *v as i32 == variant)
    {
        json!({"key": lichess.name(), "name": lichess.title(), "short": short})
    } else if start_fen.is_empty() || start_fen == CHESS_START {
        json!({"key": "standard", "name": "Standard", "short": "Std"})
    } else {
        json!({"key": "fromPosition", "name": "From Position", "short": "FEN"})
    }
}

/// Lichess's perf name of a game: the speed's, capitalised (`Blitz`), or
/// the variant's.
pub(super) fn perf_name(variant: i32, speed: Speed) -> &'static str {
    if is_xiangqi(variant) {
        return "Xiangqi";
    }
    if variant == pb::Variant::Chess960 as i32 {
        return "Chess960";
    }
    if let Some((lichess, _, _)) = CHESS_VARIANTS.iter().find(|(_, v, _)| *v as i32 == variant) {
        return lichess.title();
    }
    match speed {
        Speed::UltraBullet => "UltraBullet",
        Speed::Bullet => "Bullet",
        Speed::Blitz => "Blitz",
        Speed::Rapid => "Rapid",
        Speed::Classical => "Classical",
        Speed::Correspondence => "Correspondence",
    }
}
