//! Move text in (ICCS, WXF, Chinese) and out (all three).
//!
//! - **ICCS** coordinates, canonical in and out: `h2e2` (also `H2-E2`). Ranks
//!   are 0-9 from Red's side. Fairy-Stockfish and pyffish write ranks 1-10
//!   (`h3e3` for the same move); that form is *not* read, since `h3e3` is
//!   also a different, valid ICCS move and guessing would be wrong.
//! - **WXF** (wxf.org): piece letter `K A E H R C P` (`B`/`N` read too),
//!   origin file 1-9 counted from the mover's right, `+` forward, `-`
//!   backward, `.` sideways (`=` read too), then the destination file or the
//!   number of steps: `C2.5`, `H8+7`, `R9+1`. Tandem pieces on one file use
//!   `+`/`-` for the origin (`R+.3`, `C--1`); the WXF pawn forms are
//!   supported: with 3 pawns on a file the middle one uses its file (`P3.4`),
//!   with 4-5 the outermost are `++`/`--` (`++.4`), and with tandems on two
//!   files the first character is the file (`3+.4`, `7-.6`). pyffish's
//!   numbered forms are read as it writes them: the soldier's place from the
//!   front, then its file (`27.8`: the second soldier of file 7). Two equal
//!   digits (`33.4`) are read only where wxf.org's meaning (the middle
//!   soldier of file 3) and pyffish's (the third from the front) are the
//!   same soldier; otherwise the text is refused as ambiguous. The middle
//!   one of three is written `23.4`, which both read alike.
//! - **Chinese**: piece + file + 进/退/平 + number: `炮二平五`, `马8进7`. Red's
//!   numbers are written 一..九 and Black's as ASCII digits 1-9; on input any
//!   of 一..九, 1-9 and full-width １-９ is read for either side, and the
//!   traditional characters (車馬砲俥傌帥將進後 ...) too. Tandems: 前/后
//!   (and 中 for the middle of three), before or after the piece name (`前车平三`,
//!   `车前平三`); 4-5 soldiers on a file are numbered 一..五 from the front
//!   (`二兵平四`); with tandems on two files the file follows the position
//!   word instead of the piece name (`前三平四`).
//!
//! Advisors and elephants never use tandem forms: the direction already
//! tells which of two on a file moves.

use super::{
    Xiangqi,
    attacks::{file_mask, forward},
    explain,
    moves::{Move, MoveList},
    piece::{Kind, side_name},
    square::Square,
};
use crate::rules::{IllegalMove, IllegalReason, MoveDescription, MoveError, Side};

const EXPECTED: &str =
    "ICCS coordinates (h2e2), WXF (C2.5, H8+7, R+.3) or Chinese notation (炮二平五, 马8进7)";

/// Longest move text worth reading.
const MAX_MOVE_TEXT: usize = 32;

/// Which way a move goes, from the mover's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Forward,
    Backward,
    Sideways,
}

/// Which of several same-kind pieces on one file moves, front to back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tandem {
    /// 前: the front one.
    Front,
    /// 后: the rear one.
    Rear,
    /// 中: the middle one of three (or five).
    Middle,
    /// 一..五: the n-th from the front (1-based).
    Ordinal(u8),
    /// WXF `+`: the front one, or the second of four or five.
    WxfPlus,
    /// WXF `-`: the rear one, or the second-rearmost of four or five.
    WxfMinus,
    /// WXF `++`: the foremost of four or five.
    Foremost,
    /// WXF `--`: the rearmost of four or five.
    Rearmost,
}

impl Tandem {
    /// The index (from the front) among `n` pieces.
    fn select(self, n: usize) -> Option<usize> {
        let index = match self {
            Tandem::Front | Tandem::Foremost => 0,
            Tandem::Rear | Tandem::Rearmost => n.checked_sub(1)?,
            Tandem::Middle => {
                if n.is_multiple_of(2) {
                    return None;
                }
                n / 2
            }
            Tandem::Ordinal(k) => usize::from(k).checked_sub(1)?,
            Tandem::WxfPlus => usize::from(n >= 4),
            Tandem::WxfMinus => n.checked_sub(if n >= 4 { 2 } else { 1 })?,
        };
        (n >= 2 && index < n).then_some(index)
    }
}

