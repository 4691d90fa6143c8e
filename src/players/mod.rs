//! Players: accounts that own seats across games, so that a client keeps
//! one credential instead of a token per seat.
//!
//! A player is created with a username (their id is its lower case) and
//! gets a bearer token, kept as its SHA-256 like seat tokens; they may hold
//! up to `--max-player-tokens` at once (one per device) and revoke them.
//! Who may create players is the operator's choice ([`Enrolment`]). The
//! games layer knows players only as the ids its seats are bound to.

mod challenges;
mod checked;
mod events;
mod identity;
mod leaving;
mod pairing;
mod seeks;
mod username;

use std::{
    str::FromStr,
    sync::Arc,
    time::{Duration, Instant, SystemTime, UNIX_EPOCH},
};

pub use challenges::{
    Accepted, Challenge, ChallengeSpec, ChallengeStatus, Challenges, DEFAULT_CHALLENGE_EXPIRY,
    DEFAULT_MAX_CHALLENGES_PER_PLAYER, MAX_OPEN_TO,
};
pub use events::DEFAULT_EVENT_RETENTION;
pub use identity::{DEFAULT_JWKS_REFRESH, JwksSource, Jwt, JwtPlayer, JwtSettings};
pub use leaving::DELETED_NAME;
pub use pairing::{FIRST_REACH, REACH_PER_SECOND};
pub use seeks::{
    DEFAULT_MAX_SEEKS_PER_PLAYER, DEFAULT_PAIRING_INTERVAL, LOBBY_SIZE, Lobby, SeekSpec, Seeks,
};
pub use username::Username;

use self::checked::Checked;
pub use self::checked::TRUSTED_FOR;
use crate::{
    games::{
        AdminToken, GameError, Refusal,
        model::{
            IDLE_GROWTH_PER_MS, PROVISIONAL_DEVIATION, hash_token, is_admin, new_token,
            refuse_hidden_characters,
        },
    },
    reason::Reason,
    rules::Quoted,
    store::{PlayerOrigin, Ranked, RatingChange, Store, StoredPlayer, StoredRating, UsernameTaken},
};

/// Default `--max-player-tokens`.
pub const DEFAULT_MAX_PLAYER_TOKENS: usize = 16;

/// Longest display name, as for seats.
const MAX_DISPLAY_NAME: usize = 100;
/// Longest player id looked up as it is.
const MAX_ID: usize = 128;

/// Who may create players (`--players`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Enrolment {
    /// Anyone, within the per-address rate of creating calls.
    #[default]
    Open,
    /// The operator only (a platform that creates its users' players).
    Operator,
}

impl FromStr for Enrolment {
    type Err = String;

    fn from_str(s: &str) -> Result<Enrolment, String> {
        match s {
            "open" => Ok(Enrolment::Open),
            "operator" => Ok(Enrolment::Operator),
            _ => Err(format!("expected open or operator, not {}", Quoted(s))),
        }
    }
}

/// A player just created, with their first token (shown once).
#[derive(Clone, Debug)]
pub struct CreatedPlayer {
    pub player: StoredPlayer,
    pub token: String,
}

/// The players service.
#[derive(Clone, Debug)]
pub struct Players {
    store: Store,
    admin: Option<AdminToken>,
    /// A trusted backend's credential, which acts for players only.
    service: Option<AdminToken>,
    enrolment: Enrolment,
    max_tokens: usize,
    /// The platform's identity provider, if players come from one too.
    jwt: Option<Arc<Jwt>>,
    /// Credentials checked a moment ago.
    checked: Arc<Checked>,
    /// How long player events are logged (see `events`).
    event_retention: std::time::Duration,
}

impl Players {
    pub fn new(store: Store) -> Players {
        Players {
            store,
            admin: None,
            service: None,
            enrolment: Enrolment::Open,
            max_tokens: DEFAULT_MAX_PLAYER_TOKENS,
            jwt: None,
            checked: Arc::default(),
            event_retention: DEFAULT_EVENT_RETENTION,
        }
    }

    /// Players named by JWTs of the identity provider `jwt` too.
    #[must_use]
    pub fn with_jwt(self, jwt: Option<Arc<Jwt>>) -> Players {
        Players { jwt, ..self }
    }

    /// The operator credential, which `Enrolment::Operator` asks for.
    #[must_use]
    pub fn with_admin_token(self, admin: Option<AdminToken>) -> Players {
        Players { admin, ..self }
    }

