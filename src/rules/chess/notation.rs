//! Move text in (UCI, SAN) and out (UCI, SAN with check marks).

use shakmaty::{
    Bitboard, CastlingMode, CastlingSide, Color, Move, MoveList, Piece, Position, Role, Square,
    attacks,
    san::{San, SanPlus, Suffix},
    uci::UciMove,
};

use super::{explain, san::denotes};
use crate::rules::{MoveDescription, MoveError, MoveText};

const EXPECTED: &str = "UCI (e2e4, e7e8q, e1g1 or e1h1) or SAN (e4, Nf3, exd5, O-O, e8=Q)";

/// Longest move text worth reading (`Qa1xh8=Q#` and padding).
const MAX_MOVE_TEXT: usize = 16;

/// Move text worth reading, trimmed: ASCII and not too long.
pub(super) fn readable<'a>(text: &'a str, expected: &'static str) -> Result<&'a str, MoveError> {
    let text = text.trim();
    if text.is_empty() || text.len() > MAX_MOVE_TEXT || !text.is_ascii() {
        return Err(unparsable(text, expected));
    }
    Ok(text)
}

/// `text` is not a move in any notation `expected` names.
pub(super) fn unparsable(text: &str, expected: &'static str) -> MoveError {
    MoveError::Unparsable {
        text: text.to_owned(),
        expected,
    }
}

/// Reads UCI or SAN, resolving it against `pos`.
pub(super) fn parse(pos: &shakmaty::Chess, text: &str) -> Result<Move, MoveError> {
    let text = readable(text, EXPECTED)?;
    let unparsable = || unparsable(text, EXPECTED);
    if let Ok(UciMove::Normal {
        from,
        to,
        promotion,
    }) = UciMove::from_ascii(text.as_bytes())
    {
        return explain::coordinates(pos, from, to, promotion).map_err(MoveError::from);
    }
    // Castling is often typed with zeros.
    let normalized = match text.trim_end_matches(['+', '#']) {
        "0-0" => "O-O",
        "0-0-0" => "O-O-O",
        _ => text,
    };
    match SanPlus::from_ascii(normalized.as_bytes()) {
        Ok(SanPlus {
            san: san @ (San::Normal { .. } | San::Castle(_)),
            ..
        }) => resolve_san(pos, san, text),
        _ => Err(unparsable()),
    }
}

/// Finds the one legal move `san` denotes. Lenient like python-chess: a
/// missing or superfluous capture mark does not matter.
fn resolve_san(pos: &shakmaty::Chess, san: San, text: &str) -> Result<Move, MoveError> {
    // Only the legal moves that can match: generating them all would cost
    // several times more, and a history replays one SAN move per ply.
    let candidates = match san {
        San::Normal { role, to, .. } => pos.san_candidates(role, to),
        San::Castle(side) => pos.castling_moves(side),
        San::Put { .. } | San::Null => MoveList::new(),
    };
    let matching = || candidates.iter().copied().filter(|&m| denotes(san, m));
    let mut found = matching();
    match (found.next(), found.next()) {
        (Some(m), None) => Ok(m),
        (None, _) => Err(explain::san(pos, san).into()),
        (Some(_), Some(_)) => Err(MoveError::Ambiguous {
            text: text.to_owned(),
            candidates: matching()
                .map(|m| SanPlus::from_move(pos.clone(), m).to_string())
                .collect(),
        }),
    }
}

/// Writes the move in every notation over `d`.
pub(super) fn describe_into(pos: &shakmaty::Chess, m: Move, d: &mut MoveDescription) {
    describe_as(pos, &Checks::of(pos), m, San::from_move(pos, m), d);
}

/// Every move of `legal` (all the legal moves of `pos`) in every notation,
/// to `each`: each SAN's origin comes from one table built from the list
/// ([`Origins`]) instead of generating the candidates again per move, and
/// each check from what the position says about checks ([`Checks`]).
pub(super) fn describe_each(
    pos: &shakmaty::Chess,
    legal: &MoveList,
    mut each: impl FnMut(&MoveDescription),
) {
    let origins = Origins::of(legal);
    let checks = Checks::of(pos);
    let mut d = MoveDescription::default();
    for &m in legal {
        describe_as(pos, &checks, m, origins.san(m), &mut d);
        each(&d);
    }
}

