//! Chess under the FIDE Laws, from the standard start ([`Chess`]) or from
//! any of the 960 Fischer random starts ([`Chess960`]), on the `shakmaty`
//! move generator.
//!
//! ```
//! use arbiter::rules::{chess::Chess, Game};
//!
//! let pos = Chess::from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1").unwrap();
//! let castle = pos.parse_move("e1h1").unwrap(); // king takes rook form
//! assert_eq!(pos.coordinate_notation(castle), "e1g1");
//! assert_eq!(pos.describe(castle).san, "O-O");
//! ```

mod explain;
mod fen;
mod fischer;
mod names;
mod notation;
pub mod openings;
mod outcome;
mod san;
pub mod variants;

use std::{fmt, marker::PhantomData};

use shakmaty::{
    CastlingMode, CastlingSide, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    zobrist::{Zobrist64, ZobristValue},
};

pub use fen::FenError;
pub use fischer::{Chess960Start, START_COUNT};

use crate::rules::{Game, InvalidFen, MoveDescription, MoveError, Record, Side, Variant, Verdict};

/// How a game of chess starts and castles.
pub trait Castling: Copy + Default + fmt::Debug + Send + Sync + 'static {
    /// The variant played under these rules.
    const VARIANT: Variant;
    /// How castling rights name their rooks, and castling moves are read.
    const MODE: CastlingMode;
}

/// Standard chess: the one start position; the king castles from e1/e8.
#[derive(Clone, Copy, Debug, Default)]
pub struct Standard;

impl Castling for Standard {
    const VARIANT: Variant = Variant::Chess;
    const MODE: CastlingMode = CastlingMode::Standard;
}

/// Chess960 (Fischer random chess): 960 start positions; the king castles
/// from wherever it stands, ending on the g- or c-file as in chess.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fischer;

impl Castling for Fischer {
    const VARIANT: Variant = Variant::Chess960;
    const MODE: CastlingMode = CastlingMode::Chess960;
}

/// A legal chess position, under the castling rules of `C`.
#[derive(Clone, Debug)]
pub struct Orthodox<C> {
    pos: shakmaty::Chess,
    rules: PhantomData<C>,
}

/// A legal position of standard chess.
pub type Chess = Orthodox<Standard>;

/// A legal position of Chess960.
pub type Chess960 = Orthodox<Fischer>;

impl<C: Castling> Default for Orthodox<C> {
    /// The standard start (Chess960's start 518), built without checking
    /// it again in chess.
    fn default() -> Orthodox<C> {
        Orthodox::of(match C::MODE {
            CastlingMode::Standard => shakmaty::Chess::default(),
            CastlingMode::Chess960 => {
                shakmaty::Chess::from_setup(shakmaty::Setup::initial(), C::MODE)
                    .expect("the standard start is legal")
            }
        })
    }
}

impl<C: Castling> Orthodox<C> {
    fn of(pos: shakmaty::Chess) -> Orthodox<C> {
        Orthodox {
            pos,
            rules: PhantomData,
        }
    }

    /// The underlying shakmaty position (for the engine's evaluation).
    pub fn position(&self) -> &shakmaty::Chess {
        &self.pos
    }

    /// The same position with the other side to move (a "null move", for
    /// the engine's pruning); `None` when the side to move is in check.
    pub fn pass(&self) -> Option<Orthodox<C>> {
        if self.pos.is_check() {
            return None;
        }
        let pos = self.pos.clone().swap_turn().ok()?;
        Some(Orthodox::of(pos))
    }
}

pub(crate) const fn side_of(color: Color) -> Side {
    match color {
        Color::White => Side::White,
        Color::Black => Side::Black,
    }
}

const fn color_of(side: Side) -> Color {
    match side {
        Side::White => Color::White,
        Side::Black => Color::Black,
    }
}

impl<C: Castling> Game for Orthodox<C> {
    type Move = shakmaty::Move;
    type MoveList = shakmaty::MoveList;
    type FenError = FenError;
    type Options = ();

    const VARIANT: Variant = C::VARIANT;

    fn start() -> Orthodox<C> {
        Orthodox::default()
    }

    fn from_fen(fen: &str) -> Result<Orthodox<C>, InvalidFen<FenError>> {
        fen::parse(fen, C::MODE).map(Orthodox::of)
    }

    fn fen(&self) -> String {
        fen::write(&self.pos)
    }

    fn turn(&self) -> Side {
        side_of(self.pos.turn())
    }

    fn legal_moves(&self) -> shakmaty::MoveList {
        self.pos.legal_moves()
    }

    fn has_legal_moves(&self) -> bool {
        has_legal_moves(&self.pos)
    }

    fn play(&mut self, m: shakmaty::Move) {
        self.pos.play_unchecked(m);
    }

    fn is_check(&self) -> bool {
        self.pos.is_check()
    }

