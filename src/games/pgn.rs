//! Games as PGN. Chess: standard PGN (the Seven Tag Roster, `[FEN]` and
//! `[SetUp]` for a custom start, `[Termination]`), SAN or UCI movetext.
//! Xiangqi: PGN with `[Variant "xiangqi"]` and `[Game "Chinese Chess"]`, and
//! WXF, ICCS or Chinese movetext.

use std::fmt::Write as _;

use super::{Ending, GameError, GameView, Status};
use crate::rules::{Game, Side, Variant, chess::Chess, xiangqi::Xiangqi};

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

/// Movetext lines are wrapped before this many characters.
const LINE: usize = 80;

/// The game as PGN text.
///
/// # Errors
///
/// [`GameError::InvalidArgument`] for Chinese notation in a chess game.
pub fn write(game: &GameView, notation: PgnNotation) -> Result<String, GameError> {
    if notation == PgnNotation::Chinese && game.variant == Variant::Chess {
        return Err(GameError::InvalidArgument {
            field: "notation",
            message: "Chinese notation exists only for xiangqi".to_owned(),
        });
    }
    let result = result(game);
    let mut pgn = String::new();
    let mut tag = |name: &str, value: &str| {
        let value = value.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(pgn, "[{name} \"{value}\"]");
    };
    tag("Event", "Arbiter game");
    tag("Site", "Arbiter");
    tag("Date", &date(game.created_at));
    tag("Round", "-");
    tag("White", &game.white_name);
    tag("Black", &game.black_name);
    tag("Result", result);
    tag("GameId", &game.id);
    let standard_start = match game.variant {
        Variant::Chess => Chess::start().fen(),
        Variant::Xiangqi => {
            tag("Variant", "xiangqi");
            tag("Game", "Chinese Chess");
            Xiangqi::start().fen()
        }
    };
    if game.start_fen != standard_start {
        tag("SetUp", "1");
        tag("FEN", &game.start_fen);
    }
    tag("Termination", termination(game));
    tag("PlyCount", &game.ply.to_string());
    pgn.push('\n');
    let mut tokens = Vec::new();
    let mut number = first_move_number(&game.start_fen);
    for (i, m) in game.moves.iter().enumerate() {
        if m.side == Side::White {
            tokens.push(format!("{number}."));
        } else if i == 0 {
            tokens.push(format!("{number}..."));
        }
        let d = &m.description;
        tokens.push(match notation {
            PgnNotation::Standard => d.san.clone(),
            PgnNotation::Coordinates => d.uci.clone(),
            PgnNotation::Chinese => d.chinese.clone().unwrap_or_else(|| d.san.clone()),
        });
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

/// The PGN result token.
fn result(game: &GameView) -> &'static str {
    match (game.outcome.status, game.outcome.winner) {
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
        (Status::Aborted, _) | (_, Some(Ending::Aborted)) => "abandoned",
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
        assert_eq!(
            first_move_number("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 7"),
            7
        );
    }
}
