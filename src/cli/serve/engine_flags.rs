//! The external-engine flags: which game an engine plays, and its options.

use std::path::PathBuf;

use crate::rules::Variant;

/// `--uci-engine`: GAME=PATH.
pub(super) fn game_engine(text: &str) -> Result<(Variant, PathBuf), String> {
    let (game, path) = text
        .split_once('=')
        .filter(|(_, path)| !path.is_empty())
        .ok_or_else(|| format!("{text:?}: expected GAME=PATH (e.g. chess=/usr/games/stockfish)"))?;
    Ok((engine_game(text, game)?, path.into()))
}

/// The game an engine flag names: chess, xiangqi or a Lichess variant
/// (Chess960 is played by the chess engine, set to it).
fn engine_game(text: &str, game: &str) -> Result<Variant, String> {
    match game.parse() {
        Ok(Variant::Chess960) => Err(format!(
            "{text:?}: Chess960 is played by the chess engine (with UCI_Chess960): name it as chess"
        )),
        Ok(variant) => Ok(variant),
        Err(e) => Err(format!("{text:?}: {e}")),
    }
}

/// `--uci-engine-option`: GAME:NAME=VALUE, a name and value that cannot
/// end the `setoption` line early or read as part of the other.
pub(super) fn engine_option(text: &str) -> Result<(Variant, String, String), String> {
    let bad = || format!("{text:?}: expected GAME:NAME=VALUE (e.g. xiangqi:Threads=1)");
    let (game, option) = text.split_once(':').ok_or_else(bad)?;
    let (name, value) = option.split_once('=').ok_or_else(bad)?;
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || name.contains(" value ") {
        return Err(bad());
    }
    if text.chars().any(char::is_control) {
        return Err(format!("{text:?}: an option holds no control characters"));
    }
    Ok((engine_game(text, game)?, name.to_owned(), value.to_owned()))
}
