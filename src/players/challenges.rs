//! Challenges: a player asks another (or anyone, or the engine) for a
//! game; accepting starts it, with both seats bound to their players.
//!
//! A challenge waits for an answer until its expiry; it is accepted,
//! declined or withdrawn once, by a conditional write on its stored state,
//! and its acceptance is written in the transaction that creates its game
//! (`Store::insert_game_accepting`): one game per challenge, whoever races,
//! on one server or several.

use std::{sync::Arc, time::Duration};

use rand::Rng;

use super::Players;
use crate::{
    games::{
        EngineSeat, GameError, GameId, GameView, Games, Refusal, SeatSpec, Start, Terms,
        TimeControl, TimeSource, model::new_id,
    },
    reason::Reason,
    rules::{
        Game, Quoted, RuleChoices, Side, Variant, chess::Chess960Start, referee::referee_under,
    },
    store::{Acceptance, ChallengeAnswered, ChallengeState, Store, StoredChallenge},
};

/// Default `--challenge-expiry`.
pub const DEFAULT_CHALLENGE_EXPIRY: Duration = Duration::from_secs(30 * 60);
/// Default `--max-challenges-per-player`.
pub const DEFAULT_MAX_CHALLENGES_PER_PLAYER: usize = 20;
/// Most players an open challenge may be open to.
pub const MAX_OPEN_TO: usize = 32;
/// Most challenges a list holds, each way.
const LISTED: usize = 100;

/// What a challenge asks for.
#[derive(Clone, Debug, Default)]
pub struct ChallengeSpec {
    /// The player challenged (by id or username); `None`: open, or the
    /// engine.
    pub destination: Option<String>,
    /// An open challenge only these players (ids or usernames) may accept.
    pub open_to: Vec<String>,
    /// A challenge to the engine.
    pub engine: Option<EngineSeat>,
    pub variant: Variant,
    pub choices: RuleChoices,
    /// The start position (`None`: the standard start).
    pub fen: Option<String>,
    /// A Chess960 challenge's start by its number; with no start chosen one
    /// is drawn when the challenge is made, so that both players see it.
    pub chess960: Option<Chess960Start>,
    pub time_control: Option<TimeControl>,
    /// The challenger's colour (`None`: drawn at acceptance).
    pub color: Option<Side>,
    pub rated: bool,
    /// Made for two other players (an open challenge only): the maker does
    /// not play; the first to accept takes a seat (the first of two players
    /// named in `open_to` plays white), the second starts the game.
    pub for_others: bool,
}

/// Where a challenge stands, as of when it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChallengeStatus {
    Open,
    Accepted,
    Declined,
    Canceled,
    Expired,
}

/// A challenge as of when it is read.
#[derive(Clone, Debug)]
pub struct Challenge {
    pub status: ChallengeStatus,
    pub stored: StoredChallenge,
}

impl Challenge {
    fn at(stored: StoredChallenge, now: i64) -> Challenge {
        let status = match stored.state {
            ChallengeState::Open if stored.expires_at <= now => ChallengeStatus::Expired,
            ChallengeState::Open => ChallengeStatus::Open,
            ChallengeState::Accepted => ChallengeStatus::Accepted,
            ChallengeState::Declined => ChallengeStatus::Declined,
            ChallengeState::Canceled => ChallengeStatus::Canceled,
        };
        Challenge { status, stored }
    }

    /// The time control asked for.
    pub fn time_control(&self) -> Option<TimeControl> {
        self.stored.clock.as_ref().map(TimeControl::from_stored)
    }

    /// The engine asked for.
    pub fn engine(&self) -> Option<EngineSeat> {
        EngineSeat::from_stored(self.stored.engine)
    }

    /// The rules the game is to be played under.
    pub fn choices(&self) -> RuleChoices {
        RuleChoices::named(self.stored.xiangqi_rules.as_deref())
    }
}

/// A challenge accepted: the challenge, and the game it started (`None`
/// when the acceptance took the first seat of one made for others).
#[derive(Clone, Debug)]
pub struct Accepted {
    pub challenge: Challenge,
    pub game: Option<GameView>,
}

