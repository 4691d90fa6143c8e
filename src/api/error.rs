//! Domain errors to gRPC statuses, with machine-readable details
//! (`google.rpc.BadRequest` / `ErrorInfo`) via tonic-types.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::{
    analysis::AnalysisError,
    games::{GameError, Refusal},
    rules::{
        MoveError,
        referee::{InvalidPosition, move_error_code},
    },
    store::StoreError,
    telemetry::Clipped,
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

/// `code` with `message`, and `reason` as its `ErrorInfo`.
fn with_reason(code: Code, message: String, reason: &str) -> Status {
    let details = ErrorDetails::with_error_info(reason, DOMAIN, HashMap::new());
    Status::with_error_details(code, message, details)
}

fn refused(code: Code, refusal: &Refusal) -> Status {
    with_reason(code, refusal.message.clone(), refusal.reason)
}

impl From<GameError> for Status {
    fn from(err: GameError) -> Status {
        match &err {
            GameError::NotFound(r) => refused(Code::NotFound, r),
            GameError::InvalidArgument { field, message } => {
                invalid_argument(field, message.clone())
            }
            GameError::OverLimit {
                field,
                reason,
                limit,
                value,
                message,
            } => {
                let mut details = ErrorDetails::with_bad_request(vec![FieldViolation::new(
                    *field,
                    message.clone(),
                )]);
                let metadata = HashMap::from([((*limit).to_owned(), value.to_string())]);
                details.set_error_info(*reason, DOMAIN, metadata);
                Status::with_error_details(Code::InvalidArgument, err.to_string(), details)
            }
            GameError::InvalidPosition(e) => invalid_position("position", e),
            GameError::BadMove(e) => bad_move("move", e),
            GameError::Illegal(e) => {
                with_reason(Code::FailedPrecondition, e.to_string(), e.reason.code())
            }
            GameError::GameOver(m) => with_reason(Code::FailedPrecondition, m.clone(), "GAME_OVER"),
            GameError::Unauthenticated(r) => refused(Code::Unauthenticated, r),
            GameError::PermissionDenied(r) => refused(Code::PermissionDenied, r),
            GameError::FailedPrecondition(r) => refused(Code::FailedPrecondition, r),
            GameError::Conflict { current_ply } => Status::with_error_details(
                Code::Aborted,
                err.to_string(),
                ErrorDetails::with_error_info(
                    "PLY_CONFLICT",
                    DOMAIN,
                    HashMap::from([("current_ply".to_owned(), current_ply.to_string())]),
                ),
            ),
            GameError::Store(StoreError::Unavailable(e)) => {
                tracing::warn!(error = %e, "store unavailable");
                store_unavailable()
            }
            GameError::Corrupt(_) | GameError::Store(_) => {
                tracing::error!(error = %Clipped(&err.to_string()), "internal error");
                Status::internal("internal error; it has been logged")
            }
        }
    }
}

/// UNAVAILABLE `STORE_UNAVAILABLE`: the database cannot write now (a full
/// disk, an I/O error, a lock held too long); nothing was stored, and the
/// same request may succeed in a moment.
fn store_unavailable() -> Status {
    let mut details = ErrorDetails::with_error_info("STORE_UNAVAILABLE", DOMAIN, HashMap::new());
    details.set_retry_info(Some(STORE_RETRY_DELAY));
    Status::with_error_details(
        Code::Unavailable,
        "the database cannot store this now; nothing was stored: retry shortly",
        details,
    )
}

/// When a client should retry after `STORE_UNAVAILABLE`: about when the
/// store next tries to write.
const STORE_RETRY_DELAY: std::time::Duration = std::time::Duration::from_secs(1);

impl From<AnalysisError> for Status {
    fn from(err: AnalysisError) -> Status {
        match &err {
            AnalysisError::Busy(_) => {
                with_reason(Code::ResourceExhausted, err.to_string(), "ENGINE_BUSY")
            }
            AnalysisError::PeerLimit(limit) => Status::with_error_details(
                Code::ResourceExhausted,
                err.to_string(),
                ErrorDetails::with_error_info(
                    "ANALYSIS_LIMIT",
                    DOMAIN,
                    HashMap::from([("limit".to_owned(), limit.to_string())]),
                ),
            ),
            AnalysisError::Position(e) => invalid_position("position", e),
            AnalysisError::GameOver(m) => with_reason(
                Code::FailedPrecondition,
                format!("the game is already over ({m}): there is no move to search"),
                "GAME_OVER",
            ),
        }
    }
}