/// Which piece moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// The piece on this file (mover's numbering 1-9).
    File(u8),
    /// One of the tandem pieces on their (only) file.
    Tandem(Tandem),
    /// One of the tandem soldiers on this file (when two files have them).
    FileTandem(u8, Tandem),
}

/// A move in WXF or Chinese terms, before it is matched to the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Description {
    kind: Kind,
    origin: Origin,
    /// Another reading of the same text: two equal digits (`33`) are the
    /// third soldier from the front of file 3 for pyffish, and, where two
    /// files hold tandem soldiers (the only place wxf.org starts with a
    /// digit), the middle one of file 3 for wxf.org. The text is read only
    /// where both name the same soldier.
    or_else: Option<Origin>,
    direction: Direction,
    number: u8,
}

/// File index (0 = a) to the mover's file number (1 = the mover's right).
const fn file_number(side: Side, file: u8) -> u8 {
    match side {
        Side::White => 9 - file,
        Side::Black => file + 1,
    }
}

/// The mover's file number back to a file index.
const fn file_index(side: Side, number: u8) -> u8 {
    match side {
        Side::White => 9 - number,
        Side::Black => number - 1,
    }
}

/// Does this kind move diagonally (so the number is always a file)?
const fn diagonal(kind: Kind) -> bool {
    matches!(kind, Kind::Advisor | Kind::Elephant | Kind::Horse)
}

/// The mover's same-kind pieces on `file`, front to back.
fn file_mates(pos: &Xiangqi, side: Side, kind: Kind, file: u8) -> Vec<Square> {
    let mut mates: Vec<Square> = pos
        .pieces_of(side, kind)
        .into_iter()
        .filter(|sq| sq.file() == file)
        .collect();
    if forward(side) > 0 {
        mates.reverse();
    }
    mates
}

/// How many of `side`'s pieces of `kind` stand on `file` (what
/// [`file_mates`] lists, counted without a list: describing the legal moves
/// asks this for every move).
fn file_count(pos: &Xiangqi, side: Side, kind: Kind, file: u8) -> usize {
    (pos.pieces_of(side, kind) & file_mask(file)).count() as usize
}

/// Files holding two or more of the mover's soldiers.
fn tandem_soldier_files(pos: &Xiangqi, side: Side) -> usize {
    (0..Square::FILES)
        .filter(|&f| file_count(pos, side, Kind::Soldier, f) >= 2)
        .count()
}

/// Reads ICCS, WXF or Chinese move text, resolving it against `pos`.
pub(super) fn parse(pos: &Xiangqi, text: &str) -> Result<Move, MoveError> {
    let text = text.trim();
    let unparsable = || MoveError::Unparsable {
        text: text.to_owned(),
        expected: EXPECTED,
    };
    if text.is_empty() || text.len() > MAX_MOVE_TEXT {
        return Err(unparsable());
    }
    if let Some((from, to)) = iccs(text) {
        return explain::coordinates(pos, from, to).map_err(MoveError::from);
    }
    let description = if text.is_ascii() {
        wxf(text)
    } else {
        chinese(text)
    }
    .ok_or_else(unparsable)?;
    resolve(pos, description, text)
}

/// `h2e2`, `H2-E2`.
fn iccs(text: &str) -> Option<(Square, Square)> {
    let to = match text.as_bytes() {
        [_, _, b'-', _, _] => 3,
        _ => 2,
    };
    Some((
        Square::from_iccs(text.get(..2)?)?,
        Square::from_iccs(text.get(to..)?)?,
    ))
}

fn wxf_kind(c: char) -> Option<Kind> {
    match c.to_ascii_uppercase() {
        'K' => Some(Kind::General),
        'A' => Some(Kind::Advisor),
        'E' | 'B' => Some(Kind::Elephant),
        'H' | 'N' => Some(Kind::Horse),
        'R' => Some(Kind::Chariot),
        'C' => Some(Kind::Cannon),
        'P' => Some(Kind::Soldier),
        _ => None,
    }
}

fn wxf_digit(c: char) -> Option<u8> {
    c.to_digit(10)
        .and_then(|d| u8::try_from(d).ok())
        .filter(|d| (1..=9).contains(d))
}

fn wxf_direction(c: char) -> Option<Direction> {
    match c {
        '+' => Some(Direction::Forward),
        '-' => Some(Direction::Backward),
        '.' | '=' => Some(Direction::Sideways),
        _ => None,
    }
}