/// The challenges service.
#[derive(Clone, Debug)]
pub struct Challenges {
    store: Store,
    games: Games,
    players: Players,
    time: Arc<dyn TimeSource>,
    expiry: Duration,
    max_waiting: usize,
}

impl Challenges {
    pub fn new(players: Players, games: Games, time: Arc<dyn TimeSource>) -> Challenges {
        Challenges {
            store: players.store.clone(),
            games,
            players,
            time,
            expiry: DEFAULT_CHALLENGE_EXPIRY,
            max_waiting: DEFAULT_MAX_CHALLENGES_PER_PLAYER,
        }
    }

    /// Challenges expire `expiry` after they are made, and a player has at
    /// most `max_waiting` waiting at once.
    #[must_use]
    pub fn with_limits(self, expiry: Duration, max_waiting: usize) -> Challenges {
        Challenges {
            expiry,
            max_waiting: max_waiting.max(1),
            ..self
        }
    }

    /// Player `challenger` challenges as `spec` says; a challenge to the
    /// engine starts its game at once (answered with it).
    ///
    /// # Errors
    ///
    /// A challenge that cannot be (see [`Reason::InvalidChallenge`]), an
    /// unknown player, a bad FEN, too many waiting, or storage.
    pub async fn create(
        &self,
        challenger: &str,
        spec: ChallengeSpec,
    ) -> Result<(Challenge, Option<GameView>), GameError> {
        let now = self.time.now();
        let invalid =
            |message: &str| GameError::invalid("destination_id", Reason::InvalidChallenge, message);
        let destination = match &spec.destination {
            None => None,
            Some(_) if spec.engine.is_some() || !spec.open_to.is_empty() => {
                return Err(invalid(
                    "a challenge goes to a player, to the engine, or is open: one of them",
                ));
            }
            Some(name) => Some(self.players.get(name).await?.id),
        };
        if destination.as_deref() == Some(challenger) {
            return Err(invalid("a player cannot challenge themselves"));
        }
        if spec.for_others
            && (destination.is_some()
                || spec.engine.is_some()
                || !matches!(spec.open_to.len(), 0 | 2)
                || (!spec.open_to.is_empty() && spec.color.is_some()))
        {
            return Err(GameError::invalid(
                "for_others",
                Reason::InvalidChallenge,
                "a challenge for two other players is open, to anyone or to two players (the \
                 first named plays white)",
            ));
        }
        if spec.open_to.len() > MAX_OPEN_TO || (spec.engine.is_some() && !spec.open_to.is_empty()) {
            return Err(GameError::invalid(
                "open_to",
                Reason::InvalidChallenge,
                format!("an open challenge is open to at most {MAX_OPEN_TO} players"),
            ));
        }
        let mut open_to = Vec::with_capacity(spec.open_to.len());
        for name in &spec.open_to {
            open_to.push(self.players.get(name.trim()).await?.id);
        }
        if spec.for_others && open_to.len() == 2 && open_to[0] == open_to[1] {
            return Err(invalid(
                "a challenge for two other players names two players",
            ));
        }
        if spec.rated
            && (spec.engine.is_some() || spec.time_control.is_none() || spec.fen.is_some())
        {
            return Err(GameError::invalid(
                "rated",
                Reason::InvalidRatedGame,
                "a rated challenge is timed, from the standard start, and not to the engine",
            ));
        }
        let fen = start_fen(&spec)?;
        referee_under::<&str>(spec.variant, spec.choices, fen.as_deref(), &[]).map_err(
            |error| GameError::InvalidPosition {
                field: "fen",
                error,
            },
        )?;
        let stored = StoredChallenge {
            id: new_id(),
            challenger: challenger.to_owned(),
            destination,
            open_to,
            engine: spec.engine.map(EngineSeat::stored),
            variant: spec.variant,
            start_fen: fen,
            xiangqi_rules: (spec.variant == Variant::Xiangqi)
                .then(|| spec.choices.xiangqi.name().to_owned()),
            clock: spec.time_control.map(TimeControl::stored),
            color: spec.color,
            rated: spec.rated,
            for_others: spec.for_others,
            state: ChallengeState::Open,
            decline_reason: None,
            game_id: None,
            acceptor: None,
            created_at: now,
            expires_at: now
                .saturating_add(i64::try_from(self.expiry.as_millis()).unwrap_or(i64::MAX)),
        };
        if let Some(engine) = spec.engine {
            return self.play_engine(stored, engine).await;
        }
        let inserted = self
            .store
            .insert_challenge(&stored, Some(self.max_waiting))
            .await?;
        if inserted.is_err() {
            return Err(GameError::OverLimit {
                field: "destination_id",
                reason: Reason::TooManyChallenges,
                limit: "limit",
                value: self.max_waiting,
                message: format!(
                    "a player has at most {} challenges waiting for an answer: cancel one, or \
                     wait for answers",
                    self.max_waiting
                ),
            });
        }
        let told = [&stored.challenger].into_iter().chain(&stored.destination);
        for player in told.chain(&stored.open_to) {
            self.games.bells().ring(player);
        }
        Ok((Challenge::at(stored, now), None))
    }

