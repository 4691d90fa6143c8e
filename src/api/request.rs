//! What every service does with a request before its domain call: page
//! tokens, the game or position it names in the call's span, and the
//! compression it may come in.

use tonic::{Status, codec::CompressionEncoding};

use super::error::invalid_argument;
use crate::{
    games::{GameError, GameId, is_well_formed_id},
    reason::Reason,
};

/// Compressed requests accepted (answers go uncompressed: they are small,
/// and compressing them would cost more CPU than the bytes it saves).
pub const REQUEST_COMPRESSION: CompressionEncoding = CompressionEncoding::Gzip;

const DEFAULT_PAGE: u32 = 50;
const MAX_PAGE: u32 = 100;

/// The first character of `ListGames` page tokens.
pub(super) const GAMES_PAGES: char = 'g';

/// Page size and cursor from a request to the list whose tokens start with
/// `list` (a token of another list is refused, not read as this one's).
pub(super) fn paging(
    page_size: i32,
    token: &str,
    list: char,
) -> Result<(u32, Option<i64>), Status> {
    let limit = match page_size {
        0 => DEFAULT_PAGE,
        n if n < 0 => {
            return Err(invalid_argument(
                "page_size",
                Reason::ValueOutOfRange,
                "must not be negative",
            ));
        }
        n => (n as u32).min(MAX_PAGE),
    };
    let before = if token.is_empty() {
        None
    } else {
        Some(
            token
                .strip_prefix(list)
                .and_then(|n| n.parse::<i64>().ok())
                .ok_or_else(|| {
                    invalid_argument(
                        "page_token",
                        Reason::InvalidPageToken,
                        "not a token from a previous page",
                    )
                })?,
        )
    };
    Ok((limit, before))
}

/// The token of the page after the one ending before `next`, in the list
/// whose tokens start with `list`.
pub(super) fn next_token(next: Option<i64>, list: char) -> String {
    next.map(|n| format!("{list}{n}")).unwrap_or_default()
}

/// The game's id, noted in the RPC's span; an id that cannot be a game's
/// is NOT_FOUND before anything about it is logged.
pub(super) fn trace_game(game_id: &str) -> Result<GameId, Status> {
    let id = GameId::parse(game_id)?;
    tracing::Span::current().record("game_id", id.as_str());
    Ok(id)
}

/// Notes the position in the RPC's span; an id that cannot be a position's
/// is NOT_FOUND before anything about it is logged.
pub(super) fn trace_position(id: &str) -> Result<(), Status> {
    if !is_well_formed_id(id) {
        return Err(GameError::position_not_found(id).into());
    }
    tracing::Span::current().record("position_id", id);
    Ok(())
}
