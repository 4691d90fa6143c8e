//! Every reason an error of the API gives, in one list.
//!
//! A refusal carries its reason as `google.rpc.ErrorInfo.reason` (domain
//! [`DOMAIN`]) so that a program tells the cases apart without reading the
//! message; the reason also fixes the [`Kind`] of refusal, which each
//! transport maps to its own codes (`api` to gRPC's). The strings are part
//! of the contract: a reason is never renamed, and the API reference's error
//! table (`docs/api.md`) lists them all (a test checks it does).

use crate::rules::{IllegalReason, MoveError};

/// The `ErrorInfo.domain` of every error.
pub const DOMAIN: &str = "arbiter.dev";

/// What kind of refusal a reason is, named as gRPC names its status codes:
/// the domain's classes, free of any transport.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    FailedPrecondition,
    AlreadyExists,
    Aborted,
    OutOfRange,
    ResourceExhausted,
    DeadlineExceeded,
    Unimplemented,
    Unavailable,
    Internal,
}

/// Declares [`Reason`] from `Variant = "STRING", CODE;` lines, so that a
/// reason's string and code are written once, beside its meaning.
macro_rules! reasons {
    ($($(#[doc = $doc:literal])* $name:ident = $text:literal, $code:ident;)*) => {
        /// Why the API refused a request (see the module docs).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Reason {
            $($(#[doc = $doc])* $name,)*
            /// FAILED_PRECONDITION: the move is illegal; the reason is the
            /// `IllegalReason` name without its `ILLEGAL_REASON_` prefix
            /// (`OWN_KING_IN_CHECK`, ...).
            Illegal(IllegalReason),
        }

        impl Reason {
            /// Every reason but the illegal-move ones.
            pub const ALL: &[Reason] = &[$(Reason::$name,)*];

            /// The reason as sent (`SCREAMING_SNAKE_CASE`).
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$name => $text,)*
                    Reason::Illegal(reason) => reason.code(),
                }
            }

            /// The kind of refusal an error with this reason is.
            pub const fn kind(self) -> Kind {
                match self {
                    $(Reason::$name => Kind::$code,)*
                    Reason::Illegal(_) => Kind::FailedPrecondition,
                }
            }
        }
    };
}

