//! Games imported from PGN: every move validated by the rules, stored as a
//! game like any other (listable, exportable; an unfinished one can be
//! played on with the seat tokens the import returns).

use sha2::{Digest, Sha256};

use super::{
    CreatedGame, Games,
    model::Status,
    model::{
        Ending, GameError, hidden_character, new_game, pgn, pgn::PgnCap, pgn::PgnGame,
        pgn::PgnLimits, pgn::result_of, position_keys, side_title, stored_opening,
    },
};
use crate::{
    reason::Reason,
    rules::{
        Quoted, RuleChoices, Side, Termination, Variant,
        referee::{PlayedMove, Referee, referee_under},
        xiangqi::XiangqiRules,
    },
    store::{
        ImportedGame, Stored, StoredGame, StoredMove, StoredOpening, StoredRoster, now_millis,
    },
};

impl PgnLimits {
    /// What the reader takes of an imported game by default: 2,000 moves,
    /// and ten tokens for each (move numbers, comments, NAGs, variations'
    /// moves...).
    pub const DEFAULT: PgnLimits = PgnLimits {
        moves: 2_000,
        tokens: 20_000,
    };
}

/// INVALID_ARGUMENT of the `pgn` field for `reason`.
fn invalid(reason: Reason, message: String) -> GameError {
    GameError::invalid("pgn", reason, message)
}

/// The game the tags name; `hint` is the caller's, when given.
fn variant(game: &PgnGame, hint: Option<Variant>) -> Result<Variant, GameError> {
    let named = match game.tag("Variant").map(str::to_ascii_lowercase).as_deref() {
        None | Some("" | "standard" | "chess") => None,
        Some("xiangqi" | "chinese chess") => Some(Variant::Xiangqi),
        Some("chess960" | "chess 960" | "fischerandom" | "fischer random") => {
            Some(Variant::Chess960)
        }
        Some("three-check" | "3check") => Some(Variant::ThreeCheck),
        // The Lichess variants by their title or key ("King of the Hill",
        // "kingOfTheHill").
        Some(other)
            if let Some(variant) = Variant::ALL.into_iter().find(|v| {
                v.is_chess_variant()
                    && (v.title().eq_ignore_ascii_case(other)
                        || v.name().eq_ignore_ascii_case(other))
            }) =>
        {
            Some(variant)
        }
        Some(other) => {
            return Err(invalid(
                Reason::InvalidPgn,
                format!(
                    "[Variant {}] is not supported: chess, chess960, xiangqi, crazyhouse, \
                     antichess, atomic, horde, king of the hill, racing kings or three-check",
                    Quoted(other)
                ),
            ));
        }
    }
    .or_else(|| {
        game.tag("Game")
            .filter(|g| g.eq_ignore_ascii_case("chinese chess"))
            .map(|_| Variant::Xiangqi)
    });
    match (named, hint) {
        (Some(named), Some(hint)) if named != hint => Err(invalid(
            Reason::VariantMismatch,
            format!("the PGN is a {named} game but the request says {hint}"),
        )),
        (named, hint) => Ok(named.or(hint).unwrap_or(Variant::Chess)),
    }
}

/// A display name from a player tag ("?" or missing: the side's name, as
/// CreateGame gives it).
fn player(game: &PgnGame, tag: &str, side: &str) -> Result<String, GameError> {
    match game.tag(tag).map(str::trim) {
        None | Some("" | "?" | "-") => Ok(side.to_owned()),
        Some(name) => match hidden_character(name) {
            Some((reason, problem)) => Err(invalid(
                reason,
                format!("[{tag}] is a display name: it {problem}"),
            )),
            None => Ok(name.chars().take(100).collect()),
        },
    }
}

/// A PGN game read and replayed, every move validated by the rules.
pub(super) struct ReadGame {
    pub game: PgnGame,
    pub variant: Variant,
    pub choices: RuleChoices,
    /// The game after its last move.
    pub record: Box<dyn Referee>,
    pub moves: Vec<PlayedMove>,
}

/// A game read from PGN, ready to store.
pub(super) struct Prepared {
    pub game: StoredGame,
    pub record: Box<dyn Referee>,
    pub tokens: [String; 2],
    /// What was imported: the variant, the start, the seven tags and the
    /// moves, hashed (see [`import_key`]).
    pub key: String,
    /// The opening it is named by.
    pub opening: Option<StoredOpening>,
    /// The keys of the positions it reached.
    pub positions: Vec<i64>,
    /// Its Event, Site, Date and Round.
    pub roster: StoredRoster,
}

