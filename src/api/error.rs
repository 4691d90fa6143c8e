//! Domain errors to gRPC statuses, with machine-readable details
//! (`google.rpc.ErrorInfo` / `BadRequest` / `RetryInfo`) via tonic-types:
//! [`ErrorStatus`] builds every one, from a [`Reason`].

use std::{collections::HashMap, time::Duration};

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

use crate::{
    analysis::AnalysisError,
    games::{FellBehind, GameError},
    reason::{DOMAIN, Kind, Reason},
    rules::{Clipped, MoveError, referee::InvalidPosition},
    store::StoreError,
};

/// An error status under construction: its reason (which fixes the gRPC
/// code) and message, and what its `google.rpc.ErrorInfo` and `BadRequest`
/// say beyond that. Every error the API answers is built with one, so that
/// none lacks a reason.
#[derive(Debug)]
#[must_use]
pub struct ErrorStatus {
    reason: Reason,
    message: String,
    metadata: HashMap<String, String>,
    violations: Vec<FieldViolation>,
    retry_after: Option<Duration>,
}

impl ErrorStatus {
    /// An error for `reason`, explained by `message` (a sentence, without
    /// the reason: that is in the `ErrorInfo`).
    pub fn new(reason: Reason, message: impl Into<String>) -> ErrorStatus {
        ErrorStatus {
            reason,
            message: message.into(),
            metadata: HashMap::new(),
            violations: Vec::new(),
            retry_after: None,
        }
    }

    /// `key` = `value` in the `ErrorInfo` metadata.
    pub fn metadata(mut self, key: &str, value: impl ToString) -> ErrorStatus {
        self.metadata.insert(key.to_owned(), value.to_string());
        self
    }

    /// A `BadRequest` violation of `field`, for `reason` (its own code, e.g.
    /// a FEN problem's), described by `description`.
    pub fn violation(
        mut self,
        field: impl Into<String>,
        reason: &str,
        description: impl Into<String>,
    ) -> ErrorStatus {
        let mut violation = FieldViolation::new(field, description);
        violation.reason = reason.to_owned();
        self.violations.push(violation);
        self
    }

    /// A `google.rpc.RetryInfo` of `delay`.
    pub fn retry_after(mut self, delay: Duration) -> ErrorStatus {
        self.retry_after = Some(delay);
        self
    }
}

impl From<ErrorStatus> for Status {
    fn from(error: ErrorStatus) -> Status {
        let mut details =
            ErrorDetails::with_error_info(error.reason.as_str(), DOMAIN, error.metadata);
        if !error.violations.is_empty() {
            details.set_bad_request(error.violations);
        }
        if let Some(delay) = error.retry_after {
            details.set_retry_info(Some(delay));
        }
        Status::with_error_details(code(error.reason.kind()), error.message, details)
    }
}

/// The gRPC code of a refusal of `kind`.
pub const fn code(kind: Kind) -> Code {
    match kind {
        Kind::InvalidArgument => Code::InvalidArgument,
        Kind::NotFound => Code::NotFound,
        Kind::PermissionDenied => Code::PermissionDenied,
        Kind::Unauthenticated => Code::Unauthenticated,
        Kind::FailedPrecondition => Code::FailedPrecondition,
        Kind::AlreadyExists => Code::AlreadyExists,
        Kind::Aborted => Code::Aborted,
        Kind::OutOfRange => Code::OutOfRange,
        Kind::ResourceExhausted => Code::ResourceExhausted,
        Kind::DeadlineExceeded => Code::DeadlineExceeded,
        Kind::Unimplemented => Code::Unimplemented,
        Kind::Unavailable => Code::Unavailable,
        Kind::Internal => Code::Internal,
    }
}

/// INVALID_ARGUMENT for one field, for `reason`.
pub fn invalid_argument(field: &str, reason: Reason, message: impl Into<String>) -> Status {
    let message = message.into();
    ErrorStatus::new(reason, format!("{field}: {message}"))
        .violation(field, reason.as_str(), message)
        .into()
}

/// INVALID_ARGUMENT listing every problem of a position: `INVALID_FEN` with
/// the FEN's problems, or `INVALID_MOVES` with the move that cannot be
/// played, each violation with its problem's code as its reason. `fen` is
/// the request's field the FEN came from, `moves` the field of the moves.
pub fn invalid_position(fen: &str, moves: &str, err: &InvalidPosition) -> Status {
    let reason = if err.problems.iter().any(|p| p.move_index.is_none()) {
        Reason::InvalidFen
    } else {
        Reason::InvalidMoves
    };
    err.problems
        .iter()
        .fold(ErrorStatus::new(reason, err.to_string()), |status, p| {
            let f = match p.move_index {
                Some(i) => format!("{moves}[{i}]"),
                None => fen.to_owned(),
            };
            status.violation(f, p.code, &p.message)
        })
        .into()
}

