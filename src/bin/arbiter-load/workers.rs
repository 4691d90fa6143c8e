//! The tasks that keep requests in flight: one per request slot, each with
//! its connection and its script of games.

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, players_client::PlayersClient, rules_client::RulesClient,
};
use http::uri::PathAndQuery;
use prost::{Message, bytes::Bytes};
use tonic::{Request, Status, client::Grpc, transport::Channel};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};

use crate::{
    Fatal, SETUP_BACKOFF,
    args::{Asked, GameVariant, Rpc},
    describe,
    jwt::AsPlayers,
    long_game,
    raw_commit::Committer,
    wire::WireCodec,
};

/// Moves measured in each game of `--start-ply` before a fresh one is
/// imported.
pub(crate) const MEASURED_PLIES: u32 = 20;

/// The `LegalMoves` method, for the client that checks answers on the wire.
pub(crate) const LEGAL_MOVES_PATH: &str = "/arbiter.v1.Rules/LegalMoves";

/// The measured part of a run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Window {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
}

/// One task's client and state.
pub(crate) enum Worker {
    Health(HealthClient<Channel>),
    /// Answers checked on the wire.
    LegalMoves {
        client: Grpc<Channel>,
        request: Bytes,
    },
    /// Answers decoded into the generated messages.
    LegalMovesDecoded {
        client: RulesClient<Channel>,
        request: pb::LegalMovesRequest,
    },
    RawCommit(Committer),
    MakeMove(Player),
}

impl Worker {
    /// A task's worker for `rpc` over `channels`: one, or (alternating
    /// make-move) one for each server address, the task's own first.
    /// raw-commit's takes the `committer` instead.
    pub(crate) fn new(
        rpc: Rpc,
        (variant, asked): (GameVariant, Asked),
        channels: Vec<Channel>,
        script: &Arc<Script>,
        committer: Option<Committer>,
        as_players: Option<AsPlayers>,
    ) -> Result<Worker, Fatal> {
        if let Some(committer) = committer {
            return Ok(Worker::RawCommit(committer));
        }
        let Some(channel) = channels.first().cloned() else {
            return Err(Fatal(format!("{rpc:?} needs a server to send to")));
        };
        Ok(match rpc {
            Rpc::Health => Worker::Health(HealthClient::new(channel)),
            Rpc::LegalMoves | Rpc::LegalMovesUci | Rpc::LegalMovesUciText => {
                let detail = match rpc {
                    Rpc::LegalMovesUci => pb::MoveDetail::Uci,
                    Rpc::LegalMovesUciText => pb::MoveDetail::UciText,
                    _ => pb::MoveDetail::Full,
                };
                Worker::LegalMoves {
                    client: Grpc::new(channel),
                    request: variant
                        .legal_moves_request(asked, detail)
                        .encode_to_vec()
                        .into(),
                }
            }
            Rpc::LegalMovesDecoded => Worker::LegalMovesDecoded {
                client: RulesClient::new(channel),
                request: variant.legal_moves_request(asked, pb::MoveDetail::Full),
            },
            Rpc::RawCommit => return Err(Fatal("raw-commit needs --raw-database".into())),
            Rpc::MakeMove => Worker::MakeMove(Player {
                clients: channels.into_iter().map(GamesClient::new).collect(),
                script: Arc::clone(script),
                game: None,
                channel,
                as_players,
                players: None,
            }),
        })
    }

    /// Untimed set-up before the next request (a fresh game for make-move).
    pub(crate) async fn prepare(&mut self) -> Result<(), Status> {
        match self {
            Worker::MakeMove(player) => player.ensure_game().await,
            Worker::Health(_)
            | Worker::LegalMoves { .. }
            | Worker::LegalMovesDecoded { .. }
            | Worker::RawCommit(_) => Ok(()),
        }
    }

    /// The timed request.
    pub(crate) async fn call(&mut self) -> Result<(), Status> {
        match self {
            Worker::Health(client) => {
                let request = HealthCheckRequest {
                    service: String::new(),
                };
                let status = client.check(request).await?.into_inner().status;
                if status == ServingStatus::Serving as i32 {
                    Ok(())
                } else {
                    let name = ServingStatus::try_from(status)
                        .map_or_else(|_| status.to_string(), |s| s.as_str_name().to_owned());
                    Err(Status::unavailable(format!("health status is {name}")))
                }
            }
            Worker::LegalMoves { client, request } => {
                client.ready().await.map_err(|err| {
                    Status::unavailable(format!("connection not ready: {}", describe(&err)))
                })?;
                let path = PathAndQuery::from_static(LEGAL_MOVES_PATH);
                let request = Request::new(request.clone());
                let moves = client.unary(request, path, WireCodec).await?.into_inner();
                some_moves(moves)
            }
            Worker::LegalMovesDecoded { client, request } => {
                let response = client.legal_moves(request.clone()).await?.into_inner();
                some_moves(response.moves.len())
            }
            Worker::RawCommit(committer) => committer.commit().await,
            Worker::MakeMove(player) => player.play().await,
        }
    }
}

