//! Why a move is illegal.
//!
//! The checks run in the order a player would reason: is there a piece, is
//! it mine, can this kind of piece move like that, is the way free, and
//! finally would my general be left attacked (or face the other general).

use super::{
    Xiangqi,
    attacks::{across_river, forward, in_palace, on_red_half},
    moves::Move,
    piece::{Kind, Piece, side_name},
    square::Square,
};
use crate::rules::{IllegalMove, IllegalReason};

type Outcome = Result<Move, IllegalMove>;

fn illegal(reason: IllegalReason, message: String) -> IllegalMove {
    IllegalMove::new(reason, message)
}

/// "the black chariot on e9"
fn piece_on(piece: Piece, sq: Square) -> String {
    format!("the {piece} on {sq}")
}

/// Resolves a move given by coordinates to the legal move it names, or
/// explains why there is none.
pub(super) fn coordinates(pos: &Xiangqi, from: Square, to: Square) -> Outcome {
    let turn = pos.turn;
    let Some(piece) = pos.piece_at(from) else {
        return Err(illegal(
            IllegalReason::NoPiece,
            format!("there is no piece on {from}"),
        ));
    };
    if piece.side != turn {
        return Err(illegal(
            IllegalReason::OpponentPiece,
            format!(
                "{} belongs to {}, but it is {}'s turn",
                piece_on(piece, from),
                side_name(piece.side),
                side_name(turn)
            ),
        ));
    }
    if let Some(target) = pos.piece_at(to).filter(|p| p.side == turn) {
        return Err(illegal(
            IllegalReason::OwnPieceOnDestination,
            format!("{to} is occupied by your own {}", target.kind.name()),
        ));
    }
    geometry(pos, piece, from, to)?;
    let m = Move::new(from, to);
    match pos.attackers_after(from, to).first() {
        None => Ok(m),
        Some(attacker) => Err(general_exposed(pos, piece, m, attacker)),
    }
}

