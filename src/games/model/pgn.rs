//! Games as PGN. Chess: standard PGN (the Seven Tag Roster, `[FEN]` and
//! `[SetUp]` for a custom start, `[Termination]`), SAN or UCI movetext.
//! Xiangqi: PGN with `[Variant "xiangqi"]` and `[Game "Chinese Chess"]`, the
//! rules repetitions are judged by (`[XiangqiRules "asian"]`,
//! `"repetition_draws"` or `"asian_refusing"`), and WXF, ICCS or Chinese
//! movetext.

use std::fmt::Write as _;

use super::{Ending, GameError, GameView, Status, TimeControl};
use crate::{
    analysis::review::{Eval, Judgement, judge},
    reason::Reason,
    rules::{Game, Side, Variant, chess::Chess, xiangqi::Xiangqi},
    store::StoredRoster,
};

/// The notation of the movetext.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PgnNotation {
    /// Chess SAN, xiangqi WXF.
    #[default]
    Standard,
    /// Chess UCI, xiangqi ICCS.
    Coordinates,
    /// Xiangqi Chinese notation (not for chess).
    Chinese,
}

/// How a game is written as PGN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgnOptions {
    pub notation: PgnNotation,
    /// The evaluations and judgements of the game's stored analysis.
    pub analysis: bool,
    /// Each move's clock after it (`%clk`), in a timed game.
    pub clocks: bool,
}

/// The tag naming a xiangqi game's rules (`XiangqiRules::name`): it makes
/// the PGN replay to the same outcome when imported again.
pub const RULES_TAG: &str = "XiangqiRules";

/// Movetext lines are wrapped before this many characters.
const LINE: usize = 80;

/// The game as PGN text; with the evaluation of each of its positions
/// (`evals`, the start first), each move also has the evaluation after it
/// as a `[%eval]` comment, and a NAG when it is an inaccuracy ($6), a
/// mistake ($2) or a blunder ($4).
///
/// # Errors
///
/// [`GameError::InvalidArgument`] for Chinese notation in a chess game.
pub fn write(
    game: &GameView,
    notation: PgnNotation,
    clocks: bool,
    evals: Option<&[Eval]>,
    roster: Option<&StoredRoster>,
) -> Result<String, GameError> {
    if notation == PgnNotation::Chinese && game.variant.is_chess() {
        return Err(GameError::invalid(
            "notation",
            Reason::VariantMismatch,
            "Chinese notation exists only for xiangqi",
        ));
    }
    let result = result(game);
    let mut pgn = String::new();
    let mut tag = |name: &str, value: &str| {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(pgn, "[{name} \"{value}\"]");
    };
    // An imported game's own, unknown ones as the PGN standard writes them;
    // a game played here is Arbiter's.
    match roster {
        Some(roster) => {
            let or = |value: &Option<String>, unknown: &'static str| {
                value.clone().unwrap_or_else(|| unknown.to_owned())
            };
            tag("Event", &or(&roster.event, "?"));
            tag("Site", &or(&roster.site, "?"));
            tag("Date", &or(&roster.date, "????.??.??"));
            tag("Round", &or(&roster.round, "?"));
        }
        None => {
            tag("Event", "Arbiter game");
            tag("Site", "Arbiter");
            tag("Date", &date(game.created_at));
            tag("Round", "-");
        }
    }
    tag("White", &game.white_name);
    tag("Black", &game.black_name);
    tag("Result", result);
    tag("GameId", &game.id);
    if let (Some(white), Some(black)) = (game.white_rating, game.black_rating) {
        tag("WhiteElo", &white.before.to_string());
        tag("BlackElo", &black.before.to_string());
        tag("WhiteRatingDiff", &format!("{:+}", white.diff));
        tag("BlackRatingDiff", &format!("{:+}", black.diff));
    }
    let standard_start = match game.variant {
        Variant::Chess => {
            tag("Variant", "Standard");
            Chess::start().fen()
        }
        // Every Chess960 game names its start, as Lichess writes it.
        Variant::Chess960 => {
            tag("Variant", "Chess960");
            String::new()
        }
        Variant::Xiangqi => {
            tag("Variant", "xiangqi");
            tag("Game", "Chinese Chess");
            tag(RULES_TAG, game.rules.xiangqi.name());
            Xiangqi::start().fen()
        }
        variant => {
            tag("Variant", variant.title());
            crate::with_game!(variant, G => G::start().fen())
        }
    };
    if game.start_fen != standard_start {
        tag("SetUp", "1");
        tag("FEN", &game.start_fen);
    } else if let Some(opening) = game.opening() {
        tag("ECO", opening.eco);
        tag("Opening", opening.name);
    }
    tag("TimeControl", &time_control(game));
    tag("Termination", termination(game));
    tag("PlyCount", &game.ply.to_string());
    pgn.push('\n');
    let mut tokens = Vec::new();
    let mut number = first_move_number(&game.start_fen);
    let clocks = if clocks {
        game.clocks_after_moves()
    } else {
        Vec::new()
    };
    for (i, m) in game.moves.iter().enumerate() {
        if m.side == Side::White {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        let d = &m.description;
        tokens.push(String::from(match notation {
            PgnNotation::Standard => d.san,
            PgnNotation::Coordinates => d.uci,
            PgnNotation::Chinese => d.chinese.unwrap_or(d.san),
        }));
        let judged = evals.and_then(|evals| Some((*evals.get(i)?, *evals.get(i + 1)?)));
        if let Some(judgement) = judged.and_then(|(before, after)| judge(before, after, m.side)) {
            tokens.push(
                match judgement {
                    Judgement::Inaccuracy => "$6",
                    Judgement::Mistake => "$2",
                    Judgement::Blunder => "$4",
                }
                .to_owned(),
            );
        }
        let comments: Vec<String> = judged
            .and_then(|(_, after)| eval_text(after))
            .map(|eval| format!("[%eval {eval}]"))
            .into_iter()
            .chain(
                clocks
                    .get(i)
                    .map(|left| format!("[%clk {}]", clock_text(*left))),
            )
            .collect();
        if !comments.is_empty() {
            tokens.push(format!("{{{}}}", comments.join(" ")));
        }
        if m.side == Side::Black {
            number += 1;
        }
    }
    if game.outcome.status != Status::Ongoing {
        tokens.push(format!("{{{}}}", game.outcome.description));
    }
    tokens.push(result.to_owned());
    wrap(&mut pgn, &tokens);
    Ok(pgn)
}

