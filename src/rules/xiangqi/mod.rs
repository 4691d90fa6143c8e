//! Xiangqi (Chinese chess) under the Asian Xiangqi Federation rules as strong
//! engines implement them: stalemate loses, perpetual check and perpetual
//! chase lose, and a no-capture move limit draws.
//!
//! Points are named in ICCS coordinates (files `a`-`i`, ranks `0`-`9` from
//! Red's side); moves are read in ICCS, WXF or Chinese notation.
//!
//! ```
//! use arbiter::rules::{xiangqi::Xiangqi, Game};
//!
//! let pos = Xiangqi::start();
//! assert_eq!(pos.legal_moves().len(), 44);
//! let m = pos.parse_move("炮二平五").unwrap();
//! assert_eq!(pos.coordinate_notation(m), "h2e2");
//! assert_eq!(pos.describe(m).san, "C2.5");
//! ```

mod attacks;
mod bitboard;
mod chase;
mod exchange;
mod explain;
mod fen;
mod hash;
mod movegen;
mod moves;
mod notation;
mod outcome;
mod piece;
mod repetition;
mod square;

pub use fen::FenError;
pub use moves::{IntoIter, Move, MoveList};
pub use outcome::{XiangqiOptions, XiangqiRules};
pub use piece::{Kind, Piece};
pub use square::Square;

use attacks::{Occupied, side_index};
use bitboard::Bitboard;

use crate::rules::{
    Game, IllegalMove, InvalidFen, MoveDescription, MoveError, Record, RuleChoices, Side, Variant,
    Verdict,
};

/// A legal xiangqi position. `Side::White` is Red, who moves first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xiangqi {
    /// Pieces of both sides by kind (indexed by [`Kind::index`]).
    kinds: [Bitboard; 7],
    /// Pieces by side.
    sides: [Bitboard; 2],
    occupied: Occupied,
    turn: Side,
    /// Half-moves since the last capture.
    halfmoves: u32,
    fullmoves: u32,
}

impl Xiangqi {
    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let side = if self.sides[0].contains(sq) {
            Side::White
        } else if self.sides[1].contains(sq) {
            Side::Black
        } else {
            return None;
        };
        let kind = self.kind_at(sq)?;
        Some(Piece { side, kind })
    }

    /// Every piece on the board, side by side and kind by kind.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        [Side::White, Side::Black]
            .into_iter()
            .flat_map(move |side| {
                Kind::ALL.into_iter().flat_map(move |kind| {
                    self.pieces_of(side, kind)
                        .into_iter()
                        .map(move |sq| (sq, Piece { side, kind }))
                })
            })
    }

    /// Is there a piece on `sq`?
    pub fn is_occupied(&self, sq: Square) -> bool {
        self.occupied.bits().contains(sq)
    }

    /// The same position with the other side to move (a "null move", for
    /// the engine's pruning); `None` when the side to move is in check,
    /// since passing would leave its general capturable.
    pub fn pass(&self) -> Option<Xiangqi> {
        if self.is_check() {
            return None;
        }
        let mut passed = self.clone();
        passed.turn = !self.turn;
        Some(passed)
    }

    fn kind_at(&self, sq: Square) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| self.kinds[k.index()].contains(sq))
    }

    /// The points of `side`'s pieces of `kind`.
    fn pieces_of(&self, side: Side, kind: Kind) -> Bitboard {
        self.kinds[kind.index()] & self.sides[side_index(side)]
    }

    /// `side`'s general (a legal position has exactly one).
    fn general(&self, side: Side) -> Square {
        let generals = self.pieces_of(side, Kind::General).0;
        debug_assert!(generals != 0, "a legal position has both generals");
        Square::from_index(generals.trailing_zeros() as usize % Square::COUNT)
    }

    fn play_move(&mut self, m: Move) {
        let (from, to) = (m.from(), m.to());
        let Some(moved) = self.kind_at(from) else {
            return;
        };
        let us = side_index(self.turn);
        let them = side_index(!self.turn);
        let to_bit = Bitboard::from_square(to);
        let both = Bitboard::from_square(from) | to_bit;
        if let Some(captured) = self.kind_at(to).filter(|_| self.sides[them].contains(to)) {
            self.kinds[captured.index()] ^= to_bit;
            self.sides[them] ^= to_bit;
            self.halfmoves = 0;
        } else {
            self.occupied.toggle(to);
            self.halfmoves = self.halfmoves.saturating_add(1);
        }
        self.kinds[moved.index()] ^= both;
        self.sides[us] ^= both;
        self.occupied.toggle(from);
        if self.turn == Side::Black {
            self.fullmoves = self.fullmoves.saturating_add(1);
        }
        self.turn = !self.turn;
    }
}

/// Pieces being placed (the start position, a FEN's board): the piece sets
/// only, the occupancy derived once at the end.
#[derive(Default)]
struct Placement {
    kinds: [Bitboard; 7],
    sides: [Bitboard; 2],
}

impl Placement {
    /// Puts `piece` on `sq` if it is empty.
    fn put(&mut self, sq: Square, piece: Piece) {
        let bit = Bitboard::from_square(sq);
        if ((self.sides[0] | self.sides[1]) & bit).is_empty() {
            self.kinds[piece.kind.index()] |= bit;
            self.sides[side_index(piece.side)] |= bit;
        }
    }

