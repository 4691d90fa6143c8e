//! ListGames's and ExportGames's filters, and ListGames's pages: a
//! player's games come ongoing first.

use tonic::Status;

use super::{
    convert,
    error::invalid_argument,
    games::GamesService,
    proto as pb,
    request::{GAMES_PAGES, next_token, paging},
};
use crate::{
    games::{GameError, PlayerPages, position_key},
    reason::Reason,
    rules::Side,
    store::{GameFilter, OpeningFilter, OpeningLevel},
};

/// The first characters of the page tokens of a player's games, ongoing
/// first: among the ongoing games, and among the finished ones.
const ONGOING_PAGES: char = 'o';
const FINISHED_PAGES: char = 'f';

impl GamesService {
    /// A page of ListGames: a player's games (with no status asked for,
    /// newest first) come ongoing first, else games in the order asked.
    pub(super) async fn list_page(
        &self,
        r: &pb::ListGamesRequest,
    ) -> Result<pb::ListGamesResponse, Status> {
        let ongoing_first = !r.player_id.trim().is_empty()
            && r.status == pb::GameStatusFilter::Unspecified as i32
            && !r.oldest_first;
        if !ongoing_first {
            let page = self.games.list(self.game_filter(r).await?).await?;
            return Ok(pb::ListGamesResponse {
                games: page.items.iter().map(convert::game).collect(),
                next_page_token: next_token(page.next, GAMES_PAGES),
            });
        }
        let from = player_pages(&r.page_token)?;
        let filter = self
            .game_filter(&pb::ListGamesRequest {
                page_token: String::new(),
                ..r.clone()
            })
            .await?;
        let (page, next) = self.games.list_ongoing_first(filter, from).await?;
        Ok(pb::ListGamesResponse {
            games: page.items.iter().map(convert::game).collect(),
            next_page_token: next.map(player_pages_token).unwrap_or_default(),
        })
    }

    /// The games a ListGames (or ExportGames) request selects, and its page.
    pub(super) async fn game_filter(&self, r: &pb::ListGamesRequest) -> Result<GameFilter, Status> {
        let (limit, cursor) = paging(r.page_size, &r.page_token, GAMES_PAGES)?;
        let finished = match pb::GameStatusFilter::try_from(r.status) {
            Ok(pb::GameStatusFilter::Ongoing) => Some(false),
            Ok(pb::GameStatusFilter::Finished) => Some(true),
            Ok(pb::GameStatusFilter::Unspecified) => None,
            Err(_) => {
                return Err(invalid_argument(
                    "status",
                    Reason::UnknownEnumValue,
                    "unknown status filter",
                ));
            }
        };
        let variant = match r.variant {
            0 => None,
            v => Some(convert::variant("variant", v)?),
        };
        let player = r.player.trim();
        if player.chars().count() > 100 {
            return Err(invalid_argument(
                "player",
                Reason::TooLong,
                "at most 100 characters",
            ));
        }
        // A player named by id or username; one nobody is has no games.
        let player_id = match r.player_id.trim() {
            "" => None,
            name => Some(match self.players.get(name).await {
                Ok(found) => found.id,
                Err(GameError::NotFound(_)) => name.to_owned(),
                Err(other) => return Err(other.into()),
            }),
        };
        Ok(GameFilter {
            finished,
            variant,
            player: (!player.is_empty()).then(|| player.to_owned()),
            player_id,
            termination: convert::termination_filter("termination", r.termination)?,
            created_from: convert::millis("created_after", r.created_after.as_ref())?,
            created_until: convert::millis("created_before", r.created_before.as_ref())?,
            cursor,
            oldest_first: r.oldest_first,
            result: result_filter(r.result)?,
            rated: r.rated,
            opening: opening_filter(&r.opening)?,
            position: position_filter(&r.position)?,
            limit,
        })
    }
}