/// For each square, where the knights, bishops, rooks and queens that can
/// legally move there stand: SAN names a piece's origin only when another of
/// its kind reaches the same square. One pass over the moves instead of
/// `San::disambiguate`'s scan of every move per move.
struct Origins([Bitboard; 4 * 64]);

impl Origins {
    fn of(legal: &MoveList) -> Origins {
        let mut origins = Origins([Bitboard::EMPTY; 4 * 64]);
        for m in legal {
            if let (Some(i), Some(from)) = (Origins::index(m.role(), m.to()), m.from()) {
                origins.0[i].add(from);
            }
        }
        origins
    }

    /// Pawns (named by file when capturing) and the one king never need it.
    fn index(role: Role, to: Square) -> Option<usize> {
        let kind = match role {
            Role::Knight => 0,
            Role::Bishop => 1,
            Role::Rook => 2,
            Role::Queen => 3,
            Role::Pawn | Role::King => return None,
        };
        Some(kind * 64 + usize::from(to))
    }

    /// `m` in SAN, as `San::disambiguate` writes it: the origin's file when it
    /// tells the pieces apart, else its rank, else both.
    fn san(&self, m: Move) -> San {
        let mut san = San::disambiguate(m, &MoveList::new());
        if let (San::Normal { file, rank, .. }, Some(i), Some(from)) =
            (&mut san, Origins::index(m.role(), m.to()), m.from())
        {
            let others = self.0[i].without(from);
            if others.any() {
                let same_file = (others & Bitboard::from_file(from.file())).any();
                let same_rank = (others & Bitboard::from_rank(from.rank())).any();
                if !same_file || same_rank {
                    *file = Some(from.file());
                }
                if same_file {
                    *rank = Some(from.rank());
                }
            }
        }
        san
    }
}

/// Where the mover's pieces would check the opponent's king from, worked out
/// once per position, as engines do: an ordinary move checks when its piece
/// lands on a checking square of its kind, or when it leaves a line between
/// one of the mover's sliders and the king ("discovered"). The opponent is
/// never in check already, so nothing else about the board can change.
struct Checks {
    king: Square,
    /// By role: the squares from which a piece of the mover's attacks the
    /// king on the current board.
    squares: [Bitboard; 6],
    /// The mover's pieces that alone block one of its sliders from the king.
    blockers: Bitboard,
}

impl Checks {
    fn of(pos: &shakmaty::Chess) -> Checks {
        let board = pos.board();
        let us = pos.turn();
        // Without a king (never in a valid position) nothing checks.
        let Some(king) = board.king_of(!us) else {
            return Checks {
                king: Square::A1,
                squares: [Bitboard::EMPTY; 6],
                blockers: Bitboard::EMPTY,
            };
        };
        let occupied = board.occupied();
        let ours = board.by_color(us);
        let bishop = attacks::bishop_attacks(king, occupied);
        let rook = attacks::rook_attacks(king, occupied);
        let snipers = ((attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens())
            | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens()))
            & ours;
        let mut blockers = Bitboard::EMPTY;
        for sniper in snipers {
            let between = attacks::between(king, sniper) & occupied;
            if !between.more_than_one() {
                blockers |= between & ours;
            }
        }
        Checks {
            king,
            squares: [
                attacks::pawn_attacks(!us, king),
                attacks::knight_attacks(king),
                bishop,
                rook,
                bishop | rook,
                Bitboard::EMPTY,
            ],
            blockers,
        }
    }

    /// Does the legal move `m` check the opponent?
    fn given_by(&self, pos: &shakmaty::Chess, m: Move) -> bool {
        match m {
            Move::Normal {
                role,
                from,
                to,
                promotion: None,
                ..
            } => {
                // Roles count from 1 (pawn) to 6 (king).
                self.squares[usize::from(role) - 1].contains(to)
                    || (self.blockers.contains(from) && !attacks::aligned(from, to, self.king))
            }
            // Promotions (the pawn's square opens a line for the new piece),
            // castling and en passant move or take two pieces.
            _ => gives_check(pos, m),
        }
    }
}

