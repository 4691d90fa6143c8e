//! Why an external engine gave no answer.

use std::time::Duration;

use super::MAX_LINE;
use crate::rules::Variant;

/// What went wrong with an external engine's process; it has been killed,
/// and the next search starts another.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineFailure {
    /// The executable could not be run.
    #[error("it could not be started: {0}")]
    Start(String),
    /// It did not answer `uciok` or `readyok` in time.
    #[error("it did not answer {0} within {ms} ms", ms = .1.as_millis())]
    Handshake(&'static str, Duration),
    /// It exited, or closed its input or output.
    #[error("it exited ({0})")]
    Exited(String),
    /// It did not answer `bestmove` in time.
    #[error("it gave no bestmove within {} ms of the search's end", .0.as_millis())]
    Hung(Duration),
    /// It wrote a line past [`MAX_LINE`].
    #[error("it wrote a line longer than {MAX_LINE} bytes")]
    LineTooLong,
    /// It answered a move the rules do not allow in the position.
    #[error("it answered {0:?}, which is not a legal move in the position")]
    IllegalMove(String),
    /// It lacks an option the game needs.
    #[error("it has no option {0}, which the game needs")]
    Unsupported(&'static str),
    /// Its `UCI_Variant` does not offer the game.
    #[error("it does not play {0}: its UCI_Variant does not offer it")]
    NotPlayed(Variant),
}

/// An external engine that could not be started at start-up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot start the external {variant} engine: {failure}")]
pub struct EngineStartError {
    pub variant: Variant,
    pub failure: EngineFailure,
}