/// `C2.5`, `R+.3`, `++.4`, `3-.4`, `+R.3`, `27.8`.
fn wxf(text: &str) -> Option<Description> {
    let chars: Vec<char> = text.chars().collect();
    let &[a, b, dir, number] = chars.as_slice() else {
        return None;
    };
    let plus_minus = |c: char| match c {
        '+' => Some(Tandem::WxfPlus),
        '-' => Some(Tandem::WxfMinus),
        _ => None,
    };
    let mut or_else = None;
    let (kind, origin) = if let Some(kind) = wxf_kind(a) {
        let origin = match (wxf_digit(b), plus_minus(b)) {
            (Some(file), _) => Origin::File(file),
            (_, Some(tandem)) => Origin::Tandem(tandem),
            _ => return None,
        };
        (kind, origin)
    } else if let (Some(tandem), Some(kind)) = (plus_minus(a), wxf_kind(b)) {
        (kind, Origin::Tandem(tandem))
    } else if let Some(first) = wxf_digit(a) {
        let origin = match (plus_minus(b), wxf_digit(b)) {
            (Some(Tandem::WxfPlus), _) => Origin::FileTandem(first, Tandem::Front),
            (Some(_), _) => Origin::FileTandem(first, Tandem::Rear),
            (_, Some(file)) if file == first => {
                or_else = Some(Origin::FileTandem(file, Tandem::Middle));
                Origin::FileTandem(file, Tandem::Ordinal(file))
            }
            // pyffish: the soldier's place from the front, then its file.
            (_, Some(file)) if first <= 5 => Origin::FileTandem(file, Tandem::Ordinal(first)),
            _ => return None,
        };
        (Kind::Soldier, origin)
    } else {
        match (a, b) {
            ('+', '+') => (Kind::Soldier, Origin::Tandem(Tandem::Foremost)),
            ('-', '-') => (Kind::Soldier, Origin::Tandem(Tandem::Rearmost)),
            _ => return None,
        }
    };
    Some(Description {
        kind,
        origin,
        or_else,
        direction: wxf_direction(dir)?,
        number: wxf_digit(number)?,
    })
}

/// One character of Chinese notation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Token {
    Piece(Kind),
    Number(u8),
    Position(Tandem),
    Direction(Direction),
}

fn chinese_token(c: char) -> Option<Token> {
    let token = match c {
        '帅' | '帥' | '将' | '將' => Token::Piece(Kind::General),
        '仕' | '士' => Token::Piece(Kind::Advisor),
        '相' | '象' => Token::Piece(Kind::Elephant),
        '马' | '馬' | '傌' | '㐷' => Token::Piece(Kind::Horse),
        '车' | '車' | '俥' | '伡' => Token::Piece(Kind::Chariot),
        '炮' | '砲' | '包' => Token::Piece(Kind::Cannon),
        '兵' | '卒' => Token::Piece(Kind::Soldier),
        '前' => Token::Position(Tandem::Front),
        '后' | '後' => Token::Position(Tandem::Rear),
        '中' => Token::Position(Tandem::Middle),
        '进' | '進' => Token::Direction(Direction::Forward),
        '退' => Token::Direction(Direction::Backward),
        '平' => Token::Direction(Direction::Sideways),
        '１'..='９' => Token::Number((u32::from(c) - u32::from('０')) as u8),
        _ => {
            let n = CHINESE_NUMERALS
                .iter()
                .position(|&x| x == c)
                .map(|i| i as u8 + 1)
                .or_else(|| wxf_digit(c))?;
            Token::Number(n)
        }
    };
    Some(token)
}

const CHINESE_NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// `炮二平五`, `前车平三`, `车前平三`, `二兵平四`, `前三平四`.
fn chinese(text: &str) -> Option<Description> {
    let tokens: Vec<Token> = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(chinese_token)
        .collect::<Option<_>>()?;
    let &[a, b, Token::Direction(direction), Token::Number(number)] = tokens.as_slice() else {
        return None;
    };
    let (kind, origin) = match (a, b) {
        (Token::Piece(kind), Token::Number(file)) => (kind, Origin::File(file)),
        (Token::Position(tandem), Token::Piece(kind))
        | (Token::Piece(kind), Token::Position(tandem)) => (kind, Origin::Tandem(tandem)),
        (Token::Number(n), Token::Piece(kind)) if n <= 5 => {
            (kind, Origin::Tandem(Tandem::Ordinal(n)))
        }
        (Token::Position(tandem), Token::Number(file)) => {
            (Kind::Soldier, Origin::FileTandem(file, tandem))
        }
        _ => return None,
    };
    Some(Description {
        kind,
        origin,
        or_else: None,
        direction,
        number,
    })
}

