//! Seeks and the pairing pool: a player seeks a game (variant, time
//! control, rated or casual, the opponents' ratings they accept, a colour),
//! and the pool pairs compatible seeks (see `pairing`) into games bound to
//! both players.
//!
//! A real-time seek (a clock) lives while the stream that made it is open:
//! the stream withdraws it when it ends, and a seek whose server is gone
//! (a stopped replica) is swept. A correspondence seek lives until it is
//! paired or withdrawn. The pool runs every `--pairing-interval` on one
//! server only (every server on SQLite is alone; on PostgreSQL the holder
//! of the first shard's lease); a pairing marks both seeks in the
//! transaction that creates their game, only if both are still open, so a
//! seek is paired once even when two servers pair at once (a lease
//! changing hands). A real-time pairing withdraws the players' other
//! real-time seeks in that transaction: one game at a time.

use std::{
    sync::{
        Arc,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use rand::Rng;
use tokio::sync::{Notify, watch};

use super::{Players, pairing};
use crate::{
    games::{
        GameError, GameId, GameView, Games, Refusal, SeatSpec, Start, Terms, TimeControl,
        TimeSource,
        model::{INITIAL_RATING, Speed, new_id, perf},
    },
    reason::Reason,
    rules::{RuleChoices, Side, Variant},
    store::{Pairing, SeekGone, Store, StoredSeek, TooManySeeks},
};

/// Default `--max-seeks-per-player`.
pub const DEFAULT_MAX_SEEKS_PER_PLAYER: usize = 4;
/// Default `--pairing-interval`.
pub const DEFAULT_PAIRING_INTERVAL: Duration = Duration::from_secs(1);
/// Most open seeks a pass reads (oldest first), so that a pass's memory is
/// bounded whatever waits.
pub const MAX_POOL: usize = 100_000;
/// How often the pool sweeps the seeks of servers gone.
const SWEEP_EVERY_MS: i64 = 5_000;
/// Most seeks the lobby lists.
pub const LOBBY_SIZE: usize = 500;

/// What a seek asks for.
#[derive(Clone, Debug)]
pub struct SeekSpec {
    pub variant: Variant,
    pub choices: RuleChoices,
    pub time_control: TimeControl,
    pub rated: bool,
    /// The opponents' ratings accepted, both ends included.
    pub rating_min: Option<i64>,
    pub rating_max: Option<i64>,
    /// The seeker's colour (`None`: either).
    pub color: Option<Side>,
}

/// The open seeks as last read, for the lobby's streams.
pub type Lobby = Arc<Vec<StoredSeek>>;

/// The seeks service and its pool.
#[derive(Clone, Debug)]
pub struct Seeks {
    store: Store,
    games: Games,
    players: Players,
    time: Arc<dyn TimeSource>,
    max_per_player: usize,
    interval: Duration,
    lobby: watch::Sender<Lobby>,
    /// Wakes the pool (and the lobby's reading) after a seek here.
    sought: Arc<Notify>,
    /// When the pool last swept gone seeks (unix milliseconds).
    swept_at: Arc<AtomicI64>,
}

impl Seeks {
    pub fn new(players: Players, games: Games, time: Arc<dyn TimeSource>) -> Seeks {
        Seeks {
            store: players.store.clone(),
            games,
            players,
            time,
            max_per_player: DEFAULT_MAX_SEEKS_PER_PLAYER,
            interval: DEFAULT_PAIRING_INTERVAL,
            lobby: watch::Sender::new(Lobby::default()),
            sought: Arc::default(),
            swept_at: Arc::default(),
        }
    }

    /// A player has at most `max_per_player` open seeks; the pool pairs
    /// every `interval`.
    #[must_use]
    pub fn with_limits(self, max_per_player: usize, interval: Duration) -> Seeks {
        Seeks {
            max_per_player: max_per_player.max(1),
            interval: interval.max(Duration::from_millis(10)),
            ..self
        }
    }

    /// Player `player` seeks as `spec` says: a real-time seek (a clock) is
    /// held by this server until [`Seeks::end_stream`].
    ///
    /// # Errors
    ///
    /// A seek that cannot be ([`Reason::InvalidSeek`]), too many open, or
    /// storage.
    pub async fn seek(&self, player: &str, spec: SeekSpec) -> Result<StoredSeek, GameError> {
        if let (Some(min), Some(max)) = (spec.rating_min, spec.rating_max)
            && min > max
        {
            return Err(GameError::invalid(
                "rating_min",
                Reason::InvalidSeek,
                "the rating range's low end is above its high end",
            ));
        }
        let now = self.time.now();
        let perf = perf(spec.variant, Speed::of(spec.time_control));
        let rating = self
            .players
            .ratings(player)
            .await?
            .into_iter()
            .find_map(|(p, rating)| (p == perf).then_some(rating.rating))
            .unwrap_or(INITIAL_RATING.rating);
        let realtime = matches!(spec.time_control, TimeControl::Clock { .. });
        let seek = StoredSeek {
            id: new_id(),
            player: player.to_owned(),
            rating: rating.round() as i64,
            variant: spec.variant,
            xiangqi_rules: (spec.variant == Variant::Xiangqi)
                .then(|| spec.choices.xiangqi.name().to_owned()),
            clock: spec.time_control.stored(),
            rated: spec.rated,
            rating_min: spec.rating_min,
            rating_max: spec.rating_max,
            color: spec.color,
            holder: realtime.then(|| self.games.server_name().to_owned()),
            game_id: None,
            created_at: now,
        };
        match self.store.insert_seek(&seek, self.max_per_player).await? {
            Ok(()) => {
                self.sought.notify_one();
                Ok(seek)
            }
            Err(TooManySeeks) => Err(GameError::OverLimit {
                field: "variant",
                reason: Reason::TooManySeeks,
                limit: "limit",
                value: self.max_per_player,
                message: format!(
                    "a player has at most {} open seeks: withdraw one first",
                    self.max_per_player
                ),
            }),
        }
    }

    /// Player `player` withdraws their open seek `id`.
    ///
    /// # Errors
    ///
    /// No open seek of theirs has the id, or storage.
    pub async fn withdraw(&self, player: &str, id: &str) -> Result<(), GameError> {
        if self.store.withdraw_seek(id, player).await? {
            self.sought.notify_one();
            Ok(())
        } else {
            Err(seek_not_found())
        }
    }

    /// The game seek `id` was paired into: `None` while it is open.
    ///
    /// # Errors
    ///
    /// The seek is gone (withdrawn, or swept), or storage.
    pub async fn paired(&self, id: &str) -> Result<Option<GameView>, GameError> {
        let seek = self.store.seek(id).await?.ok_or_else(seek_not_found)?;
        match seek.game_id {
            None => Ok(None),
            Some(game) => Ok(Some(self.games.get(&GameId::parse(&game)?).await?)),
        }
    }

    /// Ends the stream of real-time seek `seek`: withdrawn if still open.
    pub async fn end_stream(&self, seek: &StoredSeek) {
        if let Err(error) = self.withdraw(&seek.player, &seek.id).await
            && !matches!(error, GameError::NotFound(_))
        {
            tracing::warn!(seek_id = %seek.id, %error, "a seek's stream ended; withdrawing it failed");
        }
    }

    /// The open seeks (at most [`LOBBY_SIZE`], oldest first).
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn lobby(&self) -> Result<Vec<StoredSeek>, GameError> {
        Ok(self
            .store
            .open_seeks(self.games.server_name(), self.time.now(), LOBBY_SIZE)
            .await?)
    }

    /// The lobby as the pool's task reads it (every interval, while
    /// someone watches).
    pub fn watch_lobby(&self) -> watch::Receiver<Lobby> {
        self.sought.notify_one();
        self.lobby.subscribe()
    }

    /// Pairs what the pool can pair now: the number of games started.
    ///
    /// # Errors
    ///
    /// Storage.
    pub async fn pair(&self) -> Result<usize, GameError> {
        let now = self.time.now();
        let me = self.games.server_name();
        let swept = self.swept_at.load(Ordering::Relaxed);
        if now - swept >= SWEEP_EVERY_MS || now < swept {
            self.store.sweep_seeks(me, now).await?;
            self.swept_at.store(now, Ordering::Relaxed);
        }
        let open = self.store.open_seeks(me, now, MAX_POOL).await?;
        let mut started = 0;
        for (a, b) in pairing::pairs(&open, now) {
            if self.start(&open[a], &open[b], now).await? {
                started += 1;
            }
        }
        Ok(started)
    }

    /// Starts the game of seeks `a` and `b`: whether it started (not if
    /// one of them went meanwhile).
    async fn start(&self, a: &StoredSeek, b: &StoredSeek, now: i64) -> Result<bool, GameError> {
        let a_color = self.colors(a, b).await?;
        let (white, black) = match a_color {
            Side::White => (a, b),
            Side::Black => (b, a),
        };
        let pairing = Pairing {
            seeks: [&a.id, &b.id],
            now,
            realtime: a.holder.is_some(),
        };
        let store = &self.store;
        let created = self
            .games
            .create_inserting(
                a.variant,
                RuleChoices::named(a.xiangqi_rules.as_deref()),
                Start::Standard,
                [self.seat_of(white).await?, self.seat_of(black).await?],
                Terms {
                    engine_grants_takebacks: true,
                    rated: a.rated,
                },
                Some(TimeControl::from_stored(&a.clock)),
                async |game| store.insert_game_pairing(game, &pairing).await,
            )
            .await?;
        match created {
            Ok(created) => {
                tracing::info!(game_id = %created.game.id, "seeks paired");
                Ok(true)
            }
            Err(SeekGone) => Ok(false),
        }
    }

    /// The colour seek `a` plays against `b`: a colour asked for; else
    /// the other colour than each player's latest game's, when they
    /// differ; else drawn.
    async fn colors(&self, a: &StoredSeek, b: &StoredSeek) -> Result<Side, GameError> {
        if let Some(color) = a.color {
            return Ok(color);
        }
        if let Some(color) = b.color {
            return Ok(color.other());
        }
        let latest_a = self.store.latest_color(&a.player).await?;
        let latest_b = self.store.latest_color(&b.player).await?;
        Ok(match (latest_a, latest_b) {
            (Some(x), Some(y)) if x != y => x.other(),
            (Some(x), None) => x.other(),
            (None, Some(y)) => y,
            _ => {
                if rand::rng().random() {
                    Side::White
                } else {
                    Side::Black
                }
            }
        })
    }

    /// The seat of seek `seek`'s player.
    async fn seat_of(&self, seek: &StoredSeek) -> Result<SeatSpec, GameError> {
        let player = self.players.get(&seek.player).await?;
        Ok(SeatSpec {
            display_name: player.display_name,
            player: Some(player.id),
            ..SeatSpec::default()
        })
    }

    /// Runs the pool (where this server leads) and reads the lobby (while
    /// someone watches it) every interval, or at once after a seek here,
    /// until `shutdown`.
    pub fn keep_pairing(self, mut shutdown: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(self.interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.wait_for(|stop| *stop) => return,
                    _ = tick.tick() => {}
                    () = self.sought.notified() => {}
                }
                if self.games.leads()
                    && let Err(error) = self.pair().await
                {
                    tracing::warn!(%error, "pairing failed; trying again");
                }
                if self.lobby.receiver_count() > 0 {
                    match self.lobby().await {
                        Ok(seeks) => {
                            self.lobby.send_replace(Arc::new(seeks));
                        }
                        Err(error) => tracing::warn!(%error, "reading the lobby failed"),
                    }
                }
            }
        })
    }
}

fn seek_not_found() -> GameError {
    GameError::NotFound(Refusal::new(
        Reason::SeekNotFound,
        "no open seek of yours has this id (withdrawn, paired, or its server stopped)",
    ))
}
