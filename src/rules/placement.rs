//! Building a FEN from pieces on squares, as a position editor produces
//! them. The result still goes through the game's strict FEN reader.

use std::collections::BTreeMap;

use super::{Quoted, Side, Variant, referee::PositionProblem};

/// The shape of a variant's board and how its squares are named.
struct Shape {
    files: u8,
    ranks: u8,
    /// The number of the first rank: chess counts 1-8, ICCS 0-9.
    first_rank: u8,
    pieces: &'static str,
}

const fn shape(variant: Variant) -> Shape {
    match variant {
        Variant::Xiangqi => Shape {
            files: 9,
            ranks: 10,
            first_rank: 0,
            pieces: "KABNRCPkabnrcp",
        },
        _ => Shape {
            files: 8,
            ranks: 8,
            first_rank: 1,
            pieces: "PNBRQKpnbrqk",
        },
    }
}

/// The extra fields an editor may give besides pieces and turn.
#[derive(Clone, Debug, Default)]
pub struct Extras<'a> {
    /// Chess castling rights (`KQkq`); empty means none.
    pub castling: &'a str,
    /// Chess en-passant square; empty means none.
    pub en_passant: &'a str,
}

fn problem(code: &'static str, message: String) -> PositionProblem {
    PositionProblem {
        code,
        message,
        move_index: None,
    }
}

/// A FEN for `pieces` (square name, FEN letter) with `turn` to move and
/// counters at their start values.
///
/// # Errors
///
/// Every unknown square, unknown piece letter and doubly occupied square.
pub fn fen_from_pieces(
    variant: Variant,
    pieces: &[(String, String)],
    turn: Side,
    extras: &Extras<'_>,
) -> Result<String, Vec<PositionProblem>> {
    let shape = shape(variant);
    let mut board: BTreeMap<(u8, u8), char> = BTreeMap::new();
    let mut problems = Vec::new();
    for (square, piece) in pieces {
        let letter = match piece.chars().collect::<Vec<_>>()[..] {
            [c] if shape.pieces.contains(c) => c,
            _ => {
                problems.push(problem(
                    "BAD_PIECE_LETTER",
                    format!(
                        "{} is not a {variant} piece: use one of {}",
                        Quoted(piece),
                        shape.pieces
                    ),
                ));
                continue;
            }
        };
        let Some(at) = parse_square(&shape, square) else {
            problems.push(problem(
                "BAD_SQUARE",
                format!(
                    "{} is not a {variant} square: files a-{}, ranks {}-{}",
                    Quoted(square),
                    char::from(b'a' + shape.files - 1),
                    shape.first_rank,
                    shape.first_rank + shape.ranks - 1
                ),
            ));
            continue;
        };
        if board.insert(at, letter).is_some() {
            problems.push(problem(
                "SQUARE_TAKEN_TWICE",
                format!("{square} is given more than one piece"),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut placement = String::new();
    for rank in (0..shape.ranks).rev() {
        let mut empty = 0;
        for file in 0..shape.files {
            match board.get(&(file, rank)) {
                Some(&c) => {
                    if empty > 0 {
                        placement.push_str(&empty.to_string());
                        empty = 0;
                    }
                    placement.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            placement.push_str(&empty.to_string());
        }
        if rank > 0 {
            placement.push('/');
        }
    }
    let or_dash = |s: &str| {
        if s.trim().is_empty() {
            "-".to_owned()
        } else {
            s.trim().to_owned()
        }
    };
    let turn = if turn == Side::White { 'w' } else { 'b' };
    Ok(format!(
        "{placement} {turn} {} {} 0 1",
        or_dash(extras.castling),
        or_dash(extras.en_passant)
    ))
}

/// (file, rank) indices from 0, or `None`.
fn parse_square(shape: &Shape, square: &str) -> Option<(u8, u8)> {
    let bytes = square.trim().as_bytes();
    let (&file, rank) = bytes.split_first()?;
    let file = file
        .to_ascii_lowercase()
        .checked_sub(b'a')
        .filter(|&f| f < shape.files)?;
    let rank: u8 = std::str::from_utf8(rank).ok()?.parse().ok()?;
    let rank = rank
        .checked_sub(shape.first_rank)
        .filter(|&r| r < shape.ranks)?;
    Some((file, rank))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(s, p)| ((*s).to_owned(), (*p).to_owned()))
            .collect()
    }

    #[test]
    fn builds_fens_for_both_boards() {
        let fen = fen_from_pieces(
            Variant::Chess,
            &pieces(&[("e1", "K"), ("e8", "k"), ("h1", "R")]),
            Side::White,
            &Extras {
                castling: "K",
                en_passant: "",
            },
        );
        assert_eq!(fen.unwrap(), "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        let fen = fen_from_pieces(
            Variant::Xiangqi,
            &pieces(&[("e0", "K"), ("d9", "k")]),
            Side::Black,
            &Extras::default(),
        );
        assert_eq!(fen.unwrap(), "3k5/9/9/9/9/9/9/9/9/4K4 b - - 0 1");
    }

    #[test]
    fn reports_every_bad_entry() {
        let err = fen_from_pieces(
            Variant::Chess,
            &pieces(&[("e9", "K"), ("e1", "X"), ("a1", "R"), ("a1", "r")]),
            Side::White,
            &Extras::default(),
        )
        .unwrap_err();
        let codes: Vec<_> = err.iter().map(|p| p.code).collect();
        assert_eq!(
            codes,
            ["BAD_SQUARE", "BAD_PIECE_LETTER", "SQUARE_TAKEN_TWICE"]
        );
    }
}