    /// Starts the game of a challenge to the engine, and records the
    /// challenge as accepted with it.
    async fn play_engine(
        &self,
        mut stored: StoredChallenge,
        engine: EngineSeat,
    ) -> Result<(Challenge, Option<GameView>), GameError> {
        let now = self.time.now();
        let challenger = self.seat_of(&stored.challenger).await?;
        let engine = SeatSpec {
            engine: Some(engine),
            ..SeatSpec::default()
        };
        let color = stored.color.unwrap_or_else(random_side);
        let [white, black] = match color {
            Side::White => [challenger, engine],
            Side::Black => [engine, challenger],
        };
        let challenge = Challenge::at(stored.clone(), now);
        let created = self
            .games
            .create_under(
                stored.variant,
                challenge.choices(),
                start(&stored),
                white,
                black,
                Terms {
                    engine_grants_takebacks: true,
                    rated: false,
                },
                challenge.time_control(),
            )
            .await?;
        stored.state = ChallengeState::Accepted;
        stored.game_id = Some(created.game.id.to_string());
        stored.acceptor = Some(stored.challenger.clone());
        // Accepted already: it waits for nothing, and counts for no limit.
        let _ = self.store.insert_challenge(&stored, None).await?;
        Ok((Challenge::at(stored, now), Some(created.game)))
    }

    /// Player `acceptor` accepts challenge `id`: its game starts, or, for
    /// the first to accept one made for others, they take a seat (`color`
    /// if they ask for one and nobody is named). Accepting a challenge one
    /// has accepted already answers its game again.
    ///
    /// # Errors
    ///
    /// An unknown challenge, one not the acceptor's to take, one answered
    /// already, or storage.
    pub async fn accept(
        &self,
        acceptor: &str,
        id: &str,
        color: Option<Side>,
    ) -> Result<Accepted, GameError> {
        let now = self.time.now();
        let mut challenge = self.get(id, now).await?;
        if let Some(accepted) = self.accepted_by(&challenge, acceptor).await? {
            return Ok(accepted);
        }
        answerable(&challenge)?;
        if challenge.stored.for_others {
            if let Some(taken) = self.take_first_seat(&challenge, acceptor, color).await? {
                return Ok(taken);
            }
            // Another player took the first seat meanwhile: this is the
            // second.
            challenge = self.get(id, now).await?;
            answerable(&challenge)?;
        }
        let stored = &challenge.stored;
        let may = match &stored.destination {
            Some(destination) => destination == acceptor,
            None => {
                stored.engine.is_none()
                    && stored.challenger != acceptor
                    && (stored.open_to.is_empty() || stored.open_to.iter().any(|p| p == acceptor))
            }
        };
        if !may {
            return Err(not_yours("this challenge is not yours to accept"));
        }
        let color = stored.color.unwrap_or_else(random_side);
        let (challenger, taker) = (
            self.seat_of(&stored.challenger).await?,
            self.seat_of(acceptor).await?,
        );
        let seats = match color {
            Side::White => [challenger, taker],
            Side::Black => [taker, challenger],
        };
        let acceptance = Acceptance {
            challenge: &stored.id,
            acceptor,
            now,
        };
        let created = self
            .games
            .create_accepting(
                stored.variant,
                challenge.choices(),
                start(stored),
                seats,
                stored.rated,
                challenge.time_control(),
                &acceptance,
            )
            .await?;
        match created {
            Ok(created) => {
                let stored = self.get(id, now).await?;
                Ok(Accepted {
                    challenge: stored,
                    game: Some(created.game),
                })
            }
            // Answered meanwhile: by this player elsewhere (the same game),
            // or otherwise.
            Err(ChallengeAnswered) => {
                let challenge = self.get(id, now).await?;
                match self.accepted_by(&challenge, acceptor).await? {
                    Some(accepted) => Ok(accepted),
                    None => Err(answered(&challenge)),
                }
            }
        }
    }