/// The PGN standard's `TimeControl` value: `initial+increment` in seconds
/// (a Bronstein delay as `initial` with the delay after a `d`, as some tools
/// write it), `N/86400`-style days for correspondence, `-` for none.
fn time_control(game: &GameView) -> String {
    match game.clock.map(|c| c.control) {
        None
        | Some(TimeControl::Correspondence {
            days_per_move: None,
        }) => "-".to_owned(),
        Some(TimeControl::Correspondence {
            days_per_move: Some(days),
        }) => format!("1/{}", u64::from(days) * 86_400),
        Some(TimeControl::Clock {
            initial,
            increment,
            delay,
            ..
        }) if delay.is_zero() => format!("{}+{}", initial.as_secs(), increment.as_secs()),
        Some(TimeControl::Clock { initial, delay, .. }) => {
            format!("{}d{}", initial.as_secs(), delay.as_secs())
        }
    }
}

/// An evaluation as `%eval` writes it: pawns with two decimals, or `#` and
/// the moves to mate (negative when Black mates); none where the rules
/// ended the game.
fn eval_text(eval: Eval) -> Option<String> {
    match eval {
        Eval::Centipawns(cp) => Some(format!("{:.2}", f64::from(cp) / 100.0)),
        Eval::Mate(moves) => Some(format!("#{moves}")),
        Eval::Ended(_) => None,
    }
}

/// `H:MM:SS` (tenths dropped), as `%clk` wants.
fn clock_text(millis: i64) -> String {
    let seconds = millis.max(0) / 1000;
    format!(
        "{}:{:02}:{:02}",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// The PGN result token.
fn result(game: &GameView) -> &'static str {
    result_of(game.outcome.status, game.outcome.winner)
}

/// The PGN result of a game with this status and winner.
pub fn result_of(status: Status, winner: Option<Side>) -> &'static str {
    match (status, winner) {
        (Status::Decisive, Some(Side::White)) => "1-0",
        (Status::Decisive, Some(Side::Black)) => "0-1",
        (Status::Drawn, _) => "1/2-1/2",
        _ => "*",
    }
}

/// The PGN standard's `Termination` value.
fn termination(game: &GameView) -> &'static str {
    match (game.outcome.status, game.outcome.ending) {
        (Status::Ongoing, _) => "unterminated",
        (Status::Aborted, _) | (_, Some(Ending::Aborted | Ending::Abandoned)) => "abandoned",
        (_, Some(Ending::Timeout | Ending::TimeoutVsInsufficientMaterial)) => "time forfeit",
        _ => "normal",
    }
}