/// Where a page token of a player's games, ongoing first, starts.
fn player_pages(token: &str) -> Result<PlayerPages, Status> {
    let mut chars = token.chars();
    let first = chars.next();
    let rest = chars.as_str();
    let cursor = match rest {
        "" => Some(None),
        n => n.parse::<i64>().ok().map(Some),
    };
    match (first, cursor) {
        (None, _) => Ok(PlayerPages::Ongoing(None)),
        (Some(ONGOING_PAGES), Some(cursor)) => Ok(PlayerPages::Ongoing(cursor)),
        (Some(FINISHED_PAGES), Some(cursor)) => Ok(PlayerPages::Finished(cursor)),
        _ => Err(invalid_argument(
            "page_token",
            Reason::InvalidPageToken,
            "not a token from a previous page",
        )),
    }
}

/// The page token of `pages`.
fn player_pages_token(pages: PlayerPages) -> String {
    let (list, cursor) = match pages {
        PlayerPages::Ongoing(cursor) => (ONGOING_PAGES, cursor),
        PlayerPages::Finished(cursor) => (FINISHED_PAGES, cursor),
    };
    match cursor {
        Some(cursor) => format!("{list}{cursor}"),
        None => list.to_string(),
    }
}

/// The result ListGames's `result` selects.
fn result_filter(value: i32) -> Result<Option<Option<Side>>, Status> {
    match pb::ResultFilter::try_from(value) {
        Ok(pb::ResultFilter::Unspecified) => Ok(None),
        Ok(pb::ResultFilter::WhiteWon) => Ok(Some(Some(Side::White))),
        Ok(pb::ResultFilter::BlackWon) => Ok(Some(Some(Side::Black))),
        Ok(pb::ResultFilter::Drawn) => Ok(Some(None)),
        Err(_) => Err(invalid_argument(
            "result",
            Reason::UnknownEnumValue,
            "unknown result filter",
        )),
    }
}

/// The key of the position ListGames's `position` (a FEN) selects.
fn position_filter(fen: &str) -> Result<Option<i64>, Status> {
    let fen = fen.trim();
    if fen.is_empty() {
        return Ok(None);
    }
    if fen.chars().count() > 200 {
        return Err(invalid_argument(
            "position",
            Reason::TooLong,
            "at most 200 characters",
        ));
    }
    let mut fields = fen.split_whitespace();
    let board = fields.next().unwrap_or_default();
    let side = fields.next().unwrap_or_default();
    if !board.contains('/') || !matches!(side, "w" | "b" | "r") {
        return Err(invalid_argument(
            "position",
            Reason::InvalidFen,
            "a position is a FEN: its board, then the side to move",
        ));
    }
    Ok(Some(position_key(fen)))
}

/// The openings ListGames's `opening` selects: an ECO volume, group or code
/// (`B`, `B5`, `B50`), else a name's family (`Sicilian Defense`),
/// variation (with a `:`) or whole name (with a `,`), in any case.
fn opening_filter(text: &str) -> Result<Option<OpeningFilter>, Status> {
    let text = text.trim();
    if text.chars().count() > 100 {
        return Err(invalid_argument(
            "opening",
            Reason::TooLong,
            "at most 100 characters",
        ));
    }
    let mut chars = text.chars();
    let eco = matches!(chars.next(), Some('A'..='E' | 'a'..='e'))
        && text.len() <= 3
        && chars.all(|c| c.is_ascii_digit());
    let level = match text.len() {
        0 => return Ok(None),
        1 if eco => OpeningLevel::Volume,
        2 if eco => OpeningLevel::Group,
        3 if eco => OpeningLevel::Eco,
        _ if text.contains(',') => OpeningLevel::Name,
        _ if text.contains(':') => OpeningLevel::Variation,
        _ => OpeningLevel::Family,
    };
    let value = match eco {
        true => text.to_ascii_uppercase(),
        false => text.to_lowercase(),
    };
    Ok(Some(OpeningFilter { level, value }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_page_tokens_read_back() {
        for pages in [
            PlayerPages::Ongoing(Some(41)),
            PlayerPages::Finished(None),
            PlayerPages::Finished(Some(7)),
        ] {
            assert_eq!(player_pages(&player_pages_token(pages)).unwrap(), pages);
        }
        assert_eq!(player_pages("").unwrap(), PlayerPages::Ongoing(None));
        for bad in ["g12", "o12x", "é", "f-"] {
            assert!(player_pages(bad).is_err(), "{bad}");
        }
    }
}