/// Every answer about the positions asked lists moves: none is an error.
pub(crate) fn some_moves(count: usize) -> Result<(), Status> {
    if count == 0 {
        Err(Status::internal("LegalMoves answered no moves"))
    } else {
        Ok(())
    }
}

/// What make-move's games are and which moves they play.
pub(crate) enum Script {
    /// From the start position, the variant's [`GameVariant::move_cycle`].
    Cycle(GameVariant),
    /// Imported at ply `start` of a long game, then its next
    /// [`MEASURED_PLIES`] moves (`moves` has them all).
    Long {
        variant: GameVariant,
        start: u32,
        moves: Vec<String>,
        /// The first `start` moves, as ImportGame takes them.
        pgn: String,
    },
}

impl Script {
    /// The script of `--start-ply start`.
    pub(crate) fn new(variant: GameVariant, start: u32) -> Result<Script, Fatal> {
        if start == 0 {
            return Ok(Script::Cycle(variant));
        }
        let moves = long_game::moves(variant, (start + MEASURED_PLIES) as usize)
            .map_err(|err| Fatal(format!("--start-ply {start}: {err}")))?;
        let pgn = long_game::pgn(&moves[..start as usize]);
        Ok(Script::Long {
            variant,
            start,
            moves,
            pgn,
        })
    }

    pub(crate) fn variant(&self) -> GameVariant {
        match self {
            Script::Cycle(variant) | Script::Long { variant, .. } => *variant,
        }
    }

    /// The ply after which a fresh game is needed.
    pub(crate) fn last_ply(&self) -> u32 {
        match self {
            Script::Cycle(variant) => variant.moves_per_game(),
            Script::Long { start, .. } => start + MEASURED_PLIES,
        }
    }

    /// The move to play at `ply`.
    pub(crate) fn move_at(&self, ply: u32) -> &str {
        match self {
            Script::Cycle(variant) => {
                let cycle = variant.move_cycle();
                cycle[ply as usize % cycle.len()]
            }
            Script::Long { moves, .. } => &moves[ply as usize],
        }
    }
}

/// A task playing its own games for make-move.
pub(crate) struct Player {
    /// The task's own server first; moves at ply `p` go to
    /// `clients[p % clients.len()]`.
    pub(crate) clients: Vec<GamesClient<Channel>>,
    pub(crate) script: Arc<Script>,
    pub(crate) game: Option<OpenGame>,
    /// The task's own server's channel, for its other services.
    pub(crate) channel: Channel,
    /// Play as two players (`--as-players`) with these credentials.
    pub(crate) as_players: Option<AsPlayers>,
    /// The two players, once created.
    pub(crate) players: Option<LoadPlayers>,
}

/// A game being played by a [`Player`].
pub(crate) struct OpenGame {
    pub(crate) id: String,
    /// White's (Red's) token, then Black's: seat tokens, or the players'
    /// tokens with `--as-players`.
    pub(crate) tokens: [String; 2],
    /// Moves played so far.
    pub(crate) ply: u32,
}