    /// The service credential, which acts for players and for nothing
    /// else.
    #[must_use]
    pub fn with_service_credential(self, service: Option<AdminToken>) -> Players {
        Players { service, ..self }
    }

    #[must_use]
    pub fn with_enrolment(self, enrolment: Enrolment) -> Players {
        Players { enrolment, ..self }
    }

    /// At most `max_tokens` tokens per player at once.
    #[must_use]
    pub fn with_max_tokens(self, max_tokens: usize) -> Players {
        Players {
            max_tokens: max_tokens.max(1),
            ..self
        }
    }

    /// Creates a player; their display name, left empty, is the username.
    ///
    /// # Errors
    ///
    /// A bad username or display name, the operator's credential missing
    /// where only the operator may create players, a username taken, or
    /// storage.
    pub async fn create(
        &self,
        username: &str,
        display_name: &str,
        admin_token: &str,
    ) -> Result<CreatedPlayer, GameError> {
        if self.enrolment == Enrolment::Operator && !is_admin(self.admin.as_ref(), admin_token) {
            return Err(GameError::PermissionDenied(Refusal::new(
                Reason::OperatorOnly,
                "this server lets only its operator create players: pass the operator \
                 credential as admin_token",
            )));
        }
        let username = Username::new_name(username)?;
        let display_name = checked_display_name(display_name, username.as_str())?;
        let token = new_token();
        let player = StoredPlayer {
            id: username.id(),
            username: username.to_string(),
            display_name,
            created_at: 0,
            bot: false,
            origin: PlayerOrigin::Enrolled,
        };
        match self
            .store
            .insert_player(player, Some(&hash_token(&token)))
            .await?
        {
            Ok(player) => Ok(CreatedPlayer { player, token }),
            Err(UsernameTaken) => Err(username_taken(&username)),
        }
    }

    /// The identity provider's player whose JWTs carry `subject`, created
    /// ahead of their first call by a trusted backend; with `username`
    /// empty, one is chosen as on that first call. A provider's player
    /// there already is answered as stored.
    ///
    /// # Errors
    ///
    /// A subject that cannot be an id, a bad username or display name, the
    /// subject an enrolled player's id or the username taken, a deleted
    /// player, or storage.
    pub async fn create_provider_player(
        &self,
        subject: &str,
        username: &str,
        display_name: &str,
    ) -> Result<StoredPlayer, GameError> {
        if !identity::is_subject(subject) {
            return Err(GameError::invalid(
                "provider_subject",
                Reason::MalformedRequest,
                "a provider's subject is 1 to 128 printable characters, without spaces, commas, \
                 quotes or backslashes",
            ));
        }
        let username = match username.trim() {
            "" => None,
            name => Some(Username::parse(name)?),
        };
        let unnamed = username.as_ref().map_or(subject, Username::as_str);
        let display_name = checked_display_name(display_name, unnamed)?;
        if let Some(player) = self.store.player(subject).await? {
            return self.stored_provider_player(player);
        }
        if self.store.player_deleted(subject).await? {
            return Err(GameError::AlreadyExists(Refusal::new(
                Reason::UsernameTaken,
                "the player of this subject was deleted, and the id stays theirs",
            )));
        }
        let Some(username) = username else {
            let named = JwtPlayer {
                id: subject.to_owned(),
                name: Some(display_name),
                username: None,
                expires_at: 0,
            };
            let id = self.ensure(named).await?;
            return self.get(&id).await;
        };
        let player = StoredPlayer {
            id: subject.to_owned(),
            username: username.to_string(),
            display_name,
            created_at: 0,
            bot: false,
            origin: PlayerOrigin::Provider,
        };
        match self.store.insert_player(player, None).await? {
            Ok(player) => Ok(player),
            // A racing call may have created the same player.
            Err(UsernameTaken) => match self.store.player(subject).await? {
                Some(player) => self.stored_provider_player(player),
                None => Err(username_taken(&username)),
            },
        }
    }

    /// `player`, found by a provider's subject, unless Arbiter enrolled
    /// them.
    fn stored_provider_player(&self, player: StoredPlayer) -> Result<StoredPlayer, GameError> {
        if player.origin == PlayerOrigin::Enrolled {
            return Err(GameError::AlreadyExists(Refusal::new(
                Reason::UsernameTaken,
                format!(
                    "{} is the id of a player enrolled on this server, not one of the identity \
                     provider's",
                    Quoted(&player.id)
                ),
            )));
        }
        Ok(player)
    }