/// Does the legal move `m` check the opponent? Worked out on a copy of the
/// board alone, with the pieces `m` moves, takes and promotes, rather than
/// by playing it on a copy of the whole position (castling rights, counters):
/// describing the legal moves asks this of every one.
fn gives_check(pos: &shakmaty::Chess, m: Move) -> bool {
    let us = pos.turn();
    let Some(king) = pos.board().king_of(!us) else {
        return false;
    };
    let mut board = pos.board().clone();
    match m {
        Move::Normal {
            role,
            from,
            to,
            promotion,
            ..
        } => {
            board.discard_piece_at(from);
            let role = promotion.unwrap_or(role);
            board.set_piece_at(to, Piece { color: us, role });
        }
        Move::EnPassant { from, to } => {
            board.discard_piece_at(from);
            // The captured pawn stands beside the origin, on the target's file.
            board.discard_piece_at(Square::from_coords(to.file(), from.rank()));
            let pawn = Piece {
                color: us,
                role: Role::Pawn,
            };
            board.set_piece_at(to, pawn);
        }
        Move::Castle { king: from, rook } => {
            let side = CastlingSide::from_king_side(from < rook);
            board.discard_piece_at(from);
            board.discard_piece_at(rook);
            board.set_piece_at(side.king_to(us), us.king());
            board.set_piece_at(side.rook_to(us), us.rook());
        }
        Move::Put { .. } => return false,
    }
    board.attacks_to(king, us, board.occupied()).any()
}

/// Writes `m` (legal in `pos`, written `san`) over `d`.
fn describe_as(pos: &shakmaty::Chess, checks: &Checks, m: Move, san: San, d: &mut MoveDescription) {
    let turn = pos.turn();
    let is_check = checks.given_by(pos, m);
    // Only a check can be a mate, so the replies are generated only then.
    let suffix = is_check.then(|| {
        let mut after = pos.clone();
        after.play_unchecked(m);
        if super::has_legal_moves(&after) {
            Suffix::Check
        } else {
            Suffix::Checkmate
        }
    });
    let (from, to) = uci_squares(m);
    d.clear_texts();
    push_coordinates(m, pos.castles().mode(), &mut d.uci);
    push_san(&mut d.san, san, suffix);
    d.chinese = None;
    push_square(&mut d.from, from);
    push_square(&mut d.to, to);
    describe_pieces(turn, m, is_check, d);
}

/// Writes who moves, captures and promotes to what in `m`, and its kind,
/// over `d`.
pub(super) fn describe_pieces(turn: Color, m: Move, is_check: bool, d: &mut MoveDescription) {
    d.piece = Piece {
        color: turn,
        role: m.role(),
    }
    .char();
    d.captured = m.capture().map(|role| Piece { color: !turn, role }.char());
    d.promotion = m.promotion().map(|role| Piece { color: turn, role }.char());
    d.is_check = is_check;
    d.is_castling = m.is_castle();
    d.is_en_passant = m.is_en_passant();
}

// The writers below build the strings directly rather than through
// `Display`: LegalMoves writes about 200 of them per answer.

/// Appends `m` in UCI (castling as the king's move, `e1g1`).
/// Castling is written as the king's move in chess (`e1g1`) and as the king
/// taking its own rook in Chess960 (`e1h1`), as UCI engines expect.
/// A drop (a chess variant's) is written `N@f3`.
pub(super) fn push_coordinates(m: Move, mode: CastlingMode, text: &mut impl Extend<char>) {
    if let Move::Put { role, to } = m {
        text.extend([role.upper_char(), '@']);
        push_square(text, to);
        return;
    }
    let (from, to) = match (mode, m) {
        (CastlingMode::Chess960, Move::Castle { king, rook }) => (king, rook),
        _ => uci_squares(m),
    };
    push_square(text, from);
    push_square(text, to);
    text.extend(m.promotion().map(Role::char));
}

/// Where `m` starts and ends as UCI writes it: castling is the king's move
/// (`e1g1`), not king takes rook.
fn uci_squares(m: Move) -> (Square, Square) {
    // Chess has no drops, so every move has an origin.
    let from = m.from().unwrap_or(m.to());
    let to = m.castling_side().map_or(m.to(), |side| {
        Square::from_coords(side.king_to_file(), from.rank())
    });
    (from, to)
}

