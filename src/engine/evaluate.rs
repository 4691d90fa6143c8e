//! Static evaluation: material and piece-square tables, per game.

use shakmaty::{Color, Position, Role};

use crate::rules::{
    Game, Side,
    chess::Chess,
    xiangqi::{Kind, Square, Xiangqi},
};

/// What the search needs to know about a game beyond its rules.
pub trait Evaluate: Game {
    /// The position's value for the side to move, in centipawns.
    fn evaluate(&self) -> i32;
    /// The value of the piece `m` captures (0 for a quiet move), for
    /// most-valuable-victim ordering.
    fn victim_value(&self, m: Self::Move) -> i32;
    /// The value of the piece making `m`, for least-valuable-attacker
    /// ordering.
    fn attacker_value(&self, m: Self::Move) -> i32;
    /// The score of having no legal move while not in check, for the side to
    /// move: a draw in chess, a loss in xiangqi.
    const STALEMATE_IS_LOSS: bool;
}

const fn chess_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// Centralisation bonus by square for knights and bishops, and a push bonus
/// for pawns: a small positional sense on top of material.
fn chess_square_bonus(role: Role, color: Color, square: shakmaty::Square) -> i32 {
    let file = i32::try_from(u32::from(square.file())).unwrap_or(0);
    let rank = i32::try_from(u32::from(square.rank())).unwrap_or(0);
    let rank = if color == Color::White {
        rank
    } else {
        7 - rank
    };
    let centre = 6 - ((2 * file - 7).abs() + (2 * rank - 7).abs()) / 2;
    match role {
        Role::Pawn => rank * 6 + if (2..=5).contains(&file) { rank * 2 } else { 0 },
        Role::Knight | Role::Bishop => centre * 5,
        Role::Queen => centre * 2,
        Role::Rook | Role::King => 0,
    }
}

impl Evaluate for Chess {
    fn evaluate(&self) -> i32 {
        let pos = self.position();
        let board = pos.board();
        let score: i32 = board
            .iter()
            .map(|(square, piece)| {
                let value =
                    chess_value(piece.role) + chess_square_bonus(piece.role, piece.color, square);
                if piece.color == Color::White {
                    value
                } else {
                    -value
                }
            })
            .sum();
        if pos.turn() == Color::White {
            score
        } else {
            -score
        }
    }

    fn victim_value(&self, m: shakmaty::Move) -> i32 {
        m.capture().map_or(0, chess_value) + m.promotion().map_or(0, chess_value)
    }

    fn attacker_value(&self, m: shakmaty::Move) -> i32 {
        chess_value(m.role())
    }

    const STALEMATE_IS_LOSS: bool = false;
}

/// Xiangqi values: a soldier gains value once it has crossed the river.
const fn xiangqi_value(kind: Kind, crossed: bool) -> i32 {
    match kind {
        Kind::General => 0,
        Kind::Advisor => 200,
        Kind::Elephant => 200,
        Kind::Horse => 400,
        Kind::Chariot => 900,
        Kind::Cannon => 450,
        Kind::Soldier if crossed => 200,
        Kind::Soldier => 100,
    }
}

fn crossed(side: Side, square: Square) -> bool {
    match side {
        Side::White => square.rank() >= 5,
        Side::Black => square.rank() <= 4,
    }
}

impl Evaluate for Xiangqi {
    fn evaluate(&self) -> i32 {
        let mut score = 0;
        for file in 0..Square::FILES {
            for rank in 0..Square::RANKS {
                let Some(square) = Square::new(file, rank) else {
                    continue;
                };
                let Some(piece) = self.piece_at(square) else {
                    continue;
                };
                let value = xiangqi_value(piece.kind, crossed(piece.side, square));
                // Horses and soldiers like the centre files.
                let centre = match piece.kind {
                    Kind::Horse | Kind::Soldier => 4 - (i32::from(file) - 4).abs(),
                    _ => 0,
                } * 4;
                score += if piece.side == Side::White {
                    value + centre
                } else {
                    -value - centre
                };
            }
        }
        if self.turn() == Side::White {
            score
        } else {
            -score
        }
    }

    fn victim_value(&self, m: <Xiangqi as Game>::Move) -> i32 {
        self.piece_at(m.to())
            .map_or(0, |p| xiangqi_value(p.kind, crossed(p.side, m.to())))
    }

    fn attacker_value(&self, m: <Xiangqi as Game>::Move) -> i32 {
        self.piece_at(m.from())
            .map_or(0, |p| xiangqi_value(p.kind, crossed(p.side, m.from())))
    }

    const STALEMATE_IS_LOSS: bool = true;
}