/// The first move's number: the start FEN's fullmove field.
fn first_move_number(fen: &str) -> u32 {
    fen.split_whitespace()
        .nth(5)
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

/// Unix milliseconds as a PGN date (`YYYY.MM.DD`, UTC).
fn date(millis: i64) -> String {
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let days = millis.div_euclid(86_400_000);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

fn wrap(pgn: &mut String, tokens: &[String]) {
    let mut width = 0;
    for token in tokens {
        let len = token.chars().count();
        if width > 0 && width + 1 + len >= LINE {
            pgn.push('\n');
            width = 0;
        } else if width > 0 {
            pgn.push(' ');
            width += 1;
        }
        pgn.push_str(token);
        width += len;
    }
    pgn.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_numbering() {
        assert_eq!(date(0), "1970.01.01");
        assert_eq!(date(1_796_083_200_000), "2026.12.01");
        assert_eq!(date(951_782_400_000), "2000.02.29");
        assert_eq!(eval_text(Eval::Centipawns(35)).unwrap(), "0.35");
        assert_eq!(eval_text(Eval::Centipawns(-1250)).unwrap(), "-12.50");
        assert_eq!(eval_text(Eval::Mate(-2)).unwrap(), "#-2");
        assert_eq!(eval_text(Eval::Ended(None)), None);
        assert_eq!(
            first_move_number("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7"),
            7
        );
    }
}

/// One game read from PGN text: its tags, its mainline moves (as written:
/// SAN, UCI, WXF, ICCS or Chinese; validated later by the rules) and its
/// result token.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    /// Mainline moves with the line each was found on.
    pub moves: Vec<(String, usize)>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*` (`None` when the movetext has none).
    pub result: Option<String>,
}

impl PgnGame {
    /// The value of tag `name` (case-sensitive, as PGN specifies).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// PGN text that is not one well-formed game, or more of one than the
/// reader takes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("PGN line {line}: {message}")]
pub struct PgnError {
    pub line: usize,
    pub message: String,
    /// The cap that stopped the reading, when one did.
    pub cap: Option<PgnCap>,
}

/// A cap of [`PgnLimits`] the text went past.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PgnCap {
    Moves(usize),
    Tokens(usize),
}

/// How much of a game the reader takes: it stops as soon as the text goes
/// past either, rather than reading all of it first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PgnLimits {
    /// Mainline moves.
    pub moves: usize,
    /// Tags, move numbers, moves (of variations too), NAGs, comments,
    /// variation brackets, escape lines and the result, together.
    pub tokens: usize,
}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Reads exactly one game: tag pairs, then movetext with move numbers,
/// comments (`{...}` and `;` to the end of the line), NAGs (`$1`), move
/// suffixes (`!`, `?`), recursive variations (skipped: only the mainline
/// is kept), `%` escape lines, and a result; at most `limits`.
///
/// # Errors
///
/// Malformed tags, unbalanced comments or variations, more than one game,
/// or more than `limits` (`cap` says which).
pub fn read(text: &str, limits: PgnLimits) -> Result<PgnGame, PgnError> {
    let mut game = PgnGame::default();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    let mut depth = 0usize;
    let mut at_line_start = true;
    let mut tokens = 0usize;
    let error = |line, message: &str| PgnError {
        line,
        message: message.to_owned(),
        cap: None,
    };
    let over = |line, cap| PgnError {
        line,
        message: match cap {
            PgnCap::Moves(n) => format!("more than {n} moves: ImportGame accepts at most {n}"),
            PgnCap::Tokens(n) => format!(
                "more than {n} tokens (moves, move numbers, comments, NAGs, variations): \
                 ImportGame reads at most {n}"
            ),
        },
        cap: Some(cap),
    };
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
            at_line_start = true;
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        tokens += 1;
        if tokens > limits.tokens {
            return Err(over(line, PgnCap::Tokens(limits.tokens)));
        }
        let line_start = std::mem::replace(&mut at_line_start, false);
        match c {
            '%' if line_start => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        at_line_start = true;
                        break;
                    }
                }
            }
            '[' if depth == 0 && game.moves.is_empty() && game.result.is_none() => {
                let mut raw = String::new();
                let mut in_string = false;
                loop {
                    let Some(c) = chars.next() else {
                        return Err(error(line, "unterminated tag: expected ']'"));
                    };
                    match c {
                        '\\' if in_string => {
                            if let Some(escaped) = chars.next() {
                                raw.push(escaped);
                            }
                            continue;
                        }
                        '"' => in_string = !in_string,
                        ']' if !in_string => break,
                        '\n' => return Err(error(line, "a tag must fit on one line")),
                        _ => {}
                    }
                    raw.push(c);
                }
                let (name, value) = raw
                    .split_once('"')
                    .map(|(name, rest)| (name.trim(), rest.strip_suffix('"')))
                    .ok_or_else(|| error(line, "a tag is [Name \"value\"]"))?;
                let value = value.ok_or_else(|| error(line, "a tag is [Name \"value\"]"))?;
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(error(line, "a tag name is letters, digits and '_'"));
                }
                game.tags.push((name.to_owned(), value.to_owned()));
            }
            '{' => {
                let start = line;
                loop {
                    match chars.next() {
                        None => return Err(error(start, "unterminated comment: expected '}'")),
                        Some('}') => break,
                        Some('\n') => line += 1,
                        Some(_) => {}
                    }
                }
            }
            ';' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        at_line_start = true;
                        break;
                    }
                }
            }
            '(' => depth += 1,
            ')' => {
                depth = depth
                    .checked_sub(1)
                    .ok_or_else(|| error(line, "')' without a variation to close"))?;
            }
            _ => {
                let mut token = String::from(c);
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || "{}()[];".contains(next) {
                        break;
                    }
                    token.push(next);
                    chars.next();
                }
                if depth > 0 || token.starts_with('$') {
                    continue;
                }
                if game.result.is_some() {
                    return Err(error(
                        line,
                        "one game expected, but more follows its result",
                    ));
                }
                if RESULTS.contains(&token.as_str()) {
                    game.result = Some(token);
                    continue;
                }
                // A move number ("12." / "12...") possibly glued to the move.
                let after_number = token.trim_start_matches(|c: char| c.is_ascii_digit());
                let rest = if after_number.len() < token.len() && after_number.starts_with('.') {
                    after_number.trim_start_matches('.')
                } else {
                    token.as_str()
                };
                let m = rest.trim_end_matches(['!', '?']);
                if !m.is_empty() {
                    if game.moves.len() == limits.moves {
                        return Err(over(line, PgnCap::Moves(limits.moves)));
                    }
                    game.moves.push((m.to_owned(), line));
                }
            }
        }
    }
    if depth > 0 {
        return Err(error(line, "unterminated variation: expected ')'"));
    }
    if game.tags.is_empty() && game.moves.is_empty() && game.result.is_none() {
        return Err(error(line, "no game found"));
    }
    Ok(game)
}

#[cfg(test)]
mod reader_tests {
    use super::*;

    const LIMITS: PgnLimits = PgnLimits {
        moves: 2_000,
        tokens: 20_000,
    };

    fn read(text: &str) -> Result<PgnGame, PgnError> {
        super::read(text, LIMITS)
    }

    #[test]
    fn reads_tags_mainline_and_result() {
        let text = "[Event \"A \\\"quoted\\\" event\"]\n[White \"Ann\"]\n\n% escape\n\
                    1. e4 {comment (not a variation)} e5 2.Nf3!? (2. f4 exf4 (2... d5)) 2... Nc6 $1 ; rest\n\
                    3. Bb5 a6 1-0\n";
        let game = read(text).unwrap();
        assert_eq!(game.tag("Event"), Some("A \"quoted\" event"));
        assert_eq!(game.tag("White"), Some("Ann"));
        let moves: Vec<&str> = game.moves.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(moves, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]);
        assert_eq!(game.moves[4].1, 6);
        assert_eq!(game.result.as_deref(), Some("1-0"));
        let xiangqi = read("1. C2.5 H8+7 2. 马二进三 *").unwrap();
        let moves: Vec<&str> = xiangqi.moves.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(moves, ["C2.5", "H8+7", "马二进三"]);
    }

    #[test]
    fn malformed_pgn_is_rejected_with_its_line() {
        for (text, line, needle) in [
            ("[Event \"x\"\n1. e4 *", 1, "one line"),
            ("[Event x]\n1. e4 *", 1, "[Name"),
            ("1. e4 {never closed", 1, "unterminated comment"),
            ("1. e4 (1. d4 *", 1, "unterminated variation"),
            ("1. e4 ) *", 1, "without a variation"),
            ("1. e4 e5 1-0\n\n1. d4 *", 3, "one game expected"),
            ("   \n  ", 2, "no game"),
        ] {
            let e = read(text).unwrap_err();
            assert_eq!(e.line, line, "{text:?}: {e}");
            assert!(e.message.contains(needle), "{text:?}: {e}");
        }
    }

    #[test]
    fn reading_stops_at_the_caps() {
        let limits = PgnLimits {
            moves: 3,
            tokens: 8,
        };
        // The fourth move stops the reader: what follows is never read.
        let e = super::read("1. e4 e5 2. Nf3\nNc6 {never closed", limits).unwrap_err();
        assert_eq!((e.line, e.cap), (2, Some(PgnCap::Moves(3))));
        let e = super::read("1. e4 {a} {b} {c} {d} {e} {f} {g", limits).unwrap_err();
        assert_eq!((e.line, e.cap), (1, Some(PgnCap::Tokens(8))));
        assert!(e.message.contains("at most 8"), "{e}");
        let game = super::read("[White \"A\"] 1. e4 e5 2. Nf3 *", limits).unwrap();
        assert_eq!(game.moves.len(), 3);
    }
}