    /// The position with these pieces, Red to move, move 1.
    fn into_position(self) -> Xiangqi {
        Xiangqi {
            kinds: self.kinds,
            sides: self.sides,
            occupied: Occupied::of(self.sides[0] | self.sides[1]),
            turn: Side::White,
            halfmoves: 0,
            fullmoves: 1,
        }
    }
}

impl Game for Xiangqi {
    type Move = Move;
    type MoveList = MoveList;
    type FenError = FenError;
    type Options = XiangqiOptions;

    const VARIANT: Variant = Variant::Xiangqi;

    fn start() -> Xiangqi {
        use Kind::{Advisor, Cannon, Chariot, Elephant, General, Horse, Soldier};
        const BACK_RANK: [Kind; 9] = [
            Chariot, Horse, Elephant, Advisor, General, Advisor, Elephant, Horse, Chariot,
        ];
        let mut placement = Placement::default();
        for side in [Side::White, Side::Black] {
            let rank = |r: u8| if side == Side::White { r } else { 9 - r };
            let placed = (0..9)
                .map(|f| (f, 0, BACK_RANK[usize::from(f)]))
                .chain([(1, 2, Cannon), (7, 2, Cannon)])
                .chain((0..9).step_by(2).map(|f| (f, 3, Soldier)));
            for (file, r, kind) in placed {
                if let Some(sq) = Square::new(file, rank(r)) {
                    placement.put(sq, Piece { side, kind });
                }
            }
        }
        placement.into_position()
    }

    fn options(choices: RuleChoices) -> XiangqiOptions {
        XiangqiOptions {
            rules: choices.xiangqi,
            ..XiangqiOptions::default()
        }
    }

    fn from_fen(fen: &str) -> Result<Xiangqi, InvalidFen<FenError>> {
        fen::parse(fen)
    }

    fn fen(&self) -> String {
        fen::write(self)
    }

    fn turn(&self) -> Side {
        self.turn
    }

    fn legal_moves(&self) -> MoveList {
        self.generate_legal()
    }

    fn count_legal_moves(&self) -> usize {
        self.count_legal()
    }

    fn has_legal_moves(&self) -> bool {
        self.has_legal()
    }

    fn play(&mut self, m: Move) {
        self.play_move(m);
    }

    fn is_check(&self) -> bool {
        self.checkers(self.turn).any()
    }

    fn is_capture(&self, m: Move) -> bool {
        self.sides[side_index(!self.turn)].contains(m.to())
    }

    fn halfmove_clock(&self) -> u32 {
        self.halfmoves
    }

    fn repetition_key(&self) -> u64 {
        hash::key(self)
    }

    fn next_repetition_key(&self, key: u64, m: Move, _: &Xiangqi) -> u64 {
        hash::next_key(self, key, m)
    }

    fn has_insufficient_material(&self, side: Side) -> bool {
        outcome::has_insufficient_material(self, side)
    }

    fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        notation::parse(self, text)
    }

    fn push_coordinate_notation(&self, m: Move, text: &mut impl Extend<char>) {
        m.push_iccs(text);
    }

    fn describe_into(&self, m: Move, d: &mut MoveDescription) {
        notation::describe_into(self, m, d);
    }

    fn describe_each(&self, moves: &MoveList, each: impl FnMut(&MoveDescription)) {
        notation::describe_each(self, moves, each);
    }

    fn adjudicate(record: &Record<Xiangqi>, has_moves: bool) -> Verdict {
        outcome::adjudicate(record, has_moves)
    }

    fn forbidden(record: &Record<Xiangqi>, m: Move) -> Option<IllegalMove> {
        repetition::forbidden(record, m)
    }
}

/// Calls `visit` with each position and the move played from it along 20
/// pseudo-random games of up to 150 plies from the start (with many
/// captures): for tests that compare a shortcut with playing the move.
#[cfg(test)]
fn along_random_games(mut visit: impl FnMut(&Xiangqi, Move)) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for _ in 0..20 {
        let mut pos = Xiangqi::start();
        for _ in 0..150 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let (next_state, random) = hash::splitmix(state);
            state = next_state;
            let m = moves[(random % moves.len() as u64) as usize];
            visit(&pos, m);
            pos.play_move(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_fen() {
        assert_eq!(
            Xiangqi::start().fen(),
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
        );
    }

    /// `pieces` lists what asking every point finds, Red's sets first, each
    /// kind in `Kind::ALL` order, lowest point first.
    #[test]
    fn pieces_are_the_pieces_on_the_board() {
        let mut positions = 0;
        along_random_games(|pos, _| {
            let listed: Vec<_> = pos.pieces().collect();
            let mut on_board: Vec<_> = (0..Square::COUNT)
                .map(Square::from_index)
                .filter_map(|sq| pos.piece_at(sq).map(|piece| (sq, piece)))
                .collect();
            on_board.sort_by_key(|&(sq, piece)| {
                (side_index(piece.side), piece.kind.index(), sq.index())
            });
            assert_eq!(listed, on_board, "{}", pos.fen());
            positions += 1;
        });
        assert!(positions > 1000);
    }
}