/// INVALID_ARGUMENT for move text that is not a move.
pub fn bad_move(field: &str, err: &MoveError) -> Status {
    let reason = Reason::from(err);
    ErrorStatus::new(reason, err.to_string())
        .violation(field, reason.as_str(), err.to_string())
        .into()
}

/// RESOURCE_EXHAUSTED `RESUME_LIMIT`: the caller's address has its `limit`
/// of WatchGame resumes telling their past events.
pub fn resume_limit(limit: usize) -> Status {
    ErrorStatus::new(
        Reason::ResumeLimit,
        format!(
            "this address already resumes {limit} watches, the most it may at once: \
             retry once one has caught up"
        ),
    )
    .metadata("limit", limit)
    .into()
}

/// RESOURCE_EXHAUSTED: `cap` (`game` or `connection`) has its `limit` of
/// watchers.
pub fn too_many_watchers(cap: &str, limit: usize) -> Status {
    ErrorStatus::new(
        Reason::TooManyWatchers,
        format!("too many watchers: this {cap} has {limit}, the most it may have; try again later"),
    )
    .metadata("cap", cap)
    .metadata("limit", limit)
    .into()
}

/// RESOURCE_EXHAUSTED for a watcher that fell behind its game's backlog.
pub fn watcher_too_slow(behind: FellBehind) -> Status {
    too_slow(behind).into()
}

/// RESOURCE_EXHAUSTED for a player stream that fell behind game
/// `game_id`'s backlog.
pub fn player_too_slow(game_id: &str, behind: FellBehind) -> Status {
    too_slow(behind).metadata("game_id", game_id).into()
}

fn too_slow(behind: FellBehind) -> ErrorStatus {
    ErrorStatus::new(
        Reason::WatcherTooSlow,
        format!(
            "the watcher fell more than {} bytes behind the game; watch again for a fresh \
             snapshot (the last event received had version {})",
            behind.limit_bytes, behind.last_version
        ),
    )
    .metadata("last_version", behind.last_version)
    .metadata("limit_bytes", behind.limit_bytes)
}

/// INTERNAL: a fault of the server, already logged.
pub fn internal() -> Status {
    ErrorStatus::new(Reason::InternalError, "internal error; it has been logged").into()
}

impl From<GameError> for Status {
    fn from(err: GameError) -> Status {
        match &err {
            GameError::NotFound(r)
            | GameError::Unauthenticated(r)
            | GameError::PermissionDenied(r)
            | GameError::FailedPrecondition(r)
            | GameError::AlreadyExists(r) => ErrorStatus::new(r.reason, &r.message).into(),
            GameError::InvalidArgument {
                field,
                reason,
                problem,
                message,
            } => ErrorStatus::new(*reason, err.to_string())
                .violation(*field, problem, message.clone())
                .into(),
            GameError::OverLimit {
                field,
                reason,
                limit,
                value,
                message,
            } => ErrorStatus::new(*reason, err.to_string())
                .violation(*field, reason.as_str(), message.clone())
                .metadata(limit, value)
                .into(),
            // No moves come with a game's or a saved position's start.
            GameError::InvalidPosition { field, error } => invalid_position(field, field, error),
            GameError::BadMove(e) => bad_move("move", e),
            GameError::Illegal(e) => {
                ErrorStatus::new(Reason::Illegal(e.reason), e.to_string()).into()
            }
            GameError::GameOver(m) => ErrorStatus::new(Reason::GameOver, m).into(),
            GameError::TooManyWatchers { limit } => too_many_watchers("game", *limit),
            GameError::VersionAhead { current, .. } => {
                ErrorStatus::new(Reason::VersionAhead, err.to_string())
                    .metadata("current_version", current)
                    .into()
            }
            GameError::Conflict { current_ply } => {
                ErrorStatus::new(Reason::PlyConflict, err.to_string())
                    .metadata("current_ply", current_ply)
                    .into()
            }
            GameError::Store(StoreError::Unavailable(e)) => {
                tracing::warn!(error = %e, "store unavailable");
                store_unavailable()
            }
            GameError::Corrupt(_) | GameError::Store(_) => {
                tracing::error!(error = %Clipped(&err.to_string()), "internal error");
                internal()
            }
        }
    }
}

/// UNAVAILABLE `SHUTTING_DOWN`: the server is stopping; the same call to
/// another replica, or to this one once it is back, may succeed.
pub(super) fn shutting_down(message: &str) -> Status {
    ErrorStatus::new(Reason::ShuttingDown, message).into()
}