    /// Player `by` declines challenge `id`, made to them, for `reason`.
    ///
    /// # Errors
    ///
    /// An unknown challenge, one not made to `by`, one answered already, or
    /// storage.
    pub async fn decline(&self, by: &str, id: &str, reason: &str) -> Result<Challenge, GameError> {
        let now = self.time.now();
        let challenge = self.get(id, now).await?;
        if challenge.stored.destination.as_deref() != Some(by) {
            return Err(not_yours(
                "only the player challenged declines a challenge (an open one is left to expire)",
            ));
        }
        self.answer(challenge, ChallengeState::Declined, Some(reason), now)
            .await
    }

    /// Player `by` withdraws challenge `id`, theirs.
    ///
    /// # Errors
    ///
    /// An unknown challenge, one not `by`'s, one answered already, or
    /// storage.
    pub async fn cancel(&self, by: &str, id: &str) -> Result<Challenge, GameError> {
        let now = self.time.now();
        let challenge = self.get(id, now).await?;
        if challenge.stored.challenger != by {
            return Err(not_yours("only its challenger withdraws a challenge"));
        }
        self.answer(challenge, ChallengeState::Canceled, None, now)
            .await
    }

    /// The challenges waiting for `player`'s answer, and those they made
    /// that wait for one, newest first.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn list(&self, player: &str) -> Result<(Vec<Challenge>, Vec<Challenge>), GameError> {
        let now = self.time.now();
        let at = |list: Vec<StoredChallenge>| {
            list.into_iter()
                .map(|c| Challenge::at(c, now))
                .collect::<Vec<_>>()
        };
        let incoming = self.store.challenges_to(player, now, LISTED).await?;
        let outgoing = self.store.challenges_from(player, now, LISTED).await?;
        Ok((at(incoming), at(outgoing)))
    }

    async fn answer(
        &self,
        challenge: Challenge,
        state: ChallengeState,
        reason: Option<&str>,
        now: i64,
    ) -> Result<Challenge, GameError> {
        answerable(&challenge)?;
        let id = &challenge.stored.id;
        match self.store.answer_challenge(id, state, reason, now).await? {
            Ok(()) => {
                // The other side's stream tells the answer.
                let stored = &challenge.stored;
                let told = match state {
                    ChallengeState::Declined => Some(&stored.challenger),
                    _ => stored.destination.as_ref(),
                };
                if let Some(player) = told {
                    self.games.bells().ring(player);
                }
                self.get(id, now).await
            }
            Err(ChallengeAnswered) => Err(answered(&self.get(id, now).await?)),
        }
    }

    /// The challenge `id` as it stands now.
    ///
    /// # Errors
    ///
    /// No such challenge, or storage.
    pub async fn challenge(&self, id: &str) -> Result<Challenge, GameError> {
        self.get(id, self.time.now()).await
    }

    async fn get(&self, id: &str, now: i64) -> Result<Challenge, GameError> {
        let stored = self.store.challenge(id).await?.ok_or_else(|| {
            GameError::NotFound(Refusal::new(
                Reason::ChallengeNotFound,
                format!("challenge {} not found", Quoted(id)),
            ))
        })?;
        Ok(Challenge::at(stored, now))
    }

    /// The game of `challenge`, if `acceptor` accepted it.
    async fn accepted_by(
        &self,
        challenge: &Challenge,
        acceptor: &str,
    ) -> Result<Option<Accepted>, GameError> {
        let stored = &challenge.stored;
        match (&stored.game_id, &stored.acceptor) {
            (Some(game), Some(by)) if by == acceptor && stored.engine.is_none() => {
                Ok(Some(Accepted {
                    challenge: challenge.clone(),
                    game: Some(self.games.get(&GameId::parse(game)?).await?),
                }))
            }
            _ => Ok(None),
        }
    }

    /// `acceptor` takes the first seat of `challenge`, made for others:
    /// `None` if another player took it first.
    async fn take_first_seat(
        &self,
        challenge: &Challenge,
        acceptor: &str,
        color: Option<Side>,
    ) -> Result<Option<Accepted>, GameError> {
        let stored = &challenge.stored;
        let named = stored.open_to.iter().position(|p| p == acceptor);
        if named.is_none() && !stored.open_to.is_empty() {
            return Err(not_yours("this challenge is not yours to accept"));
        }
        let color = match named {
            Some(0) => Some(Side::White),
            Some(_) => Some(Side::Black),
            None => color.or(stored.color),
        };
        let now = self.time.now();
        if self
            .store
            .take_first_seat(&stored.id, acceptor, color, now)
            .await?
            .is_err()
        {
            return Ok(None);
        }
        for player in stored.open_to.iter().chain([&stored.challenger]) {
            self.games.bells().ring(player);
        }
        Ok(Some(Accepted {
            challenge: self.get(&stored.id, now).await?,
            game: None,
        }))
    }

    /// The seat of player `id` (named by their display name).
    async fn seat_of(&self, id: &str) -> Result<SeatSpec, GameError> {
        let player = self.players.get(id).await?;
        Ok(SeatSpec {
            display_name: player.display_name,
            player: Some(player.id),
            ..SeatSpec::default()
        })
    }
}