impl Games {
    /// Stores the game of `text` (one PGN game) after validating every move;
    /// a xiangqi game is played on under `rules`, or else the rules its
    /// `[XiangqiRules]` tag names, or else Asian rules.
    ///
    /// # Errors
    ///
    /// Malformed PGN, an unsupported or contradictory variant, rules for a
    /// chess game, an invalid FEN, the first move that cannot be played
    /// (named with its number and line), a result the moves contradict, or
    /// storage.
    pub async fn import(
        &self,
        text: &str,
        hint: Option<Variant>,
        rules: Option<XiangqiRules>,
    ) -> Result<CreatedGame, GameError> {
        let Prepared {
            game,
            record,
            tokens: [white_token, black_token],
            key: _,
            opening,
            positions,
            roster,
        } = prepare(self.read_pgn(text, hint, rules)?)?;
        // A single import is stored whatever was imported before.
        let imported = ImportedGame {
            key: None,
            game,
            opening,
            positions,
            roster,
        };
        let stored = match self.store.insert_imported(vec![imported]).await?.pop() {
            Some(Stored::New(stored)) => *stored,
            _ => {
                return Err(GameError::Corrupt(
                    "the store did not store the imported game".to_owned(),
                ));
            }
        };
        Ok(CreatedGame {
            game: self.live.keep(stored, record)?,
            white_token,
            black_token,
            join_code: String::new(),
        })
    }

    /// Reads `text` (one PGN game) and replays its moves, under the
    /// variant and rules [`Games::import`] takes.
    ///
    /// # Errors
    ///
    /// As [`Games::import`], but for the result and storage.
    pub(super) fn read_pgn(
        &self,
        text: &str,
        hint: Option<Variant>,
        rules: Option<XiangqiRules>,
    ) -> Result<ReadGame, GameError> {
        read_pgn(text, hint, rules, self.import_limits)
    }
}

/// Reads `text` (one PGN game, within `limits`) and replays its moves, under
/// the variant and rules [`Games::import`] takes.
///
/// # Errors
///
/// As [`Games::import`], but for the result and storage.
pub(super) fn read_pgn(
    text: &str,
    hint: Option<Variant>,
    rules: Option<XiangqiRules>,
    limits: PgnLimits,
) -> Result<ReadGame, GameError> {
    let game = pgn::read(text, limits).map_err(|e| match e.cap {
        None => invalid(Reason::InvalidPgn, e.to_string()),
        Some(cap) => {
            let (limit, value) = match cap {
                PgnCap::Moves(n) => ("limit_moves", n),
                PgnCap::Tokens(n) => ("limit_tokens", n),
            };
            GameError::OverLimit {
                field: "pgn",
                reason: Reason::PgnTooLong,
                limit,
                value,
                message: e.to_string(),
            }
        }
    })?;
    let variant = variant(&game, hint)?;
    let tagged = match game.tag(pgn::RULES_TAG) {
        None => None,
        Some(name) => Some(XiangqiRules::from_name(name).ok_or_else(|| {
            invalid(
                Reason::InvalidPgn,
                format!(
                    "unknown [{} {}]: asian, repetition_draws or asian_refusing",
                    pgn::RULES_TAG,
                    Quoted(name)
                ),
            )
        })?),
    };
    let choices = match (variant, rules.or(tagged)) {
        (variant, Some(_)) if variant != Variant::Xiangqi => {
            return Err(GameError::invalid(
                if rules.is_some() {
                    "xiangqi_rules"
                } else {
                    "pgn"
                },
                Reason::VariantMismatch,
                "the PGN is a chess game: xiangqi rules do not apply to it".to_owned(),
            ));
        }
        (_, rules) => RuleChoices {
            xiangqi: rules.unwrap_or_default(),
        },
    };
    let mut record =
        referee_under::<&str>(variant, choices, game.tag("FEN"), &[]).map_err(|e| {
            let problem = e
                .problems
                .first()
                .map_or(Reason::InvalidFen.as_str(), |p| p.code);
            GameError::invalid_for("pgn", Reason::InvalidFen, problem, format!("[FEN]: {e}"))
        })?;
    let mut moves = Vec::with_capacity(game.moves.len());
    for (ply, (text, line)) in game.moves.iter().enumerate() {
        let played = record.play_recorded(text).map_err(|e| {
            GameError::invalid_for(
                "pgn",
                Reason::InvalidPgn,
                Reason::from(&e).as_str(),
                format!(
                    "move {} ({}, line {line}) cannot be played: {e}",
                    ply + 1,
                    Quoted(text)
                ),
            )
        })?;
        moves.push(played);
    }
    Ok(ReadGame {
        game,
        variant,
        choices,
        record,
        moves,
    })
}