/// The point a piece on `from` reaches by moving as described.
fn destination(
    side: Side,
    kind: Kind,
    from: Square,
    direction: Direction,
    number: u8,
) -> Option<(Square, Square)> {
    let ahead = forward(side);
    let sign = match direction {
        Direction::Forward => ahead,
        Direction::Backward => -ahead,
        Direction::Sideways => 0,
    };
    if !(1..=9).contains(&number) {
        return None;
    }
    if diagonal(kind) {
        let file = file_index(side, number);
        let df = (file as i8 - from.file() as i8).abs();
        let dr = match (kind, df) {
            (Kind::Advisor, 1) | (Kind::Horse, 2) => 1,
            (Kind::Elephant, 2) => 2,
            (Kind::Horse, 1) => 2,
            _ => return None,
        };
        if sign == 0 {
            return None;
        }
        from.offset(file as i8 - from.file() as i8, sign * dr)
    } else if sign == 0 {
        Square::new(file_index(side, number), from.rank()).filter(|&to| to != from)
    } else {
        from.offset(0, sign * number as i8)
    }
    .map(|to| (from, to))
}

/// The mover's pieces the description can mean.
fn origins(pos: &Xiangqi, kind: Kind, origin: Origin) -> Vec<Square> {
    let side = pos.turn;
    let pick = |file: u8, tandem: Tandem| {
        let mates = file_mates(pos, side, kind, file);
        tandem.select(mates.len()).map(|i| mates[i])
    };
    match origin {
        Origin::File(number) => {
            let mates = file_mates(pos, side, kind, file_index(side, number));
            // WXF: the middle one of three or five soldiers is named by file.
            if kind == Kind::Soldier && mates.len() % 2 == 1 && mates.len() >= 3 {
                vec![mates[mates.len() / 2]]
            } else {
                mates
            }
        }
        Origin::Tandem(tandem) => (0..Square::FILES)
            .filter_map(|file| pick(file, tandem))
            .collect(),
        Origin::FileTandem(number, tandem) => {
            pick(file_index(side, number), tandem).into_iter().collect()
        }
    }
}

/// Finds the one legal move a WXF or Chinese description names.
fn resolve(pos: &Xiangqi, d: Description, text: &str) -> Result<Move, MoveError> {
    let side = pos.turn;
    let or_else = d.or_else.filter(|_| tandem_soldier_files(pos, side) >= 2);
    let mut from = origins(pos, d.kind, d.origin);
    for other in or_else
        .map(|other| origins(pos, d.kind, other))
        .unwrap_or_default()
    {
        if !from.contains(&other) {
            from.push(other);
        }
    }
    let described: Vec<(Square, Square)> = from
        .into_iter()
        .filter_map(|from| destination(side, d.kind, from, d.direction, d.number))
        .collect();
    if or_else.is_some() && described.len() > 1 {
        // Two notations, two soldiers: whichever is legal, the writer may
        // have meant the other.
        return Err(MoveError::Ambiguous {
            text: text.to_owned(),
            candidates: described
                .iter()
                .map(|&(from, to)| Move::new(from, to).to_string())
                .collect(),
        });
    }
    let attempts: Vec<Result<Move, IllegalMove>> = described
        .into_iter()
        .map(|(from, to)| explain::coordinates(pos, from, to))
        .collect();
    let legal: Vec<Move> = attempts.iter().filter_map(|a| a.clone().ok()).collect();
    match legal[..] {
        [m] => Ok(m),
        [] => Err(attempts
            .into_iter()
            .find_map(Result::err)
            .unwrap_or_else(|| {
                IllegalMove::new(
                    IllegalReason::NoPieceCanReach,
                    format!(
                        "{text:?}: no {} {} can make this move",
                        side_name(side),
                        d.kind.name()
                    ),
                )
            })
            .into()),
        _ => Err(MoveError::Ambiguous {
            text: text.to_owned(),
            candidates: legal.iter().map(ToString::to_string).collect(),
        }),
    }
}