/// The FEN a challenge starts from: the one given, or a Chess960 start
/// (the one numbered, or one drawn now).
fn start_fen(spec: &ChallengeSpec) -> Result<Option<String>, GameError> {
    let refused =
        |reason, message: String| Err(GameError::invalid("chess960_start", reason, message));
    match (spec.variant, spec.chess960, &spec.fen) {
        (_, Some(_), Some(_)) => refused(
            Reason::InvalidChallenge,
            "a challenge starts from a FEN or from a Chess960 start number, not both".to_owned(),
        ),
        (Variant::Chess960, number, None) => Ok(Some(
            number
                .unwrap_or_else(Chess960Start::random)
                .position()
                .fen(),
        )),
        (variant, Some(_), None) => refused(
            Reason::VariantMismatch,
            format!("a Chess960 start number is for Chess960 challenges, not {variant}"),
        ),
        (_, None, fen) => Ok(fen.clone()),
    }
}

/// The start of a challenge's game: a Chess960 start counts as the
/// variant's own (a rated game may start there).
fn start(stored: &StoredChallenge) -> Start {
    match &stored.start_fen {
        None => Start::Standard,
        Some(fen) => match Chess960Start::of_fen(fen) {
            Some(number) if stored.variant == Variant::Chess960 => Start::Chess960(number),
            _ => Start::Fen(fen.clone()),
        },
    }
}

fn random_side() -> Side {
    if rand::rng().random() {
        Side::White
    } else {
        Side::Black
    }
}

/// Refuses to answer a challenge that does not wait for an answer.
fn answerable(challenge: &Challenge) -> Result<(), GameError> {
    if challenge.status == ChallengeStatus::Open {
        Ok(())
    } else {
        Err(answered(challenge))
    }
}

fn answered(challenge: &Challenge) -> GameError {
    let state = match challenge.status {
        ChallengeStatus::Open => "open",
        ChallengeStatus::Accepted => "accepted",
        ChallengeStatus::Declined => "declined",
        ChallengeStatus::Canceled => "withdrawn",
        ChallengeStatus::Expired => "expired",
    };
    GameError::precondition(
        Reason::ChallengeAnswered,
        format!("the challenge is {state} already"),
    )
}

fn not_yours(message: &str) -> GameError {
    GameError::PermissionDenied(Refusal::new(Reason::NotYourChallenge, message))
}