    /// The player whose id or username (in any case) is `name`.
    ///
    /// # Errors
    ///
    /// No such player, or storage.
    pub async fn get(&self, name: &str) -> Result<StoredPlayer, GameError> {
        let not_found = || {
            GameError::NotFound(Refusal::new(
                Reason::PlayerNotFound,
                format!("player {} not found", Quoted(name)),
            ))
        };
        // An id as it is (an identity provider's subject), then a username
        // in any case; what can be neither is not looked up.
        if name.len() <= MAX_ID
            && name.bytes().all(|b| b.is_ascii_graphic())
            && let Some(player) = self.store.player(name).await?
        {
            return Ok(player);
        }
        let username = Username::parse(name).map_err(|_| not_found())?;
        self.store
            .player_by_username(username.as_str())
            .await?
            .ok_or_else(not_found)
    }

    /// Makes player `id` a bot account (for good: Lichess has no way back).
    ///
    /// # Errors
    ///
    /// No such player, or storage.
    pub async fn make_bot(&self, id: &str) -> Result<(), GameError> {
        if self.store.make_bot(id).await? {
            Ok(())
        } else {
            Err(GameError::NotFound(Refusal::new(
                Reason::PlayerNotFound,
                format!("player {} not found", Quoted(id)),
            )))
        }
    }

