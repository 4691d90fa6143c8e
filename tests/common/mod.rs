//! Spawns the real server in-process on an ephemeral port with a temporary
//! database, and hands out clients.

#![allow(dead_code)]

pub mod binary;
pub mod database;
pub mod lichess;
pub mod long_game;
pub mod raw;

use std::sync::Arc;

use arbiter::api::proto::{
    self as pb, engine_client::EngineClient, games_client::GamesClient,
    players_client::PlayersClient, rules_client::RulesClient,
};
use arbiter::games::{SystemTime, TimeSource};
use arbiter::server::{ServerConfig, serve};
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};
use tonic::transport::Channel;

pub use database::TestDatabase;

/// A request a seat makes of its game: the game's id and the seat's
/// token, every other field at its default.
pub trait SeatRequest {
    fn by_seat(game_id: impl Into<String>, seat_token: impl Into<String>) -> Self;
}

macro_rules! seat_requests {
    ($($request:ident),*) => {$(
        impl SeatRequest for pb::$request {
            fn by_seat(game_id: impl Into<String>, seat_token: impl Into<String>) -> Self {
                pb::$request {
                    game_id: game_id.into(),
                    seat_token: seat_token.into(),
                    ..Default::default()
                }
            }
        }
    )*};
}

seat_requests!(
    AbortRequest,
    OfferDrawRequest,
    OfferRematchRequest,
    ProposeTakebackRequest,
    ResignRequest,
    RespondToDrawRequest,
    RespondToTakebackRequest,
    WatchGameRequest
);

/// `message` with `authorization: Bearer <token>`: a call a player makes.
pub fn bearing<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("metadata"),
    );
    request
}