impl Player {
    /// Creates (or imports) a game unless the current one can take another
    /// move.
    pub(crate) async fn ensure_game(&mut self) -> Result<(), Status> {
        let limit = self.script.last_ply();
        if self.game.as_ref().is_some_and(|game| game.ply < limit) {
            return Ok(());
        }
        self.game = None;
        if let (Some(credentials), None) = (self.as_players.clone(), &self.players) {
            self.players = Some(self.create_players(credentials).await?);
        }
        let client = &mut self.clients[0];
        let (game, tokens) = match &*self.script {
            Script::Cycle(_) => {
                let players = self.players.clone();
                let seat = |n: usize, name: &str| {
                    Some(pb::SeatRequest {
                        display_name: name.into(),
                        player_id: players
                            .as_ref()
                            .map(|p| p.ids[n].clone())
                            .unwrap_or_default(),
                        ..Default::default()
                    })
                };
                let created = client
                    .create_game(pb::CreateGameRequest {
                        variant: self.script.variant().proto() as i32,
                        white: seat(0, "load white"),
                        black: seat(1, "load black"),
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                let tokens =
                    players.map_or([created.white_token, created.black_token], |p| p.tokens);
                (created.game, tokens)
            }
            Script::Long { pgn, .. } => {
                let imported = client
                    .import_game(pb::ImportGameRequest {
                        pgn: pgn.clone(),
                        variant: self.script.variant().proto() as i32,
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                (imported.game, [imported.white_token, imported.black_token])
            }
        };
        let game = game.ok_or_else(|| Status::internal("the game was answered without a game"))?;
        self.game = Some(OpenGame {
            id: game.id,
            tokens,
            ply: game.ply,
        });
        Ok(())
    }

    /// Creates this task's two players, under random names: enrolled,
    /// or the identity provider's, made by their first call.
    async fn create_players(&mut self, credentials: AsPlayers) -> Result<LoadPlayers, Status> {
        let mut players = PlayersClient::new(self.channel.clone());
        let ids = [0, 1].map(|n| format!("load{:08x}-{n}", rand::random::<u32>()));
        let mut tokens = [String::new(), String::new()];
        for (id, token) in ids.iter().zip(&mut tokens) {
            *token = match &credentials {
                AsPlayers::Tokens => {
                    players
                        .create_player(pb::CreatePlayerRequest {
                            username: id.clone(),
                            ..Default::default()
                        })
                        .await?
                        .into_inner()
                        .token
                }
                AsPlayers::Jwt(signer) => {
                    let jwt = signer.token(id).map_err(|e| Status::internal(e.0))?;
                    let mut whoami = Request::new(pb::GetPlayerRequest::default());
                    let bearer = format!("Bearer {jwt}")
                        .parse()
                        .map_err(|_| Status::internal("a JWT that is no metadata value"))?;
                    whoami.metadata_mut().insert("authorization", bearer);
                    players.get_player(whoami).await?;
                    jwt
                }
            };
        }
        Ok(LoadPlayers { ids, tokens })
    }

    /// Plays the script's next move. On any failure the game is dropped,
    /// so the next call starts a fresh one.
    pub(crate) async fn play(&mut self) -> Result<(), Status> {
        let Some(game) = self.game.take() else {
            return Err(Status::internal("no game to play in"));
        };
        let ply = game.ply;
        let count = self.clients.len();
        let token = &game.tokens[ply as usize % 2];
        let as_player = self.as_players.is_some();
        let mut request = tonic::Request::new(pb::MakeMoveRequest {
            game_id: game.id.clone(),
            seat_token: if as_player {
                String::new()
            } else {
                token.clone()
            },
            r#move: self.script.move_at(ply).into(),
            expected_ply: Some(ply),
            ..Default::default()
        });
        if as_player {
            let bearer = format!("Bearer {token}")
                .parse()
                .map_err(|_| Status::internal("a player token that is no header value"))?;
            request.metadata_mut().insert("authorization", bearer);
        }
        let response = self.clients[ply as usize % count]
            .make_move(request)
            .await?
            .into_inner();
        let outcome = response.game.and_then(|game| game.outcome);
        match outcome {
            Some(outcome) if outcome.status == pb::OutcomeStatus::Ongoing as i32 => {
                self.game = Some(OpenGame {
                    ply: ply + 1,
                    ..game
                });
                Ok(())
            }
            Some(outcome) => Err(Status::internal(format!(
                "the move unexpectedly ended the game: {}",
                outcome.description
            ))),
            None => Err(Status::internal("MakeMove answered without the game")),
        }
    }
}

/// A task's two players: their ids, and their tokens.
#[derive(Clone)]
pub(crate) struct LoadPlayers {
    ids: [String; 2],
    tokens: [String; 2],
}

/// What one task measured.
#[derive(Default)]
pub(crate) struct TaskStats {
    /// Latency of each successful request, in microseconds.
    pub(crate) latencies: Vec<u32>,
    pub(crate) errors: u64,
}

/// Prints the first error of a run to stderr, once.
pub(crate) struct FirstError {
    pub(crate) label: String,
    pub(crate) seen: AtomicBool,
}

impl FirstError {
    pub(crate) fn report(&self, status: &Status) {
        if !self.seen.swap(true, Ordering::Relaxed) {
            eprintln!(
                "arbiter-load: first error in {}: {:?}: {}",
                self.label,
                status.code(),
                status.message()
            );
        }
    }
}

/// Sends requests back to back until the window closes.
pub(crate) async fn drive(
    mut worker: Worker,
    window: Window,
    first_error: Arc<FirstError>,
) -> TaskStats {
    let mut stats = TaskStats::default();
    loop {
        if let Err(status) = worker.prepare().await {
            first_error.report(&status);
            let now = Instant::now();
            if now >= window.end {
                break;
            }
            if now >= window.start {
                stats.errors += 1;
            }
            tokio::time::sleep(SETUP_BACKOFF).await;
            continue;
        }
        let started = Instant::now();
        if started >= window.end {
            break;
        }
        let result = worker.call().await;
        let finished = Instant::now();
        let measured = started >= window.start && finished <= window.end;
        match result {
            Ok(()) if measured => stats.latencies.push(micros(finished - started)),
            Ok(()) => {}
            Err(status) => {
                first_error.report(&status);
                if measured {
                    stats.errors += 1;
                }
            }
        }
        if finished >= window.end {
            break;
        }
    }
    stats
}

pub(crate) fn micros(duration: Duration) -> u32 {
    u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}