/// The game to store for a PGN game read: its result is the rules' when the
/// moves end the game; otherwise 1-0 / 0-1 is a resignation, 1/2-1/2 an
/// agreed draw, and "*" leaves it ongoing.
///
/// # Errors
///
/// A display name tag that is not one, or a result the moves contradict.
pub(super) fn prepare(read: ReadGame) -> Result<Prepared, GameError> {
    let ReadGame {
        game,
        variant,
        choices,
        record,
        moves,
    } = read;
    let roster = roster(&game);
    let (white, black) = (
        player(&game, "White", side_title(variant, Side::White))?,
        player(&game, "Black", side_title(variant, Side::Black))?,
    );
    let played_at = now_millis();
    let moves = moves
        .into_iter()
        .enumerate()
        .map(|(ply, played)| StoredMove {
            ply: ply as i64,
            uci: played.description.uci.into(),
            fen_after: played.fen_after,
            played_at,
        })
        .collect();
    let result = game.result.as_deref().or(game.tag("Result")).unwrap_or("*");
    let claimed = match result {
        "1-0" => Some(Some(Side::White)),
        "0-1" => Some(Some(Side::Black)),
        "1/2-1/2" => Some(None),
        _ => None,
    };
    // Only a position without legal moves ends a recorded game for sure;
    // other rule endings (repetition, move counts) needed someone to
    // apply them, so the game's own result prevails when it has one.
    let rules_end = record.verdict().end.filter(|end| {
        claimed.is_none()
            || matches!(
                end.termination,
                Termination::Checkmate | Termination::Stalemate | Termination::InsufficientMaterial
            )
    });
    let (status, winner, ending) = match (rules_end, claimed) {
        (Some(end), claimed) => {
            if claimed.is_some_and(|c| c != end.winner) {
                return Err(invalid(
                    Reason::InvalidPgn,
                    format!(
                        "the result {result} contradicts the moves, which end in {}",
                        end.describe(record.variant())
                    ),
                ));
            }
            let status = Status::ended(end.winner.is_some());
            (status, end.winner, Some(Ending::Rules(end.termination)))
        }
        // Decided by the players: recorded as a resignation or an agreed
        // draw.
        (None, Some(Some(winner))) => (Status::Decisive, Some(winner), Some(Ending::Resignation)),
        (None, Some(None)) => (Status::Drawn, None, Some(Ending::Agreement)),
        (None, None) => (Status::Ongoing, None, None),
    };
    let (new, tokens) = new_game(variant, choices, record.as_ref(), white, black);
    let game = StoredGame {
        moves,
        status,
        winner,
        termination: ending.map(|e| e.code().to_owned()),
        ..new
    };
    let key = import_key(&game, &roster);
    Ok(Prepared {
        opening: stored_opening(&game),
        positions: position_keys(
            &game.start_fen,
            game.moves.iter().map(|m| m.fen_after.as_str()),
        ),
        game,
        record,
        tokens,
        key,
        roster,
    })
}

/// The longest Event, Site, Date or Round kept, in characters.
const MAX_ROSTER_TAG: usize = 255;

/// The Event, Site, Date and Round tags of `game`, each `None` when missing
/// or unknown (empty, `?`, `-`, or a date of question marks).
fn roster(game: &PgnGame) -> StoredRoster {
    let known = |tag: &str| {
        game.tag(tag)
            .map(str::trim)
            .filter(|value| !value.chars().all(|c| matches!(c, '?' | '-' | '.')))
            .map(|value| value.chars().take(MAX_ROSTER_TAG).collect())
    };
    StoredRoster {
        event: known("Event"),
        site: known("Site"),
        date: known("Date"),
        round: known("Round"),
    }
}

/// The key of an imported game: the same variant, start, seven tags (as
/// stored, so as an export writes them) and moves (in any notation) give
/// the same key, and so does the game's own export.
fn import_key(game: &StoredGame, roster: &StoredRoster) -> String {
    let mut digest = Sha256::new();
    let mut field = |text: &str| {
        digest.update(text.len().to_le_bytes());
        digest.update(text.as_bytes());
    };
    field(game.variant.name());
    field(&game.start_fen);
    for tag in [&roster.event, &roster.site, &roster.date, &roster.round] {
        field(tag.as_deref().unwrap_or_default());
    }
    field(&game.white_name);
    field(&game.black_name);
    field(result_of(game.status, game.winner));
    for played in &game.moves {
        field(&played.uci);
    }
    hex::encode(digest.finalize())
}