/// The direction and number of a move in the mover's terms.
fn direction_and_number(side: Side, kind: Kind, from: Square, to: Square) -> (Direction, u8) {
    let dr = (to.rank() as i8 - from.rank() as i8) * forward(side);
    let direction = match dr {
        0 => Direction::Sideways,
        d if d > 0 => Direction::Forward,
        _ => Direction::Backward,
    };
    let number = if diagonal(kind) || direction == Direction::Sideways {
        file_number(side, to.file())
    } else {
        dr.unsigned_abs()
    };
    (direction, number)
}

/// How the origin of a move is written; `n` is the number of the mover's
/// pieces of `kind` on its file.
fn origin_of(pos: &Xiangqi, kind: Kind, from: Square, n: usize) -> Origin {
    let side = pos.turn;
    let file = file_number(side, from.file());
    if matches!(kind, Kind::General | Kind::Advisor | Kind::Elephant) {
        return Origin::File(file);
    }
    if n < 2 {
        return Origin::File(file);
    }
    let mates = file_mates(pos, side, kind, from.file());
    let index = mates.iter().position(|&sq| sq == from).unwrap_or(0);
    let two_files = kind == Kind::Soldier && tandem_soldier_files(pos, side) >= 2;
    let tandem = match (n, index) {
        (_, 0) if n <= 3 => Tandem::Front,
        (_, i) if i == n - 1 && n <= 3 => Tandem::Rear,
        (3, _) => Tandem::Middle,
        _ => Tandem::Ordinal(index as u8 + 1),
    };
    if two_files {
        Origin::FileTandem(file, tandem)
    } else {
        Origin::Tandem(tandem)
    }
}

fn wxf_letter(kind: Kind) -> char {
    match kind {
        Kind::General => 'K',
        Kind::Advisor => 'A',
        Kind::Elephant => 'E',
        Kind::Horse => 'H',
        Kind::Chariot => 'R',
        Kind::Cannon => 'C',
        Kind::Soldier => 'P',
    }
}

/// The first two characters of WXF, which name the piece and its origin;
/// `file` is the origin's file number, `n` the number of same-kind pieces
/// on it.
fn wxf_origin(kind: Kind, origin: Origin, file: u8, n: usize) -> [char; 2] {
    let letter = wxf_letter(kind);
    let file = digit(file);
    match origin {
        Origin::File(_) | Origin::Tandem(Tandem::Middle) => [letter, file],
        Origin::FileTandem(_, Tandem::Front) => [file, '+'],
        Origin::FileTandem(_, Tandem::Rear) => [file, '-'],
        // The middle one of three as its place from the front (`23.4`), which
        // both wxf.org's `33.4` reading and pyffish's numbered form agree on.
        Origin::FileTandem(..) => ['2', file],
        Origin::Tandem(Tandem::Front) => [letter, '+'],
        Origin::Tandem(Tandem::Ordinal(1)) => ['+', '+'],
        Origin::Tandem(Tandem::Ordinal(k)) if usize::from(k) == n => ['-', '-'],
        Origin::Tandem(Tandem::Ordinal(2)) => [letter, '+'],
        Origin::Tandem(Tandem::Ordinal(k)) if usize::from(k) == n - 1 => [letter, '-'],
        // The middle one of five is written with its file.
        Origin::Tandem(Tandem::Ordinal(_)) => [letter, file],
        Origin::Tandem(_) => [letter, '-'],
    }
}

/// A file number or distance (1-9) as its digit.
fn digit(n: u8) -> char {
    char::from(b'0' + n.min(9))
}

const fn chinese_piece(side: Side, kind: Kind) -> char {
    match (side, kind) {
        (Side::White, Kind::General) => '帅',
        (Side::Black, Kind::General) => '将',
        (_, Kind::Advisor) => '士',
        (Side::White, Kind::Elephant) => '相',
        (Side::Black, Kind::Elephant) => '象',
        (_, Kind::Horse) => '马',
        (_, Kind::Chariot) => '车',
        (_, Kind::Cannon) => '炮',
        (Side::White, Kind::Soldier) => '兵',
        (Side::Black, Kind::Soldier) => '卒',
    }
}

fn chinese_number(side: Side, n: u8) -> char {
    match side {
        Side::White => CHINESE_NUMERALS[usize::from(n.clamp(1, 9) - 1)],
        Side::Black => digit(n),
    }
}