reasons! {
    /// The request body is not the method's request message (or a gRPC
    /// frame is cut short, gzip does not decompress, grpc-web-text is not
    /// base64).
    MalformedRequest = "MALFORMED_REQUEST", InvalidArgument;
    /// `variant` is VARIANT_UNSPECIFIED.
    MissingVariant = "MISSING_VARIANT", InvalidArgument;
    /// A required field is empty (`position`, `source`, `board.turn`,
    /// `seats`, `join_code`, AnalyzeGame's `game`).
    MissingField = "MISSING_FIELD", InvalidArgument;
    /// An enum field holds a number this server does not know.
    UnknownEnumValue = "UNKNOWN_ENUM_VALUE", InvalidArgument;
    /// A number is outside its range (a page size, a search limit, an
    /// engine seat's level or move time, a timestamp).
    ValueOutOfRange = "VALUE_OUT_OF_RANGE", InvalidArgument;
    /// A text or a list is longer than allowed (a name, a player filter,
    /// the tags, a position's moves).
    TooLong = "TOO_LONG", InvalidArgument;
    /// A name, a display name or a PGN player tag holds a control character
    /// (a newline, a tab, ...).
    ControlCharacter = "CONTROL_CHARACTER", InvalidArgument;
    /// A name, a display name or a PGN player tag holds an invisible
    /// formatting character (a bidi override or isolate, a zero-width
    /// character, the byte order mark, ...), which could make it render
    /// reversed or pass for another.
    InvisibleCharacter = "INVISIBLE_CHARACTER", InvalidArgument;
    /// A tag is empty, too long or holds a control character.
    InvalidTag = "INVALID_TAG", InvalidArgument;
    /// The time control is not a clock nor correspondence, or mixes them.
    InvalidTimeControl = "INVALID_TIME_CONTROL", InvalidArgument;
    /// The request names one game and something it refers to is of the
    /// other (a saved position, the PGN's `[Variant]`, Chinese notation for
    /// chess, `xiangqi_rules` for chess).
    VariantMismatch = "VARIANT_MISMATCH", InvalidArgument;
    /// `page_token` is not a token of a previous page of this list.
    InvalidPageToken = "INVALID_PAGE_TOKEN", InvalidArgument;
    /// The FEN is not a position; each violation's reason is its problem
    /// (`MISSING_KING`, `BAD_CASTLING`, ...).
    InvalidFen = "INVALID_FEN", InvalidArgument;
    /// A move of the position's `moves` cannot be played; the violation
    /// (`position.moves[i]`) has the move's reason (`UNPARSABLE_MOVE`, an
    /// illegal-move reason, ...).
    InvalidMoves = "INVALID_MOVES", InvalidArgument;
    /// The move text is not a move in any notation of the game.
    UnparsableMove = "UNPARSABLE_MOVE", InvalidArgument;
    /// The move text fits several legal moves.
    AmbiguousMove = "AMBIGUOUS_MOVE", InvalidArgument;
    /// The PGN does not read, names an unsupported variant, holds a move
    /// that cannot be played (the violation has the move's reason) or a
    /// result its moves contradict.
    InvalidPgn = "INVALID_PGN", InvalidArgument;
    /// The PGN is past ImportGame's caps (metadata `limit_moves` or
    /// `limit_tokens`).
    PgnTooLong = "PGN_TOO_LONG", InvalidArgument;
    /// AnalyzeGame's move time per position, times the game's positions, is
    /// past the engine time one analysis may take (metadata `limit_ms`: the
    /// longest move time this game may have).
    ReviewTooLong = "REVIEW_TOO_LONG", InvalidArgument;
    /// CreateGame's open seat is not one a player can take: both seats
    /// open, an open seat with an engine or a display name, or facing an
    /// engine seat.
    InvalidOpenSeat = "INVALID_OPEN_SEAT", InvalidArgument;
    /// CreatePlayer's username is not 2 to 20 ASCII letters, digits, `_`
    /// and `-`, starting and ending with a letter or digit.
    InvalidUsername = "INVALID_USERNAME", InvalidArgument;
    /// A seat bound to a player that is also the engine's or open, or one
    /// player in both seats.
    InvalidPlayerSeat = "INVALID_PLAYER_SEAT", InvalidArgument;
    /// A rated game (CreateGame's or a challenge's) without both seats
    /// bound to players, without a time control, or from a position.
    InvalidRatedGame = "INVALID_RATED_GAME", InvalidArgument;
    /// CreateChallenge names itself, a destination with `open_to` or an
    /// engine, more than 32 players in `open_to`, or `for_others` with a
    /// destination, an engine, or other than none or two players in
    /// `open_to`.
    InvalidChallenge = "INVALID_CHALLENGE", InvalidArgument;
    /// Seek without a time control, or with a rating range whose low end
    /// is above its high end.
    InvalidSeek = "INVALID_SEEK", InvalidArgument;
    /// No game has the id (or the id cannot be one).
    GameNotFound = "GAME_NOT_FOUND", NotFound;
    /// No player has the id or username (a seat's `player_id`, GetPlayer).
    PlayerNotFound = "PLAYER_NOT_FOUND", NotFound;
    /// No challenge has the id.
    ChallengeNotFound = "CHALLENGE_NOT_FOUND", NotFound;
    /// No open seek of the caller's has the id (withdrawn, paired, or its
    /// stream's server gone).
    SeekNotFound = "SEEK_NOT_FOUND", NotFound;
    /// No saved position has the id (or the id cannot be one).
    PositionNotFound = "POSITION_NOT_FOUND", NotFound;
    /// Health.Check names a service the server does not have.
    UnknownService = "UNKNOWN_SERVICE", NotFound;
    /// JoinGame's (or GetOpenSeat's) `join_code` is no game's.
    JoinCodeUnknown = "JOIN_CODE_UNKNOWN", NotFound;
    /// `seat_token` is empty.
    SeatTokenMissing = "SEAT_TOKEN_MISSING", Unauthenticated;
    /// `seat_token` is neither seat's (nor, for Abort, the operator
    /// credential).
    SeatTokenUnknown = "SEAT_TOKEN_UNKNOWN", Unauthenticated;
    /// DeletePosition without `owner_token`.
    OwnerTokenMissing = "OWNER_TOKEN_MISSING", Unauthenticated;
    /// `owner_token` is neither the position's nor the operator credential.
    OwnerTokenUnknown = "OWNER_TOKEN_UNKNOWN", Unauthenticated;
    /// A call that acts for a player (a seat bound to the caller,
    /// CreatePlayerToken, RevokePlayerToken) without a player token.
    PlayerTokenMissing = "PLAYER_TOKEN_MISSING", Unauthenticated;
    /// The `authorization` metadata's token is no player's (or was
    /// revoked).
    PlayerTokenUnknown = "PLAYER_TOKEN_UNKNOWN", Unauthenticated;
    /// The identity provider's JWT names a player who was deleted.
    PlayerDeleted = "PLAYER_DELETED", Unauthenticated;
    /// The JWT's time is past (`exp`): get a new one from the identity
    /// provider.
    JwtExpired = "JWT_EXPIRED", Unauthenticated;
    /// The JWT does not verify: its signature, key id, algorithm, issuer,
    /// audience or subject (the message says which).
    JwtInvalid = "JWT_INVALID", Unauthenticated;
    /// The `authorization` metadata is not `Bearer <token>`.
    AuthorizationMalformed = "AUTHORIZATION_MALFORMED", Unauthenticated;
    /// A player acting, without a seat token, on a game none of whose seats
    /// is theirs.
    NotYourSeat = "NOT_YOUR_SEAT", PermissionDenied;
    /// Answering a challenge made to someone else (or not open to the
    /// caller), or withdrawing another player's.
    NotYourChallenge = "NOT_YOUR_CHALLENGE", PermissionDenied;
    /// CreatePlayer on a server that lets only the operator create players
    /// (`--players operator`), or DeletePlayer of another player, without
    /// the operator credential.
    OperatorOnly = "OPERATOR_ONLY", PermissionDenied;
    /// CreatePlayer's username is another player's, in some case.
    UsernameTaken = "USERNAME_TAKEN", AlreadyExists;
    /// A valid seat acting out of turn.
    NotYourTurn = "NOT_YOUR_TURN", PermissionDenied;
    /// The game is over (also after the flag fell, and asking the engine
    /// about a finished position).
    GameOver = "GAME_OVER", FailedPrecondition;
    /// Answering a challenge already accepted, declined, withdrawn or
    /// expired.
    ChallengeAnswered = "CHALLENGE_ANSWERED", FailedPrecondition;
    /// A draw claim the position does not support.
    NoDrawToClaim = "NO_DRAW_TO_CLAIM", FailedPrecondition;
    /// A victory claim while the opponent has not left the game (or in a
    /// game where leaving is not judged: untimed, or before both sides
    /// moved).
    OpponentPresent = "OPPONENT_PRESENT", FailedPrecondition;
    /// A player's abort after both sides moved.
    TooLateToAbort = "TOO_LATE_TO_ABORT", FailedPrecondition;
    /// A second draw offer from the same side.
    DrawAlreadyOffered = "DRAW_ALREADY_OFFERED", FailedPrecondition;
    /// A second takeback proposal from the same side.
    TakebackAlreadyProposed = "TAKEBACK_ALREADY_PROPOSED", FailedPrecondition;
    /// A takeback proposal while the opponent's is pending: answer it with
    /// RespondToTakeback.
    TakebackPending = "TAKEBACK_PENDING", FailedPrecondition;
    /// Answering an offer or proposal the opponent did not make.
    NothingToAnswer = "NOTHING_TO_ANSWER", FailedPrecondition;
    /// A takeback with no move of the proposer's to take back.
    NoMoveToTakeBack = "NO_MOVE_TO_TAKE_BACK", FailedPrecondition;
    /// A takeback from an engine seat, which declines them.
    EngineDeclinesTakebacks = "ENGINE_DECLINES_TAKEBACKS", FailedPrecondition;
    /// A game from a start position the rules have already decided.
    StartPositionDecided = "START_POSITION_DECIDED", FailedPrecondition;
    /// JoinGame (or GetOpenSeat) for a seat another player has taken
    /// already.
    SeatTaken = "SEAT_TAKEN", FailedPrecondition;
    /// A move, offer or claim while the game's open seat waits for a
    /// player (only Abort goes before), or a rematch of a game whose open
    /// seat nobody took.
    SeatOpen = "SEAT_OPEN", FailedPrecondition;
    /// OfferRematch or RespondToRematch on a game still being played.
    GameNotOver = "GAME_NOT_OVER", FailedPrecondition;
    /// A second rematch offer from the same side, before the answer.
    RematchAlreadyOffered = "REMATCH_ALREADY_OFFERED", FailedPrecondition;
    /// `expected_ply` is stale (metadata `current_ply`).
    PlyConflict = "PLY_CONFLICT", Aborted;
    /// WatchGame's `from_version` is newer than the game's version
    /// (metadata `current_version`): resume from the version of the last
    /// message received.
    VersionAhead = "VERSION_AHEAD", OutOfRange;
    /// WatchEvents' `after` is not a cursor of the player's kept events:
    /// older than `--player-events-retention`, or not one of theirs. Open
    /// the stream without `after` and load the state again.
    EventsExpired = "EVENTS_EXPIRED", OutOfRange;
    /// Every engine slot is busy and their queue is full, or no slot came
    /// free in time: retry with backoff.
    EngineBusy = "ENGINE_BUSY", ResourceExhausted;
    /// The caller's address already runs its most BestMove/Analyze/
    /// AnalyzeGame calls (metadata `limit`): wait for one to end.
    AnalysisLimit = "ANALYSIS_LIMIT", ResourceExhausted;
    /// The caller's address already resumes its most WatchGame streams
    /// with `from_version` (metadata `limit`): retry once one has caught
    /// up.
    ResumeLimit = "RESUME_LIMIT", ResourceExhausted;
    /// The player has as many challenges waiting for an answer as they may
    /// (metadata `limit`): cancel one, or wait for answers.
    TooManyChallenges = "TOO_MANY_CHALLENGES", ResourceExhausted;
    /// The player has as many open seeks as they may (metadata `limit`):
    /// withdraw one first.
    TooManySeeks = "TOO_MANY_SEEKS", ResourceExhausted;
    /// The player holds as many tokens as they may (metadata `limit`):
    /// revoke one first.
    TooManyPlayerTokens = "TOO_MANY_PLAYER_TOKENS", ResourceExhausted;
    /// The caller's address creates games, positions or players too fast
    /// (metadata `limit`, `retry_after_ms`, and a `google.rpc.RetryInfo`).
    RateLimited = "RATE_LIMITED", ResourceExhausted;
    /// A request message over its method's limit (metadata `limit_bytes`,
    /// and `found_bytes` when known).
    RequestTooLarge = "REQUEST_TOO_LARGE", ResourceExhausted;
    /// The server, or the caller's address, has as many requests in flight
    /// as it may (metadata `cap` = `server` or `peer`, and `limit`).
    ServerBusy = "SERVER_BUSY", ResourceExhausted;
    /// A game, a connection, the caller's address or player has as many
    /// watchers as it may (metadata `cap` = `game`, `connection`, `peer`,
    /// `player_streams` or `player`, and `limit`).
    TooManyWatchers = "TOO_MANY_WATCHERS", ResourceExhausted;
    /// An ImportGames call has read as many games as it may (metadata
    /// `limit`): import the rest in another call.
    TooManyGames = "TOO_MANY_GAMES", ResourceExhausted;
    /// The caller's address holds as many connections as it may (metadata
    /// `cap` = `peer`, `limit`): close some, or retry later.
    TooManyConnections = "TOO_MANY_CONNECTIONS", ResourceExhausted;
    /// The caller's address failed too many credential checks (unknown
    /// tokens) too fast (metadata `limit`, `retry_after_ms`): its Games and
    /// Positions calls are refused until then.
    CredentialChecksLimited = "CREDENTIAL_CHECKS_LIMITED", ResourceExhausted;
    /// A WatchGame stream fell too far behind its game (metadata
    /// `last_version`, `limit_bytes`): watch again.
    WatcherTooSlow = "WATCHER_TOO_SLOW", ResourceExhausted;
    /// No answer within `--request-timeout` or the call's own deadline
    /// (metadata `limit_ms`).
    RequestTimeout = "REQUEST_TIMEOUT", DeadlineExceeded;
    /// The server has no such method.
    UnknownMethod = "UNKNOWN_METHOD", Unimplemented;
    /// The request is compressed other than with gzip.
    UnsupportedCompression = "UNSUPPORTED_COMPRESSION", Unimplemented;
    /// The database cannot write now; nothing was stored (with a
    /// `google.rpc.RetryInfo`).
    StoreUnavailable = "STORE_UNAVAILABLE", Unavailable;
    /// The server is shutting down: call again (another replica, or this
    /// one once it is back).
    ShuttingDown = "SHUTTING_DOWN", Unavailable;
    /// The game's external engine (Stockfish, Fairy-Stockfish, ...) failed
    /// the search: it exited, hung or answered an illegal move (the message
    /// says which); it is restarted for the next call: retry.
    EngineFailed = "ENGINE_FAILED", Unavailable;
    /// A fault of the server (stored data that does not read back, a bug);
    /// it has been logged.
    InternalError = "INTERNAL_ERROR", Internal;
}

