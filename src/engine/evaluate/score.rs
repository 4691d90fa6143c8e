//! A pair of middlegame and endgame values, blended by game phase.

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// A term's value in the middlegame and in the endgame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Score {
    pub mg: i32,
    pub eg: i32,
}

/// Shorthand for a [`Score`] constant.
pub(super) const fn s(mg: i32, eg: i32) -> Score {
    Score { mg, eg }
}

impl Score {
    /// The blend at `phase` out of `full` (`full` = all pieces on the board,
    /// 0 = bare endgame).
    pub fn taper(self, phase: i32, full: i32) -> i32 {
        let phase = phase.clamp(0, full);
        (self.mg * phase + self.eg * (full - phase)) / full.max(1)
    }
}

impl Add for Score {
    type Output = Score;
    fn add(self, rhs: Score) -> Score {
        s(self.mg + rhs.mg, self.eg + rhs.eg)
    }
}

impl Sub for Score {
    type Output = Score;
    fn sub(self, rhs: Score) -> Score {
        s(self.mg - rhs.mg, self.eg - rhs.eg)
    }
}

impl Neg for Score {
    type Output = Score;
    fn neg(self) -> Score {
        s(-self.mg, -self.eg)
    }
}

impl Mul<i32> for Score {
    type Output = Score;
    fn mul(self, rhs: i32) -> Score {
        s(self.mg * rhs, self.eg * rhs)
    }
}

impl AddAssign for Score {
    fn add_assign(&mut self, rhs: Score) {
        *self = *self + rhs;
    }
}

impl SubAssign for Score {
    fn sub_assign(&mut self, rhs: Score) {
        *self = *self - rhs;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tapers_between_middlegame_and_endgame() {
        let score = s(100, 300);
        assert_eq!(score.taper(24, 24), 100);
        assert_eq!(score.taper(0, 24), 300);
        assert_eq!(score.taper(12, 24), 200);
        assert_eq!(score.taper(99, 24), 100);
    }
}
