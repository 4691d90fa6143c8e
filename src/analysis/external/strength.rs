//! Arbiter's levels 1-10 on an external engine's own strength settings.
//!
//! | level | `UCI_Elo` (Stockfish, Pikafish) | `Skill Level` (Fairy-Stockfish) |
//! |---|---|---|
//! | 1 | 1350 | 0 |
//! | 2 | 1500 | 2 |
//! | 3 | 1650 | 4 |
//! | 4 | 1800 | 6 |
//! | 5 | 1950 | 8 |
//! | 6 | 2100 | 10 |
//! | 7 | 2250 | 12 |
//! | 8 | 2400 | 14 |
//! | 9 | 2600 | 17 |
//! | 10 | `UCI_LimitStrength false` | the highest |
//!
//! Each value is kept within the range the engine announces. Not yet
//! calibrated against Arbiter's own levels.

use crate::engine::Level;

/// `UCI_Elo` and `Skill Level` for levels 1-9 (10 is full strength).
const TABLE: [(i64, i64); 9] = [
    (1350, 0),
    (1500, 2),
    (1650, 4),
    (1800, 6),
    (1950, 8),
    (2100, 10),
    (2250, 12),
    (2400, 14),
    (2600, 17),
];

/// How an engine weakens itself, with the range of its setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strength {
    /// `UCI_LimitStrength` and `UCI_Elo`.
    Elo { min: i64, max: i64 },
    /// `Skill Level`.
    Skill { min: i64, max: i64 },
    /// Neither: it plays at full strength whatever the level.
    Fixed,
}

impl Strength {
    /// The options that set `level`, as (name, value).
    pub(super) fn options(self, level: Level) -> Vec<(&'static str, String)> {
        let row = TABLE.get(usize::from(level.get()) - 1);
        match (self, row) {
            (Strength::Elo { .. }, None) => vec![("UCI_LimitStrength", "false".to_owned())],
            (Strength::Elo { min, max }, Some(&(elo, _))) => vec![
                ("UCI_LimitStrength", "true".to_owned()),
                ("UCI_Elo", elo.clamp(min, max).to_string()),
            ],
            (Strength::Skill { max, .. }, None) => vec![("Skill Level", max.to_string())],
            (Strength::Skill { min, max }, Some(&(_, skill))) => {
                vec![("Skill Level", skill.clamp(min, max).to_string())]
            }
            (Strength::Fixed, _) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_map_within_the_engines_ranges() {
        let elo = Strength::Elo {
            min: 1500,
            max: 2850,
        };
        let one = Level::new(1).unwrap();
        assert_eq!(
            elo.options(one),
            [
                ("UCI_LimitStrength", "true".to_owned()),
                ("UCI_Elo", "1500".to_owned())
            ]
        );
        assert_eq!(
            elo.options(Level::MAX),
            [("UCI_LimitStrength", "false".to_owned())]
        );
        let skill = Strength::Skill { min: -20, max: 20 };
        assert_eq!(skill.options(one), [("Skill Level", "0".to_owned())]);
        assert_eq!(
            skill.options(Level::MAX),
            [("Skill Level", "20".to_owned())]
        );
        assert!(Strength::Fixed.options(one).is_empty());
    }
}