/// The rules name a move's error in the reason's own words (a position's
/// problems carry them without knowing this list).
impl From<&MoveError> for Reason {
    fn from(error: &MoveError) -> Reason {
        match error {
            MoveError::Unparsable { .. } => Reason::UnparsableMove,
            MoveError::Ambiguous { .. } => Reason::AmbiguousMove,
            MoveError::Illegal(e) => Reason::Illegal(e.reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn reasons_are_distinct_screaming_snake_case() {
        let mut seen = HashSet::new();
        for reason in Reason::ALL {
            let text = reason.as_str();
            assert!(seen.insert(text), "{text} twice");
            assert!(
                text.split('_')
                    .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_uppercase())),
                "{text}"
            );
        }
    }

    #[test]
    fn a_move_error_is_named_as_its_reason() {
        use crate::rules::{Game, chess::Chess};
        let errors = ["e9", "Nd2", "e2e5"].map(|text| {
            Chess::start()
                .parse_move(text)
                .expect_err("not a legal move")
        });
        for error in &errors {
            assert_eq!(error.code(), Reason::from(error).as_str(), "{error}");
        }
    }

    /// The proto's error documentation names every reason.
    #[test]
    fn the_contract_documents_every_reason() {
        let proto = include_str!("../proto/arbiter/v1/errors.proto");
        for reason in Reason::ALL {
            let line = format!("//   {} ", reason.as_str());
            assert!(
                proto.contains(&line),
                "proto/arbiter/v1/errors.proto lacks {line:?}"
            );
        }
    }
}
