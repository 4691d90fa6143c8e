//! Domain errors to gRPC statuses, with machine-readable details
//! (`google.rpc.BadRequest` / `ErrorInfo`) via tonic-types.

use std::collections::HashMap;

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::{
    analysis::AnalysisError,
    games::{FellBehind, GameError, Refusal},
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

/// `code` with `message`, and `reason` and `metadata` as its `ErrorInfo`.
fn with_metadata(code: Code, message: String, reason: &str, metadata: &[(&str, String)]) -> Status {
    let metadata: HashMap<String, String> = metadata
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect();
    let details = ErrorDetails::with_error_info(reason, DOMAIN, metadata);
    Status::with_error_details(code, message, details)
}

/// RESOURCE_EXHAUSTED: `cap` (`game` or `connection`) has its `limit` of
/// watchers.
pub fn too_many_watchers(cap: &str, limit: usize) -> Status {
    with_metadata(
        Code::ResourceExhausted,
        format!("too many watchers: this {cap} has {limit}, the most it may have; try again later"),
        "TOO_MANY_WATCHERS",
        &[("cap", cap.to_owned()), ("limit", limit.to_string())],
    )
}

/// RESOURCE_EXHAUSTED for a watcher that fell behind its game's backlog.
pub fn watcher_too_slow(behind: FellBehind) -> Status {
    with_metadata(
        Code::ResourceExhausted,
        format!(
            "the watcher fell more than {} bytes behind the game; watch again for a fresh \
             snapshot (the last event received had version {})",
            behind.limit_bytes, behind.last_version
        ),
        "WATCHER_TOO_SLOW",
        &[
            ("last_version", behind.last_version.to_string()),
            ("limit_bytes", behind.limit_bytes.to_string()),
        ],
    )
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
            GameError::TooManyWatchers { limit } => too_many_watchers("game", *limit),
            GameError::Conflict { current_ply } => with_metadata(
                Code::Aborted,
                err.to_string(),
                "PLY_CONFLICT",
                &[("current_ply", current_ply.to_string())],
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

/// UNAVAILABLE `SHUTTING_DOWN`: the server is stopping; the same call to
/// another replica, or to this one once it is back, may succeed.
pub(super) fn shutting_down(message: &str) -> Status {
    with_reason(Code::Unavailable, message.to_owned(), "SHUTTING_DOWN")
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
