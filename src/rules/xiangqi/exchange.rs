//! The board of a static exchange: the pieces that attack one point as
//! those that capture on it leave their own, for the engine's exchange
//! evaluation. Cannons gain and lose screens as the line empties; pins
//! and the flying-general rule are ignored, as exchange evaluation does.

use super::{
    Xiangqi,
    attacks::{
        self, ADVISOR, ELEPHANT, GENERAL, HORSE_ATTACKERS, Occupied, SOLDIER_ATTACKERS, side_index,
    },
    bitboard::Bitboard,
    piece::Kind,
    square::Square,
};
use crate::rules::Side;

/// A point being fought over, and the points still occupied.
pub(crate) struct ExchangeBoard<'a> {
    pos: &'a Xiangqi,
    target: Square,
    occupied: Occupied,
}

impl Xiangqi {
    /// The exchange on `to` once the piece on `from` has moved there.
    pub(crate) fn exchange_board(&self, from: Square, to: Square) -> ExchangeBoard<'_> {
        ExchangeBoard {
            pos: self,
            target: to,
            occupied: self.occupied.moved(from, to),
        }
    }
}

impl ExchangeBoard<'_> {
    /// `side`'s pieces still on the board that attack the target.
    fn attackers(&self, side: Side) -> Bitboard {
        let (sq, occupied) = (self.target.index(), self.occupied.bits());
        let kind = |k: Kind| self.pos.kinds[k.index()];
        let lines = attacks::lines(self.target, self.occupied);
        let found = (lines.chariot & kind(Kind::Chariot))
            | (lines.cannon_captures & kind(Kind::Cannon))
            | (attacks::leap(&HORSE_ATTACKERS[sq], occupied) & kind(Kind::Horse))
            | (attacks::leap(&ELEPHANT[sq], occupied) & kind(Kind::Elephant))
            | (ADVISOR[sq] & kind(Kind::Advisor))
            | (GENERAL[sq] & kind(Kind::General))
            | (SOLDIER_ATTACKERS[side_index(side)][sq] & kind(Kind::Soldier));
        found & self.pos.sides[side_index(side)] & occupied & !Bitboard::from_square(self.target)
    }

    /// Does `side` attack the target?
    pub(crate) fn attacked_by(&self, side: Side) -> bool {
        self.attackers(side).any()
    }

    /// Takes `side`'s attacker of the first kind in `order` that has one
    /// off its point (it captures on the target) and names its kind;
    /// `None` when `side` has no attacker left.
    pub(crate) fn capture_with(&mut self, side: Side, order: &[Kind]) -> Option<Kind> {
        let attackers = self.attackers(side);
        let (kind, from) = order.iter().find_map(|&k| {
            (attackers & self.pos.kinds[k.index()])
                .first()
                .map(|sq| (k, sq))
        })?;
        self.occupied.toggle(from);
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Game;

    fn board(fen: &str, m: &str) -> (Xiangqi, Square, Square) {
        let pos = Xiangqi::from_fen(fen).unwrap();
        let m = pos.parse_move(m).unwrap();
        (pos, m.from(), m.to())
    }

    #[test]
    fn cannons_gain_and_lose_screens_as_the_file_empties() {
        // Red's chariot takes on e5, leaving e4: Red's cannon on e1 now has
        // one screen (e3). Black's cannon on e9 has two (e7, e6) until the
        // one on e7 has taken.
        let (pos, from, to) = board("3kc4/9/4c4/4n4/4p4/4R4/4P4/9/4C4/5K3 w - - 0 1", "e4e5");
        let mut exchange = pos.exchange_board(from, to);
        let order = [Kind::Soldier, Kind::Horse, Kind::Cannon, Kind::Chariot];
        let mut takes = Vec::new();
        for side in [Side::Black, Side::White, Side::Black, Side::White] {
            takes.push(exchange.capture_with(side, &order));
        }
        let cannon = Some(Kind::Cannon);
        assert_eq!(takes, [cannon, cannon, cannon, None]);
    }

    #[test]
    fn lame_horses_and_elephants_do_not_attack() {
        // Black's horse on b7 and elephant on e7 attack c5...
        let open = "4k4/9/1n2b4/9/2p6/2R6/9/9/9/4K4 w - - 0 1";
        let (pos, from, to) = board(open, "c4c5");
        assert!(pos.exchange_board(from, to).attacked_by(Side::Black));
        // ...until the horse's leg (b6) and the elephant's eye (d6) are
        // blocked.
        let blocked = "4k4/9/1n2b4/1N1n5/2p6/2R6/9/9/9/4K4 w - - 0 1";
        let (pos, from, to) = board(blocked, "c4c5");
        assert!(!pos.exchange_board(from, to).attacked_by(Side::Black));
    }
}