/// The first two characters of Chinese notation, which name the piece and
/// its origin.
fn chinese_origin(side: Side, kind: Kind, origin: Origin) -> [char; 2] {
    let piece = chinese_piece(side, kind);
    let position = |tandem: Tandem| match tandem {
        Tandem::Front => '前',
        Tandem::Rear => '后',
        Tandem::Ordinal(k) => CHINESE_NUMERALS[usize::from(k.clamp(1, 5) - 1)],
        _ => '中',
    };
    match origin {
        Origin::File(file) => [piece, chinese_number(side, file)],
        Origin::Tandem(tandem) => [position(tandem), piece],
        Origin::FileTandem(file, tandem) => [position(tandem), chinese_number(side, file)],
    }
}

/// What the notations of a move say about the piece that makes it: the
/// same for every move of one piece, so describing every legal move works
/// it out once per piece ([`describe_each`]).
struct Mover {
    from: Square,
    kind: Kind,
    /// The piece as a FEN letter.
    letter: char,
    /// WXF's first two characters.
    wxf: [char; 2],
    /// Chinese notation's first two characters.
    chinese: [char; 2],
}

impl Mover {
    fn on(pos: &Xiangqi, from: Square) -> Mover {
        let side = pos.turn;
        let piece = pos.piece_at(from);
        let kind = piece.map_or(Kind::Soldier, |p| p.kind);
        let n = file_count(pos, side, kind, from.file());
        let origin = origin_of(pos, kind, from, n);
        Mover {
            from,
            kind,
            letter: piece.map_or('?', |p| p.fen_char()),
            wxf: wxf_origin(kind, origin, file_number(side, from.file()), n),
            chinese: chinese_origin(side, kind, origin),
        }
    }
}

/// Writes the move in every notation over `d`.
pub(super) fn describe_into(pos: &Xiangqi, m: Move, d: &mut MoveDescription) {
    describe_as(pos, &Mover::on(pos, m.from()), m, d);
}

/// Every move of `legal` (all the legal moves of `pos`) in every notation,
/// to `each`. The generator lists a piece's moves together, so the piece's
/// part of the notations is worked out when the origin changes.
pub(super) fn describe_each(
    pos: &Xiangqi,
    legal: &MoveList,
    mut each: impl FnMut(&MoveDescription),
) {
    let mut d = MoveDescription::default();
    let mut mover: Option<Mover> = None;
    for &m in legal.iter() {
        let mover = match mover {
            Some(ref mover) if mover.from == m.from() => mover,
            _ => mover.insert(Mover::on(pos, m.from())),
        };
        describe_as(pos, mover, m, &mut d);
        each(&d);
    }
}

fn describe_as(pos: &Xiangqi, mover: &Mover, m: Move, d: &mut MoveDescription) {
    let side = pos.turn;
    let (from, to) = (m.from(), m.to());
    let (direction, number) = direction_and_number(side, mover.kind, from, to);
    let [w1, w2] = mover.wxf;
    let [c1, c2] = mover.chinese;
    d.clear_texts();
    m.push_iccs(&mut d.uci);
    let (dir, dir_chinese) = match direction {
        Direction::Forward => ('+', '进'),
        Direction::Backward => ('-', '退'),
        Direction::Sideways => ('.', '平'),
    };
    // Built char by char: LegalMoves writes one per legal move.
    d.san.extend([w1, w2, dir, digit(number)]);
    let chinese = d.chinese.get_or_insert_default();
    chinese.extend([c1, c2, dir_chinese, chinese_number(side, number)]);
    from.push_name(&mut d.from);
    to.push_name(&mut d.to);
    d.piece = mover.letter;
    d.captured = pos
        .piece_at(to)
        .filter(|p| p.side != side)
        .map(|p| p.fen_char());
    d.promotion = None;
    d.is_check = pos.gives_check(m);
    d.is_castling = false;
    d.is_en_passant = false;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Game;

    #[test]
    fn describing_the_list_equals_describing_each_move() {
        let mut moves = 0;
        super::super::along_random_games(|pos, _| {
            let legal = pos.legal_moves();
            let mut expected = legal.iter().map(|&m| pos.describe(m));
            describe_each(pos, &legal, |d| {
                assert_eq!(Some(d), expected.next().as_ref(), "at {}", pos.fen());
                moves += 1;
            });
            assert!(expected.next().is_none());
        });
        assert!(moves > 50_000, "{moves} moves described");
    }
}