/// Creates the player `username`; the player and their token.
pub async fn create_player(
    players: &mut PlayersClient<Channel>,
    username: &str,
) -> (pb::Player, String) {
    let created = players
        .create_player(pb::CreatePlayerRequest {
            username: username.into(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("{username}: {e:?}"))
        .into_inner();
    (created.player.unwrap(), created.token)
}

/// Creates players by these usernames; their tokens.
pub async fn create_players<const N: usize>(
    players: &mut PlayersClient<Channel>,
    names: [&str; N],
) -> [String; N] {
    let mut tokens = Vec::new();
    for name in names {
        tokens.push(create_player(players, name).await.1);
    }
    tokens.try_into().expect("one token each")
}

/// Challenge `id` withdrawn while an acceptance may race it: cancelled by
/// its maker (`host`'s token) in even rounds, declined by its player
/// (`guest`'s) in odd ones.
pub async fn withdraw_challenge(
    players: &mut PlayersClient<Channel>,
    id: &str,
    [host, guest]: [&str; 2],
    round: usize,
) -> Result<(), tonic::Status> {
    if round.is_multiple_of(2) {
        let cancel = pb::CancelChallengeRequest {
            challenge_id: id.into(),
        };
        players
            .cancel_challenge(bearing(cancel, host))
            .await
            .map(drop)
    } else {
        let decline = pb::DeclineChallengeRequest {
            challenge_id: id.into(),
            reason: pb::DeclineReason::Later as i32,
        };
        players
            .decline_challenge(bearing(decline, guest))
            .await
            .map(drop)
    }
}

/// Of an acceptance and a withdrawal racing it, exactly one won; the other
/// was refused `CHALLENGE_ANSWERED`.
pub fn assert_one_won<T: std::fmt::Debug>(
    acceptance: &Result<T, tonic::Status>,
    withdrawn: &Result<(), tonic::Status>,
    round: usize,
) {
    assert!(
        acceptance.is_ok() != withdrawn.is_ok(),
        "round {round}: exactly one wins: {acceptance:?} {withdrawn:?}"
    );
    for refused in [acceptance.as_ref().err(), withdrawn.as_ref().err()]
        .into_iter()
        .flatten()
    {
        assert_eq!(
            code_and_reason(refused),
            (tonic::Code::FailedPrecondition, "CHALLENGE_ANSWERED".into()),
            "round {round}"
        );
    }
}

/// How often [`wait_for!`] and [`wait_until!`] ask again.
pub const POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// Asks `$found` (an expression giving an `Option`, `.await`s and all)
/// again every [`POLL`] on tokio's clock until it is `Some`, and gives its
/// value; fails the test with the message (format arguments allowed) once
/// `$within` has passed. The tests' one way of waiting for something.
#[macro_export]
macro_rules! wait_for {
    ($within:expr, $found:expr, $($message:tt)+) => {{
        let deadline = tokio::time::Instant::now() + $within;
        loop {
            if let Some(found) = $found {
                break found;
            }
            assert!(tokio::time::Instant::now() < deadline, $($message)+);
            tokio::time::sleep($crate::common::POLL).await;
        }
    }};
}

/// [`wait_for!`] a condition: waits until `$ready` holds.
#[macro_export]
macro_rules! wait_until {
    ($within:expr, $ready:expr, $($message:tt)+) => {
        $crate::wait_for!($within, ($ready).then_some(()), $($message)+)
    };
}

/// Lets `time` of real time pass on purpose, where waiting *is* the test:
/// a load runs for a while, a timer under test runs out, or nothing may
/// happen meanwhile (an absence is only shown by waiting). Waiting *for*
/// something is [`wait_for!`]'s job.
pub async fn let_pass(time: std::time::Duration) {
    tokio::time::sleep(time).await;
}

pub struct TestServer {
    pub addr: std::net::SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    /// Its database (on the run's backend: see [`database`]).
    pub db: TestDatabase,
}

impl TestServer {
    /// A server with a fresh database.
    pub async fn start() -> TestServer {
        TestServer::start_with_config(|config| config).await
    }

    /// A server with a fresh database whose clocks run on `time`.
    pub async fn start_with_time(time: Arc<dyn TimeSource>) -> TestServer {
        TestServer::start_with_config(|config| ServerConfig { time, ..config }).await
    }

    /// A server on an existing database.
    pub async fn start_on(db: &TestDatabase) -> TestServer {
        TestServer::start_on_with(db, Arc::new(SystemTime)).await
    }

    pub async fn start_on_with(db: &TestDatabase, time: Arc<dyn TimeSource>) -> TestServer {
        TestServer::start_on_configured(db, |config| ServerConfig { time, ..config }).await
    }

    /// A server with a fresh database and the configuration `configure`
    /// makes of the tests' default.
    pub async fn start_with_config(
        configure: impl FnOnce(ServerConfig) -> ServerConfig,
    ) -> TestServer {
        TestServer::start_on_configured(&TestDatabase::fresh().await, configure).await
    }

    /// A server on an existing database, with the configuration `configure`
    /// makes of the tests' default.
    pub async fn start_on_configured(
        db: &TestDatabase,
        configure: impl FnOnce(ServerConfig) -> ServerConfig,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel();
        let config = configure(ServerConfig {
            engine_slots: 1,
            // Tests import whole fixture files at once, as a trusted
            // deployment may.
            create_rate: 0,
            ..ServerConfig::new(db.url())
        });
        let task = tokio::spawn(async move {
            serve(config, listener, async {
                let _ = stopped.await;
            })
            .await
            .expect("server runs");
        });
        TestServer {
            addr,
            stop: Some(stop),
            task: Some(task),
            db: db.clone(),
        }
    }

    pub async fn channel(&self) -> Channel {
        let url = format!("http://{}", self.addr);
        let endpoint = Channel::from_shared(url.clone()).unwrap();
        crate::wait_for!(
            std::time::Duration::from_secs(2),
            endpoint.connect().await.ok(),
            "server did not come up on {url}"
        )
    }

    pub async fn rules(&self) -> RulesClient<Channel> {
        RulesClient::new(self.channel().await)
    }

    pub async fn games(&self) -> GamesClient<Channel> {
        GamesClient::new(self.channel().await)
    }

    pub async fn engine(&self) -> EngineClient<Channel> {
        EngineClient::new(self.channel().await)
    }

    /// Stops the server and waits until it has shut down; returns its
    /// database, which lives on while it is held.
    pub async fn stop(mut self) -> TestDatabase {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        self.db.clone()
    }
}

/// Creates a game for two human seats, from `fen` (`None` = the standard
/// start).
pub async fn create_game(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    fen: Option<&str>,
    white: &str,
    black: &str,
) -> pb::CreateGameResponse {
    let start = fen.map(|f| pb::create_game_request::Start::Fen(f.into()));
    create_game_from(games, variant, start, white, black).await
}

/// A human seat named `name`.
pub fn seat(name: &str) -> Option<pb::SeatRequest> {
    Some(pb::SeatRequest {
        display_name: name.into(),
        engine: None,
        ..Default::default()
    })
}

/// An engine seat of `level` (1-10) thinking `movetime_ms` a move.
pub fn engine_seat(level: u32, movetime_ms: u32) -> Option<pb::SeatRequest> {
    Some(pb::SeatRequest {
        engine: Some(pb::EnginePlayer { level, movetime_ms }),
        ..Default::default()
    })
}

/// Creates a chess game between "W" and "B" on a clock of `initial_ms`
/// each, without increment.
pub async fn create_clocked_game(
    games: &mut GamesClient<Channel>,
    initial_ms: u64,
) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: seat("W"),
            black: seat("B"),
            time_control: Some(pb::TimeControl {
                initial_ms,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// Creates a chess game of "Human" (White) against an engine seat (Black).
pub async fn create_engine_game(
    games: &mut GamesClient<Channel>,
    level: u32,
    movetime_ms: u32,
) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: seat("Human"),
            black: engine_seat(level, movetime_ms),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// Watches game `id` (the first message is the snapshot).
pub async fn watch(
    games: &mut GamesClient<Channel>,
    id: &str,
) -> tonic::Streaming<pb::WatchGameResponse> {
    games
        .watch_game(pb::WatchGameRequest {
            game_id: id.into(),
            from_version: None,
            ..Default::default()
        })
        .await
        .expect("watching")
        .into_inner()
}

/// Follows the seats `(game id, seat token)` with WatchPlayer.
pub async fn watch_player(
    games: &mut GamesClient<Channel>,
    seats: &[(&str, &str)],
) -> Result<tonic::Streaming<pb::WatchPlayerResponse>, tonic::Status> {
    let seats = seats
        .iter()
        .map(|(game_id, seat_token)| pb::PlayerSeat {
            game_id: (*game_id).into(),
            seat_token: (*seat_token).into(),
        })
        .collect();
    Ok(games
        .watch_player(pb::WatchPlayerRequest { seats })
        .await?
        .into_inner())
}

/// The kind and game id of the next message of a player stream, within
/// 10 s; `None` when the stream ends without an error.
pub async fn next_player_event(
    stream: &mut tonic::Streaming<pb::WatchPlayerResponse>,
) -> Option<(pb::PlayerEventKind, String)> {
    let message = tokio::time::timeout(std::time::Duration::from_secs(10), stream.message())
        .await
        .expect("a player event in time")
        .expect("no error")?;
    let kind = pb::PlayerEventKind::try_from(message.kind).expect("a known kind");
    Some((kind, message.game.expect("the game").id))
}

/// [`create_game`] from any start (a FEN or a saved position).
pub async fn create_game_from(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    start: Option<pb::create_game_request::Start>,
    white: &str,
    black: &str,
) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: variant as i32,
            start,
            white: seat(white),
            black: seat(black),
            engine_declines_takebacks: false,
            time_control: None,
            ..Default::default()
        })
        .await
        .expect("game created")
        .into_inner()
}

/// Creates a chess game for seats "Alice" (white) and "Bob" (black), from
/// `start` (`None` = the standard position).
pub async fn new_chess_game(
    games: &mut GamesClient<Channel>,
    start: Option<pb::create_game_request::Start>,
) -> pb::CreateGameResponse {
    create_game_from(games, pb::Variant::Chess, start, "Alice", "Bob").await
}

/// OfferRematch of game `id` for the seat holding `token`.
pub async fn offer_rematch(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
) -> Result<pb::OfferRematchResponse, tonic::Status> {
    games
        .offer_rematch(pb::OfferRematchRequest::by_seat(id, token))
        .await
        .map(tonic::Response::into_inner)
}

/// RespondToRematch of game `id` for the seat holding `token`.
pub async fn respond_to_rematch(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
    accept: bool,
) -> Result<pb::RespondToRematchResponse, tonic::Status> {
    games
        .respond_to_rematch(pb::RespondToRematchRequest {
            game_id: id.into(),
            seat_token: token.into(),
            accept,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Resigns game `id` for the seat holding `token`.
pub async fn resign(games: &mut GamesClient<Channel>, id: &str, token: &str) {
    games
        .resign(pb::ResignRequest::by_seat(id, token))
        .await
        .expect("resigned");
}

/// Plays `text` for the seat holding `token`; the game after it.
pub async fn play(games: &mut GamesClient<Channel>, id: &str, token: &str, text: &str) -> pb::Game {
    games
        .make_move(pb::MakeMoveRequest {
            game_id: id.into(),
            seat_token: token.into(),
            r#move: text.into(),
            expected_ply: None,
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("{text}: {e:?}"))
        .into_inner()
        .game
        .unwrap()
}

/// The game `id` as the server has it.
pub async fn get_game(games: &mut GamesClient<Channel>, id: &str) -> pb::Game {
    games
        .get_game(pb::GetGameRequest {
            game_id: id.into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
}

/// The game `id` once `ready` holds of it, asked every [`POLL`]; fails the
/// test once `within` has passed.
pub async fn game_once(
    games: &mut GamesClient<Channel>,
    id: &str,
    within: std::time::Duration,
    ready: impl Fn(&pb::Game) -> bool,
) -> pb::Game {
    crate::wait_for!(
        within,
        Some(get_game(games, id).await).filter(&ready),
        "game {id} did not reach the state waited for within {within:?}"
    )
}

/// Whether the game has ended.
pub fn is_over(game: &pb::Game) -> bool {
    game.outcome
        .as_ref()
        .is_some_and(|outcome| outcome.status != pb::OutcomeStatus::Ongoing as i32)
}

/// Proposes a takeback for the seat holding `token`; the game after it.
pub async fn propose_takeback(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
) -> Result<pb::Game, tonic::Status> {
    games
        .propose_takeback(pb::ProposeTakebackRequest::by_seat(id, token))
        .await
        .map(|r| r.into_inner().game.unwrap())
}

/// Accepts or declines the pending takeback for the seat holding `token`;
/// the game after it.
pub async fn respond_to_takeback(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
    accept: bool,
) -> Result<pb::Game, tonic::Status> {
    games
        .respond_to_takeback(pb::RespondToTakebackRequest {
            game_id: id.into(),
            seat_token: token.into(),
            accept,
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner().game.unwrap())
}

/// Claims a draw for the seat holding `token`, with `text` as the move
/// (empty: none); the drawn game.
pub async fn claim_draw(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
    text: &str,
) -> pb::Game {
    games
        .claim_draw(pb::ClaimDrawRequest {
            game_id: id.into(),
            seat_token: token.into(),
            r#move: text.into(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|e| panic!("claim with {text:?}: {e:?}"))
        .into_inner()
        .game
        .unwrap()
}

/// The game as PGN.
pub async fn export(
    games: &mut GamesClient<Channel>,
    id: &str,
    notation: pb::PgnNotation,
) -> String {
    games
        .export_game(pb::ExportGameRequest {
            game_id: id.to_owned(),
            notation: notation as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .pgn
}

/// The game `pgn` imports (with the request's defaults otherwise).
pub async fn import(games: &mut GamesClient<Channel>, pgn: String) -> pb::Game {
    games
        .import_game(pb::ImportGameRequest {
            pgn,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
}

/// Posts `body` to `path` over plain HTTP/1.1, as a browser's grpc-web
/// client does (with an `Origin`); the whole response, lower-cased.
pub async fn http1_post(
    addr: std::net::SocketAddr,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {content_type}\r\n\
         X-Grpc-Web: 1\r\nOrigin: http://example.test\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.unwrap();
    String::from_utf8_lossy(&response).to_lowercase()
}

/// A LegalMoves request for chess's start position in a gRPC frame, as a
/// grpc-web body (the answer lists `g1f3`).
pub fn start_legal_moves_frame() -> Vec<u8> {
    use prost::Message;
    let request = pb::LegalMovesRequest {
        position: Some(pb::Position {
            variant: pb::Variant::Chess as i32,
            fen: String::new(),
            moves: vec![],
            ..Default::default()
        }),
        ..Default::default()
    };
    grpc_frame(&request.encode_to_vec())
}

/// `message` in a gRPC frame: no compression, its length, its bytes.
pub fn grpc_frame(message: &[u8]) -> Vec<u8> {
    let mut frame = vec![0u8];
    frame.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(message);
    frame
}

/// The status's code and its `google.rpc.ErrorInfo` reason ("" without one).
pub fn code_and_reason(status: &tonic::Status) -> (tonic::Code, String) {
    use tonic_types::StatusExt;
    let reason = status.get_details_error_info().map(|info| info.reason);
    (status.code(), reason.unwrap_or_default())
}

/// Another connection to `db` that keeps the server's writes waiting until
/// it ends its transaction (or is dropped): on SQLite it takes the write
/// lock (`BEGIN IMMEDIATE`); on PostgreSQL it locks the games table against
/// writes, which reads still pass.
pub async fn hold_write_lock(db: &TestDatabase) -> sqlx::AnyConnection {
    use sqlx::Connection;
    sqlx::any::install_default_drivers();
    let mut blocker = sqlx::AnyConnection::connect(&db.url()).await.unwrap();
    let hold = if db.is_postgres() {
        "BEGIN; LOCK TABLE games IN EXCLUSIVE MODE"
    } else {
        "BEGIN IMMEDIATE"
    };
    sqlx::raw_sql(hold).execute(&mut blocker).await.unwrap();
    blocker
}

/// The games service on its own (no server) over `store`, with one engine
/// slot of each kind and serve's watcher defaults.
pub fn games_service(
    store: arbiter::store::Store,
    time: Arc<dyn TimeSource>,
) -> arbiter::games::Games {
    use arbiter::{
        analysis::{Analyst, Capacity},
        api::encode_event,
        games::{Games, Watching},
        server::{DEFAULT_MAX_WATCHERS_PER_GAME, DEFAULT_WATCHER_BUFFER_BYTES},
    };
    let analyst = Analyst::new(Capacity {
        slots: 1,
        queue: 0,
        max_wait: std::time::Duration::ZERO,
        seat_slots: 1,
        per_peer: 0,
    });
    let watching = Watching {
        buffer_bytes: DEFAULT_WATCHER_BUFFER_BYTES,
        max_per_game: DEFAULT_MAX_WATCHERS_PER_GAME,
        encode: encode_event,
    };
    Games::new(store, analyst, time, watching)
}

/// The health service's answer for `service`.
pub async fn health(channel: &Channel, service: &str) -> i32 {
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    HealthClient::new(channel.clone())
        .check(HealthCheckRequest {
            service: service.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .status
}

/// Polls until every one of the write services reports `want` (at most
/// `within`).
pub async fn wait_health(
    channel: &Channel,
    want: tonic_health::pb::health_check_response::ServingStatus,
    within: std::time::Duration,
) {
    crate::wait_until!(
        within,
        {
            let mut all = true;
            for service in ["", "arbiter.v1.Games", "arbiter.v1.Positions"] {
                all &= health(channel, service).await == want as i32;
            }
            all
        },
        "health never became {want:?}"
    );
}

/// A TCP connection to `addr` from loopback address `source` (127.0.0.2,
/// say), standing for another client.
pub async fn connect_from(source: &str, addr: &str) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(format!("{source}:0").parse().expect("an IPv4 address"))?;
    socket
        .connect(addr.parse().expect("an address and a port"))
        .await
}

/// A free port's address on 127.0.0.1, for a server to listen on later.
/// Taken below the kernel's range of ephemeral ports, which it hands out
/// to every `bind(0)` and outgoing connection of the tests running beside
/// this one: a port from that range may be taken again before the server
/// binds it. No port is handed out twice to the tests of one binary,
/// which run side by side.
pub fn free_addr() -> String {
    static HANDED_OUT: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let below = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let port = rand::random_range(10_000..below);
        if handed_out.contains(&port) {
            continue;
        }
        if let Ok(listener) = std::net::TcpListener::bind(("127.0.0.1", port)) {
            handed_out.push(port);
            return listener.local_addr().unwrap().to_string();
        }
    }
    panic!("no free port below {below}");
}

/// The value of the unlabelled series `name` scraped from the metrics
/// endpoint at `addr`; nothing if it does not answer or has no such series.
pub async fn scrape(addr: &str, name: &str) -> Option<f64> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: arbiter\r\nConnection: close\r\n\r\n")
        .await
        .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).await.ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}