/// Appends SAN with its check or mate mark, as `SanPlus` displays it.
fn push_san(text: &mut MoveText, san: San, suffix: Option<Suffix>) {
    match san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                text.push(role.upper_char());
            }
            text.extend(file.map(|f| f.char()));
            text.extend(rank.map(|r| r.char()));
            if capture {
                text.push('x');
            }
            push_square(text, to);
            if let Some(role) = promotion {
                text.push('=');
                text.push(role.upper_char());
            }
        }
        San::Castle(CastlingSide::KingSide) => text.extend("O-O".chars()),
        San::Castle(CastlingSide::QueenSide) => text.extend("O-O-O".chars()),
        San::Put { .. } | San::Null => text.extend(san.to_string().chars()),
    }
    text.extend(suffix.map(Suffix::char));
}

fn push_square(text: &mut impl Extend<char>, square: Square) {
    text.extend([square.file().char(), square.rank().char()]);
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, fen::Fen};

    use super::*;

    fn position(fen: &str) -> Chess {
        let fen: Fen = fen.parse().expect("valid FEN");
        fen.into_position(CastlingMode::Standard)
            .expect("legal position")
    }

    /// Every move of positions where SAN needs the origin's file, rank or
    /// both is written as shakmaty's `San::disambiguate` writes it.
    #[test]
    fn origins_disambiguate_like_shakmaty() {
        for fen in [
            // Three queens: two share a file, two share a rank.
            "5k2/8/8/8/Q6Q/8/8/Q5K1 w - - 0 1",
            // Four knights on two files and two ranks.
            "k7/8/8/8/8/2N1N3/8/2N1N1K1 w - - 0 1",
            // Rooks sharing a file and a rank; three bishops on two files.
            "1k6/8/R7/8/R4R2/1B3B2/8/1B4K1 w - - 0 1",
            // Black's four knights, and rooks next to castling.
            "r3k2r/8/3n1n2/8/3n1n2/8/8/R3K2R b KQkq - 0 1",
        ] {
            let pos = position(fen);
            let legal = pos.legal_moves();
            let origins = Origins::of(&legal);
            let mut named = 0;
            for &m in &legal {
                let san = origins.san(m);
                assert_eq!(san, San::disambiguate(m, &legal), "{m}");
                if let San::Normal {
                    role, file, rank, ..
                } = san
                {
                    named += usize::from(role != Role::Pawn && (file.is_some() || rank.is_some()));
                }
            }
            assert!(named > 0, "no origin named at {pos:?}");
        }
    }

    /// Every move and every reply from positions with checks of every kind
    /// (direct, discovered, by promotion, castling and en passant, double):
    /// `gives_check` agrees with playing the move.
    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let mut checks = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            // Castling that checks: the rook lands on the king's file.
            "5k2/8/8/8/8/8/8/4K2R w K - 0 1",
            "3k4/8/8/8/8/8/8/R3K3 w Q - 0 1",
            // En passant opening the queen's diagonal; and removing both
            // pawns from the rook's rank.
            "7k/8/8/3pP3/8/8/8/Q3K3 w - d6 0 1",
            "8/8/8/R2pP2k/8/8/8/4K3 w - d6 0 1",
            // Promotions that check, and a knight and bishop discovering.
            "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/4N3/8/4R3/2B5/4K3 w - - 0 1",
            // Pawns blocking a rook and a bishop, moving along their lines
            // (no check) or off them (check).
            "4k3/8/8/8/4P3/8/8/4R1K1 w - - 0 1",
            "7k/8/8/8/3p4/2P5/8/B5K1 w - - 0 1",
        ] {
            let start = position(fen);
            let lines = Checks::of(&start);
            for &m in &start.legal_moves() {
                let mut next = start.clone();
                next.play_unchecked(m);
                assert_eq!(gives_check(&start, m), next.is_check(), "{m} in {start:?}");
                assert_eq!(
                    lines.given_by(&start, m),
                    next.is_check(),
                    "{m} in {start:?}"
                );
                checks += usize::from(next.is_check());
                let next_lines = Checks::of(&next);
                for &reply in &next.legal_moves() {
                    let mut last = next.clone();
                    last.play_unchecked(reply);
                    assert_eq!(gives_check(&next, reply), last.is_check(), "{reply}");
                    assert_eq!(
                        next_lines.given_by(&next, reply),
                        last.is_check(),
                        "{reply}"
                    );
                    checks += usize::from(last.is_check());
                }
            }
        }
        assert!(checks > 80, "only {checks} checking moves seen");
    }
}
