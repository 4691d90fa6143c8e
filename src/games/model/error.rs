use std::fmt;

use crate::{
    reason::Reason,
    rules::{IllegalMove, MoveError, Quoted, referee::InvalidPosition},
    store::{GameNotFound, StoreError},
};

/// Everything a games or positions request can fail with. The API maps each
/// variant to one gRPC status; a [`Refusal`]'s code is its reason's (the
/// variant names the class for callers in the domain).
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("{0}")]
    NotFound(Refusal),
    /// `field` is wrong for `reason`; `problem` is the field violation's
    /// own reason (the move's in a PGN, or `reason`'s).
    #[error("{field}: {message}")]
    InvalidArgument {
        field: &'static str,
        reason: Reason,
        problem: &'static str,
        message: String,
    },
    /// `field` goes past a cap of the service; the API names the cap
    /// (`limit`, e.g. `limit_moves`, with its `value`) in the `ErrorInfo`.
    #[error("{field}: {message}")]
    OverLimit {
        field: &'static str,
        reason: Reason,
        limit: &'static str,
        value: usize,
        message: String,
    },
    /// The position the request's `field` gives (a FEN, or a board) is
    /// not one.
    #[error("{error}")]
    InvalidPosition {
        field: &'static str,
        error: InvalidPosition,
    },
    #[error(transparent)]
    BadMove(MoveError),
    #[error(transparent)]
    Illegal(IllegalMove),
    #[error("{0}")]
    GameOver(String),
    #[error("{0}")]
    Unauthenticated(Refusal),
    #[error("{0}")]
    PermissionDenied(Refusal),
    #[error("{0}")]
    FailedPrecondition(Refusal),
    #[error("{0}")]
    AlreadyExists(Refusal),
    #[error("this game has {limit} watchers, the most it may have; try again later")]
    TooManyWatchers { limit: usize },
    /// A watch resumed after a version the game has not reached.
    #[error(
        "from_version {asked} is newer than the game's version {current}: resume from the \
         version of the last message received"
    )]
    VersionAhead { asked: i64, current: i64 },
    #[error("the game has moved on: it is at ply {current_ply}")]
    Conflict { current_ply: u32 },
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a request was refused: a stable reason for programs (the API sends
/// it as `google.rpc.ErrorInfo.reason`) and a sentence for people.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub reason: Reason,
    pub message: String,
}

impl Refusal {
    pub fn new(reason: Reason, message: impl Into<String>) -> Refusal {
        Refusal {
            reason,
            message: message.into(),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl GameError {
    /// No game has the id `id`.
    pub fn game_not_found(id: &str) -> GameError {
        GameError::NotFound(Refusal::new(
            Reason::GameNotFound,
            format!("game {} not found", Quoted(id)),
        ))
    }

    /// No saved position has the id `id`.
    pub fn position_not_found(id: &str) -> GameError {
        GameError::NotFound(Refusal::new(
            Reason::PositionNotFound,
            format!("position {} not found", Quoted(id)),
        ))
    }

    /// FAILED_PRECONDITION for `reason`, explained by `message`.
    pub(crate) fn precondition(reason: Reason, message: impl Into<String>) -> GameError {
        GameError::FailedPrecondition(Refusal::new(reason, message))
    }

    /// INVALID_ARGUMENT of `field` for `reason`, explained by `message`.
    pub(crate) fn invalid(
        field: &'static str,
        reason: Reason,
        message: impl Into<String>,
    ) -> GameError {
        GameError::invalid_for(field, reason, reason.as_str(), message)
    }

    /// [`GameError::invalid`] whose field violation has a reason of its
    /// own, `problem`.
    pub(crate) fn invalid_for(
        field: &'static str,
        reason: Reason,
        problem: &'static str,
        message: impl Into<String>,
    ) -> GameError {
        GameError::InvalidArgument {
            field,
            reason,
            problem,
            message: message.into(),
        }
    }
}

impl From<GameNotFound> for GameError {
    fn from(GameNotFound(id): GameNotFound) -> GameError {
        GameError::game_not_found(&id)
    }
}
