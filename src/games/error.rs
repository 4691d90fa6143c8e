use crate::{
    rules::{IllegalMove, MoveError, referee::InvalidPosition},
    store::{GameNotFound, StoreError},
};

/// Everything a games or positions request can fail with. The API maps each
/// variant to one gRPC status.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    #[error("{0} not found")]
    NotFound(String),
    #[error("{field}: {message}")]
    InvalidArgument {
        field: &'static str,
        message: String,
    },
    #[error(transparent)]
    InvalidPosition(#[from] InvalidPosition),
    #[error(transparent)]
    BadMove(MoveError),
    #[error(transparent)]
    Illegal(IllegalMove),
    #[error("{0}")]
    GameOver(String),
    #[error("{0}")]
    Unauthenticated(String),
    #[error("{0}")]
    PermissionDenied(String),
    #[error("{0}")]
    FailedPrecondition(String),
    #[error("the game has moved on: it is at ply {current_ply}")]
    Conflict { current_ply: u32 },
    #[error("stored data is inconsistent: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<GameNotFound> for GameError {
    fn from(_: GameNotFound) -> GameError {
        GameError::NotFound("game".to_owned())
    }
}
