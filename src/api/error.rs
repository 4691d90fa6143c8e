//! Domain errors to gRPC statuses, with machine-readable details
//! (`google.rpc.BadRequest` / `ErrorInfo`) via tonic-types.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::{
    analysis::AnalysisError,
    games::GameError,
    rules::{
        IllegalMove, MoveError,
        referee::{InvalidPosition, move_error_code},
    },
};

pub(super) const DOMAIN: &str = "arbiter.dev";

/// INVALID_ARGUMENT for one field.
pub fn invalid_argument(field: &str, message: impl Into<String>) -> Status {
    let message = message.into();
    Status::with_error_details(
        Code::InvalidArgument,
        format!("{field}: {message}"),
        ErrorDetails::with_bad_request(vec![FieldViolation::new(field, message)]),
    )
}

/// INVALID_ARGUMENT listing every problem of a position.
pub fn invalid_position(field: &str, err: &InvalidPosition) -> Status {
    let violations: Vec<FieldViolation> = err
        .problems
        .iter()
        .map(|p| {
            let f = match p.move_index {
                Some(i) => format!("{field}.moves[{i}]"),
                None => format!("{field}.fen"),
            };
            FieldViolation::new(f, format!("{}: {}", p.code, p.message))
        })
        .collect();
    Status::with_error_details(
        Code::InvalidArgument,
        err.to_string(),
        ErrorDetails::with_bad_request(violations),
    )
}

/// INVALID_ARGUMENT for move text that is not a move.
pub fn bad_move(field: &str, err: &MoveError) -> Status {
    let mut details =
        ErrorDetails::with_bad_request(vec![FieldViolation::new(field, err.to_string())]);
    details.set_error_info(move_error_code(err), DOMAIN, HashMap::new());
    Status::with_error_details(Code::InvalidArgument, err.to_string(), details)
}

fn illegal(err: &IllegalMove) -> Status {
    let details = ErrorDetails::with_error_info(err.reason.code(), DOMAIN, HashMap::new());
    Status::with_error_details(Code::FailedPrecondition, err.to_string(), details)
}

impl From<GameError> for Status {
    fn from(err: GameError) -> Status {
        match &err {
            GameError::NotFound(_) => Status::not_found(err.to_string()),
            GameError::InvalidArgument { field, message } => {
                invalid_argument(field, message.clone())
            }
            GameError::InvalidPosition(e) => invalid_position("position", e),
            GameError::BadMove(e) => bad_move("move", e),
            GameError::Illegal(e) => illegal(e),
            GameError::GameOver(m) => Status::with_error_details(
                Code::FailedPrecondition,
                m.clone(),
                ErrorDetails::with_error_info("GAME_OVER", DOMAIN, HashMap::new()),
            ),
            GameError::Unauthenticated(m) => Status::unauthenticated(m.clone()),
            GameError::PermissionDenied(m) => Status::permission_denied(m.clone()),
            GameError::FailedPrecondition(m) => Status::failed_precondition(m.clone()),
            GameError::Conflict { current_ply } => Status::with_error_details(
                Code::Aborted,
                err.to_string(),
                ErrorDetails::with_error_info(
                    "PLY_CONFLICT",
                    DOMAIN,
                    HashMap::from([("current_ply".to_owned(), current_ply.to_string())]),
                ),
            ),
            GameError::Corrupt(_) | GameError::Store(_) => {
                tracing::error!(error = %err, "internal error");
                Status::internal("internal error; it has been logged")
            }
        }
    }
}

impl From<AnalysisError> for Status {
    fn from(err: AnalysisError) -> Status {
        match &err {
            AnalysisError::Busy(_) => Status::with_error_details(
                Code::ResourceExhausted,
                err.to_string(),
                ErrorDetails::with_error_info("ENGINE_BUSY", DOMAIN, HashMap::new()),
            ),
            AnalysisError::Position(e) => invalid_position("position", e),
            AnalysisError::GameOver(m) => Status::with_error_details(
                Code::FailedPrecondition,
                format!("the game is already over ({m}): there is no move to search"),
                ErrorDetails::with_error_info("GAME_OVER", DOMAIN, HashMap::new()),
            ),
        }
    }
}