/// Can `piece` move from `from` to `to` on this board, checks aside?
fn geometry(pos: &Xiangqi, piece: Piece, from: Square, to: Square) -> Result<(), IllegalMove> {
    let df = i32::from(to.file()) - i32::from(from.file());
    let dr = i32::from(to.rank()) - i32::from(from.rank());
    let (adf, adr) = (df.abs(), dr.abs());
    let name = piece.kind.name();
    let cannot = |how: &str| {
        illegal(
            IllegalReason::CannotMoveThatWay,
            format!("the {name} on {from} cannot move to {to}: {how}"),
        )
    };
    let blocker = |sq: Square| {
        let what = pos
            .piece_at(sq)
            .map_or_else(String::new, |p| format!("the {p} "));
        format!("{what}on {sq}")
    };
    match piece.kind {
        Kind::General | Kind::Advisor => {
            let (shape, how) = if piece.kind == Kind::General {
                (
                    adf + adr == 1,
                    "a general moves one point along a rank or a file",
                )
            } else {
                (
                    adf == 1 && adr == 1,
                    "an advisor moves one point diagonally",
                )
            };
            if !shape {
                return Err(cannot(how));
            }
            if !in_palace(to) {
                return Err(illegal(
                    IllegalReason::MustStayInPalace,
                    format!("the {name} on {from} must stay in the palace: {to} is outside it"),
                ));
            }
        }
        Kind::Elephant => {
            if adf != 2 || adr != 2 {
                return Err(cannot("an elephant moves exactly two points diagonally"));
            }
            if on_red_half(to) != on_red_half(from) {
                return Err(illegal(
                    IllegalReason::ElephantCannotCrossRiver,
                    format!("the elephant on {from} cannot cross the river to {to}"),
                ));
            }
            if let Some(eye) = midpoint(from, df / 2, dr / 2).filter(|&sq| occupied(pos, sq)) {
                return Err(illegal(
                    IllegalReason::ElephantEyeBlocked,
                    format!(
                        "the elephant on {from} cannot reach {to}: its eye is blocked by {}",
                        blocker(eye)
                    ),
                ));
            }
        }
        Kind::Horse => {
            if !((adf == 1 && adr == 2) || (adf == 2 && adr == 1)) {
                return Err(cannot(
                    "a horse moves one point along a rank or file, then one point diagonally outward",
                ));
            }
            let leg = if adf == 2 { (df / 2, 0) } else { (0, dr / 2) };
            if let Some(leg) = midpoint(from, leg.0, leg.1).filter(|&sq| occupied(pos, sq)) {
                return Err(illegal(
                    IllegalReason::HorseLegBlocked,
                    format!(
                        "the horse on {from} cannot reach {to}: its leg is blocked by {}",
                        blocker(leg)
                    ),
                ));
            }
        }
        Kind::Chariot | Kind::Cannon => {
            if df != 0 && dr != 0 {
                return Err(cannot(&format!("a {name} moves along a rank or a file")));
            }
            let between = between(from, to)
                .filter(|&sq| occupied(pos, sq))
                .collect::<Vec<_>>();
            let capture = occupied(pos, to);
            let cannon_capture = piece.kind == Kind::Cannon && capture;
            match (cannon_capture, between.as_slice()) {
                (true, [_]) | (false, []) => {}
                (true, screens) => {
                    return Err(illegal(
                        IllegalReason::CannonNeedsScreen,
                        format!(
                            "the cannon on {from} captures by jumping exactly one piece, \
                             and there are {} between it and {to}",
                            screens.len()
                        ),
                    ));
                }
                (false, [first, ..]) => {
                    let how = if piece.kind == Kind::Cannon {
                        " (a cannon jumps only to capture)"
                    } else {
                        ""
                    };
                    return Err(illegal(
                        IllegalReason::PathBlocked,
                        format!(
                            "the {name} on {from} cannot reach {to}: {} is in the way{how}",
                            blocker(*first)
                        ),
                    ));
                }
            }
        }
        Kind::Soldier => {
            let ahead = dr == i32::from(forward(piece.side));
            let sideways = dr == 0 && adf == 1;
            if (ahead && df == 0) || (sideways && across_river(piece.side, from)) {
                return Ok(());
            }
            if dr * i32::from(forward(piece.side)) < 0 || sideways {
                let how = if sideways {
                    "it moves sideways only after crossing the river"
                } else {
                    "a soldier never moves backwards"
                };
                return Err(illegal(
                    IllegalReason::SoldierCannotMoveThatWay,
                    format!("the soldier on {from} cannot move to {to}: {how}"),
                ));
            }
            return Err(cannot(
                "a soldier moves one point forward (or sideways after the river)",
            ));
        }
    }
    Ok(())
}

fn occupied(pos: &Xiangqi, sq: Square) -> bool {
    pos.occupied.bits().contains(sq)
}

fn midpoint(from: Square, df: i32, dr: i32) -> Option<Square> {
    from.offset(i8::try_from(df).ok()?, i8::try_from(dr).ok()?)
}

/// The points strictly between `from` and `to` on a rank or file.
fn between(from: Square, to: Square) -> impl Iterator<Item = Square> {
    let df = (to.file() as i8 - from.file() as i8).signum();
    let dr = (to.rank() as i8 - from.rank() as i8).signum();
    std::iter::successors(from.offset(df, dr), move |sq| sq.offset(df, dr))
        .take_while(move |&sq| sq != to)
        .take(usize::from(Square::RANKS))
}

/// Explains a move that would leave the mover's general attacked.
fn general_exposed(pos: &Xiangqi, piece: Piece, m: Move, attacker: Square) -> IllegalMove {
    let general = if piece.kind == Kind::General {
        m.to()
    } else {
        pos.general(pos.turn)
    };
    let Some(by) = pos.piece_at(attacker) else {
        return illegal(
            IllegalReason::OwnKingInCheck,
            "the move would leave your general in check".to_owned(),
        );
    };
    if by.kind == Kind::General {
        return illegal(
            IllegalReason::GeneralsFacing,
            format!(
                "the generals would face each other on the {} file with nothing between them",
                char::from(b'a' + general.file())
            ),
        );
    }
    let by = piece_on(by, attacker);
    let message = if piece.kind == Kind::General {
        format!("{by} would attack your general on {general}")
    } else if pos.checkers(pos.turn).contains(attacker) {
        format!("your general on {general} is in check from {by}, and this move does not stop it")
    } else {
        format!("{by} would attack your general on {general}")
    };
    illegal(IllegalReason::OwnKingInCheck, message)
}
