//! Why a move is illegal.
//!
//! python-chess answers "illegal"; players deserve to know why. The checks run
//! in the order a player would reason: is there a piece, is it mine, can it
//! move like that, is the way free, does it promote, and finally would my king
//! be left in check.

use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Color, EnPassantMode, Move, Piece, Position, Rank, Role,
    Square, attacks, san::San,
};

use super::{
    names::{piece_on, role_name},
    san::denotes,
    side_of,
};
use crate::rules::{IllegalMove, IllegalReason};

type Outcome = Result<Move, IllegalMove>;

/// A position whose rules may forbid a pseudo-legal move for a reason of
/// their own, named before the chess reasons are looked for.
pub(crate) trait Explained: Position {
    /// The rule of the game `m` breaks, where one of its own does.
    fn broken_rule(&self, m: Move) -> Option<IllegalMove> {
        let _ = m;
        None
    }
}

impl Explained for shakmaty::Chess {}

fn illegal(reason: IllegalReason, message: String) -> IllegalMove {
    IllegalMove::new(reason, message)
}

/// Resolves a move given by coordinates to the legal move it names, or
/// explains why there is none.
pub(super) fn coordinates<P: Explained>(
    pos: &P,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Outcome {
    let board = pos.board();
    let turn = pos.turn();
    let Some(piece) = board.piece_at(from) else {
        return Err(illegal(
            IllegalReason::NoPiece,
            format!("there is no piece on {from}"),
        ));
    };
    if piece.color != turn {
        return Err(illegal(
            IllegalReason::OpponentPiece,
            format!(
                "{} belongs to {}, but it is {}'s turn",
                piece_on(piece, from),
                side_of(piece.color),
                side_of(turn)
            ),
        ));
    }
    if let Some(side) = castling_attempt(pos, piece, from, to) {
        if promotion.is_some() {
            return Err(only_pawns_promote());
        }
        return castle(pos, side);
    }
    if let Some(target) = board.piece_at(to).filter(|p| p.color == turn) {
        return Err(illegal(
            IllegalReason::OwnPieceOnDestination,
            format!("{to} is occupied by your own {}", role_name(target.role)),
        ));
    }
    let candidate = pseudo_legal(pos, piece, from, to, promotion)?;
    if pos.is_legal(candidate) {
        Ok(candidate)
    } else {
        Err(pos
            .broken_rule(candidate)
            .unwrap_or_else(|| king_left_in_check(pos, candidate)))
    }
}

/// Is this king move an attempt to castle: the king takes its own castling
/// rook (`e1h1`), or moves two squares along its first rank (`e1g1`, `e1c1`;
/// in Chess960, onto the g- or c-file from wherever it stands, unless that
/// is an ordinary king step)?
fn castling_attempt<P: Explained>(
    pos: &P,
    piece: Piece,
    from: Square,
    to: Square,
) -> Option<CastlingSide> {
    let color = piece.color;
    let fischer = pos.castles().mode() == CastlingMode::Chess960;
    let home = if fischer {
        from.rank() == color.backrank()
    } else {
        from == color.fold_wb(Square::E1, Square::E8)
    };
    if piece.role != Role::King || !home || to.rank() != from.rank() || to == from {
        return None;
    }
    let side = CastlingSide::from_king_side(to > from);
    let onto_rook = pos.castles().rook(color, side) == Some(to)
        || (!fischer && pos.board().piece_at(to) == Some(color.rook()));
    let two_squares = if fischer {
        to == side.king_to(color) && from.distance(to) > 1
    } else {
        from.distance(to) == 2
    };
    (onto_rook || two_squares).then_some(side)
}

/// Explains (or plays) castling on `side`.
fn castle<P: Explained>(pos: &P, side: CastlingSide) -> Outcome {
    let turn = pos.turn();
    let board = pos.board();
    let castles = pos.castles();
    let (name, right) = match side {
        CastlingSide::KingSide => ("kingside", turn.fold_wb('K', 'k')),
        CastlingSide::QueenSide => ("queenside", turn.fold_wb('Q', 'q')),
    };
    let (Some(rook), Some(king)) = (castles.rook(turn, side), board.king_of(turn)) else {
        return Err(illegal(
            IllegalReason::CastlingWithoutRight,
            format!(
                "{} may no longer castle {name} (no {right} in the castling rights)",
                side_of(turn)
            ),
        ));
    };
    if let Some(blocker) = (castles.path(turn, side) & board.occupied()).first() {
        return Err(illegal(
            IllegalReason::CastlingBlocked,
            format!("cannot castle {name}: {blocker} is not empty"),
        ));
    }
    let them = !turn;
    if let Some(checker) = pos.checkers().first() {
        return Err(illegal(
            IllegalReason::CastlingOutOfCheck,
            format!(
                "cannot castle out of check: {} attacks your king",
                piece_on(board.piece_at(checker).expect("checker"), checker)
            ),
        ));
    }
    let king_to = side.king_to(turn);
    // Attacks are judged with the king and rook lifted, as after castling.
    let occupied = board.occupied() ^ king ^ rook;
    for square in attacks::between(king, king_to).with(king_to) {
        if let Some(attacker) = board.attacks_to(square, them, occupied).first() {
            let (reason, how) = if square == king_to {
                (IllegalReason::CastlingIntoCheck, "into check")
            } else {
                (IllegalReason::CastlingThroughCheck, "through check")
            };
            return Err(illegal(
                reason,
                format!(
                    "cannot castle {how}: {} attacks {square}",
                    piece_on(board.piece_at(attacker).expect("attacker"), attacker)
                ),
            ));
        }
    }
    Ok(Move::Castle { king, rook })
}

fn only_pawns_promote() -> IllegalMove {
    illegal(
        IllegalReason::PromotionNotAllowed,
        "only a pawn reaching the last rank can promote".to_owned(),
    )
}

/// The move if the piece can make it on this board, ignoring checks.
fn pseudo_legal<P: Explained>(
    pos: &P,
    piece: Piece,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Outcome {
    let board = pos.board();
    let occupied = board.occupied();
    let capture = board.role_at(to);
    let name = role_name(piece.role);
    let reach = match piece.role {
        Role::Pawn => return pawn(pos, piece.color, from, to, promotion),
        Role::Knight => attacks::knight_attacks(from),
        Role::King => attacks::king_attacks(from),
        Role::Bishop => attacks::bishop_attacks(from, Bitboard::EMPTY),
        Role::Rook => attacks::rook_attacks(from, Bitboard::EMPTY),
        Role::Queen => attacks::queen_attacks(from, Bitboard::EMPTY),
    };
    if !reach.contains(to) {
        let how = match piece.role {
            Role::Knight => "a knight jumps in an L: two squares one way, one square across",
            Role::King => {
                "a king moves one square in any direction (to castle, move it two squares towards the rook)"
            }
            Role::Bishop => "a bishop moves diagonally",
            Role::Rook => "a rook moves along a rank or a file",
            _ => "a queen moves along a rank, a file or a diagonal",
        };
        return Err(illegal(
            IllegalReason::CannotMoveThatWay,
            format!("the {name} on {from} cannot move to {to}: {how}"),
        ));
    }
    if let Some(blocker) = first_between(from, to, occupied) {
        return Err(blocked(name, from, to, blocker, board.piece_at(blocker)));
    }
    if promotion.is_some() {
        return Err(only_pawns_promote());
    }
    Ok(Move::Normal {
        role: piece.role,
        from,
        capture,
        to,
        promotion: None,
    })
}

/// The piece nearest to `from` strictly between `from` and `to`.
fn first_between(from: Square, to: Square, occupied: Bitboard) -> Option<Square> {
    let between = attacks::between(from, to) & occupied;
    if to > from {
        between.first()
    } else {
        between.last()
    }
}

fn blocked(
    name: &str,
    from: Square,
    to: Square,
    blocker: Square,
    piece: Option<Piece>,
) -> IllegalMove {
    let what = piece.map_or_else(|| format!("a piece on {blocker}"), |p| piece_on(p, blocker));
    illegal(
        IllegalReason::PathBlocked,
        format!("the {name} on {from} cannot reach {to}: {what} is in the way"),
    )
}

fn pawn<P: Explained>(
    pos: &P,
    color: Color,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Outcome {
    let board = pos.board();
    let forward: i32 = color.fold_wb(8, -8);
    let start_rank = color.fold_wb(Rank::Second, Rank::Seventh);
    let last_rank = color.fold_wb(Rank::Eighth, Rank::First);
    let ep_square = pos.ep_square(EnPassantMode::Always);
    let diagonal = attacks::pawn_attacks(color, from).contains(to);
    let candidate = if diagonal && board.color_at(to) == Some(!color) {
        Move::Normal {
            role: Role::Pawn,
            from,
            capture: board.role_at(to),
            to,
            promotion,
        }
    } else if diagonal && ep_square == Some(to) {
        Move::EnPassant { from, to }
    } else if diagonal {
        return Err(illegal(
            IllegalReason::CannotMoveThatWay,
            format!(
                "the pawn on {from} moves diagonally only to capture, and there is nothing to capture on {to}"
            ),
        ));
    } else if from.offset(forward) == Some(to)
        || (from.rank() == start_rank && from.offset(2 * forward) == Some(to))
    {
        let path = attacks::between(from, to).with(to);
        let blockers = path & board.occupied();
        let nearest = if forward > 0 {
            blockers.first()
        } else {
            blockers.last()
        };
        if let Some(blocker) = nearest {
            return Err(blocked("pawn", from, to, blocker, board.piece_at(blocker)));
        }
        Move::Normal {
            role: Role::Pawn,
            from,
            capture: None,
            to,
            promotion,
        }
    } else {
        return Err(illegal(
            IllegalReason::CannotMoveThatWay,
            format!(
                "the pawn on {from} cannot move to {to}: a pawn moves one square forward \
                 (two from its starting rank) and captures one square diagonally forward"
            ),
        ));
    };
    match (to.rank() == last_rank, promotion) {
        (true, None) => Err(illegal(
            IllegalReason::PromotionMissing,
            format!(
                "a pawn reaching {to} must promote: add q, r, b or n (for example {from}{to}q, or {to}=Q in SAN)"
            ),
        )),
        (false, Some(_)) => Err(illegal(
            IllegalReason::PromotionNotAllowed,
            format!("a pawn promotes only on the last rank, and {to} is not on it"),
        )),
        (true, Some(Role::King | Role::Pawn)) => Err(illegal(
            IllegalReason::PromotionNotAllowed,
            "a pawn promotes to a queen, rook, bishop or knight".to_owned(),
        )),
        _ => Ok(candidate),
    }
}

/// Explains a pseudo-legal move that leaves the mover's king attacked, naming
/// the attacker.
fn king_left_in_check<P: Explained>(pos: &P, m: Move) -> IllegalMove {
    let turn = pos.turn();
    let mut board = pos.board().clone();
    let from = m.from().expect("chess has no drops");
    let moved = board
        .remove_piece_at(from)
        .expect("the mover is on its square");
    if let Move::EnPassant { from, to } = m {
        board.discard_piece_at(Square::from_coords(to.file(), from.rank()));
    }
    board.set_piece_at(m.to(), moved);
    let attacker = board.king_of(turn).and_then(|king| {
        Some((
            king,
            board.attacks_to(king, !turn, board.occupied()).first()?,
        ))
    });
    let Some((king, attacker)) = attacker else {
        // Unreachable for a pseudo-legal move shakmaty rejects; say so plainly.
        return illegal(
            IllegalReason::OwnKingInCheck,
            "the move would leave your king in check".to_owned(),
        );
    };
    let by = piece_on(board.piece_at(attacker).expect("attacker"), attacker);
    let message = if m.role() == Role::King {
        format!("your king would be in check on {king} from {by}")
    } else if pos.checkers().contains(attacker) {
        format!("your king on {king} is in check from {by}, and this move does not stop it")
    } else {
        format!("the move would expose your king on {king} to {by}")
    };
    illegal(IllegalReason::OwnKingInCheck, message)
}

/// Explains SAN that matches no legal move.
pub(super) fn san<P: Explained>(pos: &P, san: San) -> IllegalMove {
    let turn = pos.turn();
    let (role, to, promotion) = match san {
        San::Castle(side) => {
            return castle(pos, side).err().unwrap_or_else(|| {
                illegal(
                    IllegalReason::CastlingWithoutRight,
                    "castling is not possible here".to_owned(),
                )
            });
        }
        San::Normal {
            role,
            to,
            promotion,
            ..
        } => (role, to, promotion),
        San::Put { .. } | San::Null => {
            return illegal(
                IllegalReason::CannotMoveThatWay,
                "drops and null moves are not chess moves".to_owned(),
            );
        }
    };
    let ours = pos.board().by_piece(Piece { color: turn, role });
    // Pieces the SAN could mean, judged by its disambiguation alone.
    let named: Vec<Square> = ours
        .into_iter()
        .filter(|&from| {
            let probe = Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion,
            };
            denotes(san, probe)
        })
        .collect();
    let explanations: Vec<IllegalMove> = named
        .iter()
        .filter_map(|&from| coordinates(pos, from, to, promotion).err())
        .collect();
    let side = side_of(turn);
    let name = role_name(role);
    if named.is_empty() {
        return illegal(
            IllegalReason::NoPieceCanReach,
            format!("{side} has no {name} that could move to {to}"),
        );
    }
    // The most telling explanation: one beyond "cannot move that way".
    explanations
        .iter()
        .find(|e| e.reason != IllegalReason::CannotMoveThatWay)
        .cloned()
        .unwrap_or_else(|| {
            illegal(
                IllegalReason::NoPieceCanReach,
                format!("no {side} {name} can move to {to}"),
            )
        })
}