    /// Player `id`'s ratings, by perf.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn ratings(&self, id: &str) -> Result<Vec<(String, StoredRating)>, GameError> {
        Ok(self.store.ratings_of(id).await?)
    }

    /// The rating history of the player `name` (id or username) in
    /// `perf`, newest first, at most `limit` lines.
    ///
    /// # Errors
    ///
    /// No such player, or storage.
    pub async fn rating_history(
        &self,
        name: &str,
        perf: &str,
        limit: usize,
    ) -> Result<Vec<RatingChange>, GameError> {
        let player = self.get(name).await?;
        Ok(self.store.rating_history(&player.id, perf, limit).await?)
    }

    /// The best established ratings in `perf`, at most `limit`: those
    /// whose deviation, grown by the time since their last game, is below
    /// the provisional one.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn leaderboard(&self, perf: &str, limit: usize) -> Result<Vec<Ranked>, GameError> {
        let now = crate::store::now_millis();
        Ok(self
            .store
            .leaderboard(perf, PROVISIONAL_DEVIATION, IDLE_GROWTH_PER_MS, now, limit)
            .await?)
    }

    /// Whether `token` is the operator credential.
    pub fn is_operator(&self, token: &str) -> bool {
        is_admin(self.admin.as_ref(), token)
    }

    /// Whether `token` is a trusted backend's: the operator credential or
    /// the service credential, either of which acts for a player.
    pub fn is_backend(&self, token: &str) -> bool {
        self.is_operator(token) || is_admin(self.service.as_ref(), token)
    }

    /// The id of the player holding `token`.
    ///
    /// # Errors
    ///
    /// UNAUTHENTICATED (`PLAYER_TOKEN_UNKNOWN`), or storage.
    pub async fn authenticate(&self, token: &str) -> Result<String, GameError> {
        if let Some(jwt) = self.jwt.as_ref().filter(|_| Jwt::looks_like(token)) {
            // A verified JWT is taken again without verifying its signature
            // for a moment (see `checked`): a player's calls reuse one.
            let hash = format!("jwt:{}", hash_token(token));
            if let Some(id) = self.checked.player(&hash) {
                return Ok(id);
            }
            let named = jwt.verify(token).await?;
            let lives = Duration::from_secs(named.expires_at.saturating_sub(unix_seconds()));
            let id = self.ensure(named).await?;
            self.checked
                .remember_until(hash, id.clone(), Instant::now() + lives);
            return Ok(id);
        }
        // Looked up by its hash: the time taken tells nothing of the token.
        let hash = hash_token(token);
        if let Some(id) = self.checked.player(&hash) {
            return Ok(id);
        }
        let id = self.store.player_of_token(&hash).await?.ok_or_else(|| {
            GameError::Unauthenticated(Refusal::new(
                Reason::PlayerTokenUnknown,
                "the authorization token is no player's (or was revoked)",
            ))
        })?;
        self.checked.remember(hash, id.clone());
        Ok(id)
    }

    /// The id of the player a JWT names, created on their first call.
    async fn ensure(&self, named: JwtPlayer) -> Result<String, GameError> {
        // Known subjects are noted under a key no token hash can be.
        let known = format!("sub:{}", named.id);
        if self.checked.player(&known).is_some() {
            return Ok(named.id);
        }
        if let Some(player) = self.store.player(&named.id).await? {
            return self.provider_player(player, known);
        }
        let display_name = named
            .name
            .filter(|name| {
                refuse_hidden_characters("name", name).is_ok()
                    && !name.trim().is_empty()
                    && name.chars().count() <= MAX_DISPLAY_NAME
            })
            .unwrap_or_else(|| named.id.clone());
        // The provider's username, else the subject, else one made from the
        // subject: the first that is a username and nobody's.
        let usernames = [named.username.as_deref(), Some(named.id.as_str())]
            .into_iter()
            .flatten()
            .filter(|name| Username::parse(name).is_ok())
            .map(str::to_owned)
            .chain([made_username(&named.id)])
            .collect::<Vec<_>>();
        for username in usernames {
            let player = StoredPlayer {
                id: named.id.clone(),
                username,
                display_name: display_name.trim().to_owned(),
                created_at: 0,
                bot: false,
                origin: PlayerOrigin::Provider,
            };
            // No player token is issued: the provider's JWTs name them.
            if self.store.insert_player(player, None).await?.is_ok() {
                self.checked.remember(known, named.id.clone());
                return Ok(named.id);
            }
            // Created by a racing call, or a deleted player whose id stays
            // theirs; else the username is another player's.
            if let Some(player) = self.store.player(&named.id).await? {
                return self.provider_player(player, known);
            }
            if self.store.player_deleted(&named.id).await? {
                return Err(GameError::Unauthenticated(Refusal::new(
                    Reason::PlayerDeleted,
                    "the token names a player who was deleted",
                )));
            }
        }
        Err(GameError::Unauthenticated(Refusal::new(
            Reason::JwtInvalid,
            "the JWT is refused: no username is free for its subject",
        )))
    }

    /// The id of `player`, whom a JWT names, unless Arbiter enrolled them:
    /// a provider's subject never acts as a player enrolled here.
    fn provider_player(&self, player: StoredPlayer, known: String) -> Result<String, GameError> {
        if player.origin == PlayerOrigin::Enrolled {
            return Err(GameError::Unauthenticated(Refusal::new(
                Reason::JwtInvalid,
                "the JWT is refused: its sub is the id of a player enrolled on this server, not \
                 one of the identity provider's",
            )));
        }
        self.checked.remember(known, player.id.clone());
        Ok(player.id)
    }

    /// A new token for player `id`.
    ///
    /// # Errors
    ///
    /// RESOURCE_EXHAUSTED (`TOO_MANY_PLAYER_TOKENS`) past the tokens a
    /// player may hold, or storage.
    pub async fn issue_token(&self, id: &str) -> Result<String, GameError> {
        let token = new_token();
        if self
            .store
            .add_player_token(id, &hash_token(&token), self.max_tokens)
            .await?
        {
            Ok(token)
        } else {
            Err(GameError::OverLimit {
                field: "authorization",
                reason: Reason::TooManyPlayerTokens,
                limit: "limit",
                value: self.max_tokens,
                message: format!(
                    "a player holds at most {} tokens at once: revoke one first",
                    self.max_tokens
                ),
            })
        }
    }

    /// Revokes `token` of player `id`, or all their tokens; how many were.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn revoke(&self, id: &str, token: &str, all: bool) -> Result<u64, GameError> {
        let hash = hash_token(token);
        let only = (!all).then_some(hash.as_str());
        let revoked = self.store.revoke_player_tokens(id, only).await?;
        self.checked.forget(id, only);
        Ok(revoked)
    }
}

/// `display_name` once checked; left empty, `unnamed`.
fn checked_display_name(display_name: &str, unnamed: &str) -> Result<String, GameError> {
    refuse_hidden_characters("display_name", display_name)?;
    match display_name.trim() {
        "" => Ok(unnamed.to_owned()),
        name if name.chars().count() > MAX_DISPLAY_NAME => Err(GameError::invalid(
            "display_name",
            Reason::TooLong,
            format!("a display name of at most {MAX_DISPLAY_NAME} characters is allowed"),
        )),
        name => Ok(name.to_owned()),
    }
}

fn username_taken(username: &Username) -> GameError {
    GameError::AlreadyExists(Refusal::new(
        Reason::UsernameTaken,
        format!("the username {username} is taken (usernames are unique in any case)"),
    ))
}

/// Seconds since 1970, now.
fn unix_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A username for an identity provider's subject whose own names are none
/// (or are taken): `u` and 15 hex digits of the subject's SHA-256.
fn made_username(subject: &str) -> String {
    format!("u{}", &hash_token(subject)[..15])
}