/// UNAVAILABLE `STORE_UNAVAILABLE`: the database cannot write now (a full
/// disk, an I/O error, a lock held too long); nothing was stored, and the
/// same request may succeed in a moment.
fn store_unavailable() -> Status {
    ErrorStatus::new(
        Reason::StoreUnavailable,
        "the database cannot store this now; nothing was stored: retry shortly",
    )
    .retry_after(STORE_RETRY_DELAY)
    .into()
}

/// When a client should retry after `STORE_UNAVAILABLE`: about when the
/// store next tries to write.
const STORE_RETRY_DELAY: Duration = Duration::from_secs(1);

impl From<AnalysisError> for Status {
    fn from(err: AnalysisError) -> Status {
        match &err {
            AnalysisError::Busy { .. } | AnalysisError::NoTurn(_) => {
                ErrorStatus::new(Reason::EngineBusy, err.to_string()).into()
            }
            AnalysisError::PeerLimit(limit) => {
                ErrorStatus::new(Reason::AnalysisLimit, err.to_string())
                    .metadata("limit", limit)
                    .into()
            }
            AnalysisError::Position(e) => invalid_position("position.fen", "position.moves", e),
            AnalysisError::GameOver(m) => ErrorStatus::new(
                Reason::GameOver,
                format!("the game is already over ({m}): there is no move to search"),
            )
            .into(),
            AnalysisError::Engine { .. } => {
                ErrorStatus::new(Reason::EngineFailed, err.to_string()).into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Variant, referee::referee};

    /// The API reference's error table has a row `| REASON | CODE | ...` for every
    /// reason, with the reason's code.
    #[test]
    fn the_api_reference_documents_every_reason() {
        let reference = include_str!("../../docs/api.md");
        for reason in Reason::ALL {
            let row = format!(
                "| `{}` | `{}` |",
                reason.as_str(),
                code_name(code(reason.kind()))
            );
            assert!(reference.contains(&row), "docs/api.md lacks the row {row}");
        }
    }

    /// `code` as gRPC spells it (`INVALID_ARGUMENT`).
    fn code_name(code: Code) -> String {
        let mut name = String::new();
        for c in format!("{code:?}").chars() {
            if c.is_ascii_uppercase() && !name.is_empty() {
                name.push('_');
            }
            name.push(c.to_ascii_uppercase());
        }
        name
    }

    #[test]
    fn a_status_has_its_reasons_code_and_every_detail() {
        let status: Status = ErrorStatus::new(Reason::RateLimited, "slow down")
            .metadata("limit", "1/s")
            .violation("name", "TOO_LONG", "at most 3 characters")
            .retry_after(Duration::from_millis(5))
            .into();
        assert_eq!(
            (status.code(), status.message()),
            (Code::ResourceExhausted, "slow down")
        );
        let details = status.get_error_details();
        let info = details.error_info().unwrap();
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("RATE_LIMITED", DOMAIN)
        );
        assert_eq!(info.metadata["limit"], "1/s");
        let violation = &details.bad_request().unwrap().field_violations[0];
        assert_eq!(
            (violation.field.as_str(), violation.reason.as_str()),
            ("name", "TOO_LONG")
        );
        assert_eq!(
            details.retry_info().unwrap().retry_delay,
            Some(Duration::from_millis(5))
        );
    }

    /// A FEN's problems and a history's move are violations with their own
    /// codes as reasons, under INVALID_FEN and INVALID_MOVES; descriptions
    /// do not repeat the codes.
    #[test]
    fn position_problems_are_violations_with_their_codes() {
        for (fen, moves, reason, field, problem) in [
            (
                "8/8/8 w - - 0 1",
                &[][..],
                "INVALID_FEN",
                "position.fen",
                "WRONG_RANK_COUNT",
            ),
            (
                "",
                &["e4", "e4"][..],
                "INVALID_MOVES",
                "position.moves[1]",
                "NO_PIECE_CAN_REACH",
            ),
        ] {
            let Err(err) = referee(Variant::Chess, Some(fen), moves) else {
                panic!("{fen} {moves:?} is a position");
            };
            let status = invalid_position("position.fen", "position.moves", &err);
            assert_eq!(status.code(), Code::InvalidArgument);
            assert_eq!(status.get_details_error_info().unwrap().reason, reason);
            let violations = status.get_details_bad_request().unwrap().field_violations;
            assert_eq!(
                (violations[0].field.as_str(), violations[0].reason.as_str()),
                (field, problem),
                "{violations:?}"
            );
            for v in &violations {
                assert!(!v.description.starts_with(&v.reason), "{v:?}");
            }
        }
    }
}