    fn is_capture(&self, m: shakmaty::Move) -> bool {
        m.is_capture()
    }

    fn halfmove_clock(&self) -> u32 {
        self.pos.halfmoves()
    }

    fn repetition_key(&self) -> u64 {
        // FIDE: the en-passant square counts only when a capture is legal.
        self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
    }

    /// The same key as [`Game::repetition_key`], from what changed: the
    /// pieces on the squares the move touched, the castling rights, the
    /// en-passant file and the turn.
    fn next_repetition_key(&self, key: u64, _: shakmaty::Move, next: &Orthodox<C>) -> u64 {
        let (before, after) = (&self.pos, &next.pos);
        let mut key = Zobrist64(key);
        key ^= Zobrist64::zobrist_for_white_turn();
        for color in Color::ALL {
            for role in Role::ALL {
                let piece = Piece { color, role };
                for square in before.board().by_piece(piece) ^ after.board().by_piece(piece) {
                    key ^= Zobrist64::zobrist_for_piece(square, piece);
                }
            }
            for side in CastlingSide::ALL {
                if before.castles().has(color, side) != after.castles().has(color, side) {
                    key ^= Zobrist64::zobrist_for_castling_right(color, side);
                }
            }
        }
        for pos in [before, after] {
            if let Some(square) = pos.ep_square(EnPassantMode::Legal) {
                key ^= Zobrist64::zobrist_for_en_passant_file(square.file());
            }
        }
        key.0
    }

    fn has_insufficient_material(&self, side: Side) -> bool {
        self.pos.has_insufficient_material(color_of(side))
    }

    fn parse_move(&self, text: &str) -> Result<shakmaty::Move, MoveError> {
        notation::parse(&self.pos, text)
    }

    fn push_coordinate_notation(&self, m: shakmaty::Move, text: &mut impl Extend<char>) {
        notation::push_coordinates(m, C::MODE, text);
    }

    fn describe_into(&self, m: shakmaty::Move, d: &mut MoveDescription) {
        notation::describe_into(&self.pos, m, d);
    }

    fn describe_each(&self, moves: &shakmaty::MoveList, each: impl FnMut(&MoveDescription)) {
        notation::describe_each(&self.pos, moves, each);
    }

    fn adjudicate(record: &Record<Orthodox<C>>, has_moves: bool) -> Verdict {
        outcome::adjudicate(record, has_moves)
    }
}

/// Is there a legal move in `pos`? A king step to a square nobody attacks
/// (with the king gone from its own square, so that it cannot hide behind
/// itself) is legal: most positions answer here, without generating every
/// move.
fn has_legal_moves(pos: &shakmaty::Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    if let Some(king) = board.king_of(us) {
        let occupied = board.occupied().without(king);
        let steps = shakmaty::attacks::king_attacks(king) & !board.by_color(us);
        if steps
            .into_iter()
            .any(|to| board.attacks_to(to, !us, occupied).is_empty())
        {
            return true;
        }
    }
    !pos.legal_moves().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a position has a legal move agrees with listing them, two
    /// plies deep from positions with checks, pins, captures by the king,
    /// and positions that have none (mates, stalemates).
    #[test]
    fn has_legal_moves_agrees_with_the_list() {
        let mut without = 0;
        let mut compare = |pos: &Chess| {
            let none = pos.legal_moves().is_empty();
            assert_eq!(pos.has_legal_moves(), !none, "{}", pos.fen());
            without += usize::from(none);
        };
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            // Back-rank mates one move away, and a stalemate one move away.
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
            "k7/8/1Q6/8/8/8/8/6K1 w - - 0 1",
            // Already stalemated; already mated.
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
        ] {
            let start = Chess::from_fen(fen).expect("valid FEN");
            compare(&start);
            for &m in &start.legal_moves() {
                let mut next = start.clone();
                next.play(m);
                compare(&next);
                for &reply in &next.legal_moves() {
                    let mut last = next.clone();
                    last.play(reply);
                    compare(&last);
                }
            }
        }
        assert!(without > 5, "only {without} positions without a move");
    }

    /// Two plies from positions with castling, rook captures, promotions,
    /// and en-passant squares that are and are not capturable: the updated
    /// key always equals the key hashed from scratch.
    #[test]
    fn next_repetition_key_equals_key_after_the_move() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let start = Chess::from_fen(fen).expect("valid FEN");
            for &m in &start.legal_moves() {
                let mut next = start.clone();
                next.play(m);
                let key = start.next_repetition_key(start.repetition_key(), m, &next);
                assert_eq!(key, next.repetition_key(), "{fen} {m}");
                for &reply in &next.legal_moves() {
                    let mut last = next.clone();
                    last.play(reply);
                    let key = next.next_repetition_key(key, reply, &last);
                    assert_eq!(key, last.repetition_key(), "{fen} {m} {reply}");
                }
            }
        }
    }
}
