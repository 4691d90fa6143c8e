//! `arbiter-load`: a closed-loop load generator for a running Arbiter server.
//!
//! It keeps `--concurrency` requests in flight (one task each, sending its
//! next request as soon as the previous one is answered), spread round-robin
//! over `--connections` HTTP/2 connections (default: min(concurrency, 4); one
//! connection serialises on a single socket and server task). Each run has
//! `--warmup` unmeasured seconds, then `--duration` measured seconds. A request
//! is measured when it starts and ends inside the measured window.
//!
//! The RPCs (`--rpc`):
//!
//! * `health`: `grpc.health.v1.Health/Check` for the whole server, i.e. the
//!   cost of the transport alone (the baseline for the others);
//! * `legal-moves`: `arbiter.v1.Rules/LegalMoves` on a fixed middlegame with
//!   five moves of history (`--variant chess` or `xiangqi`), no database. The
//!   request is encoded once; each answer is checked on the wire (field
//!   types, UTF-8, lengths; see `wire.rs`) and its moves counted, without
//!   building the generated messages;
//! * `legal-moves-decoded`: the same, each answer decoded into the generated
//!   messages as a typical client does (some 200 strings for chess, 260 for
//!   xiangqi: client work that a shared machine counts against the server);
//! * `legal-moves-uci`: `legal-moves` with `MOVE_DETAIL_UCI` (coordinates
//!   only);
//! * `legal-moves-uci-text`: `legal-moves` with `MOVE_DETAIL_UCI_TEXT`
//!   (coordinates in one space-separated string);
//! * `make-move`: `arbiter.v1.Games/MakeMove`, a durable SQLite write. Every
//!   task plays its own games: it moves the knights (horses) out and back from
//!   the start position, alternating the seat tokens and passing
//!   `expected_ply`, and creates a fresh game before the repetition would end
//!   the game (chess: after 15 moves, before fivefold repetition; xiangqi: after
//!   7, before the threefold repetition that ends it). The `CreateGame` calls
//!   are neither timed nor counted as requests, but they take the task's time,
//!   so they lower requests/second a little (one per 15 or 7 moves).
//!
//! Output: one line per run with the requests completed in the measured window,
//! how many of those failed, successful requests per second and the p50, p90,
//! p99 and maximum latency of the successful ones in milliseconds. `--all` runs
//! the matrix of BENCHMARKS.md (every RPC at 1, 16 and 64 in flight) and prints
//! a Markdown table instead, each RPC with its share of the health run just
//! before it; `--rounds N` measures that matrix N times and adds a table of
//! the medians.
//!
//! Any error status counts as an error (so does a health status other than
//! `SERVING`, or a move that unexpectedly ends the game); the first error of
//! each run is printed to stderr. Before measuring, one request of each RPC is
//! sent: if the server cannot be reached or rejects it, the program says so and
//! exits with status 1.
//!
//! The client shares the machine with the server when both run on one host;
//! on a 2-core machine the figures include that contention.
//!
//! Examples:
//!
//! ```sh
//! cargo build --release
//! target/release/arbiter serve --listen 127.0.0.1:50051 \
//!     --database-url sqlite:///tmp/load.db &
//! target/release/arbiter-load --rpc health --concurrency 16
//! target/release/arbiter-load --rpc legal-moves --variant xiangqi \
//!     --concurrency 64 --connections 4 --duration 20
//! target/release/arbiter-load --rpc make-move --concurrency 16
//! target/release/arbiter-load --all --duration 10 --warmup 2
//! target/release/arbiter-load --all --rounds 5 --duration 4 --warmup 1
//! ```

use std::{
    error::Error,
    fmt,
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

mod wire;

use arbiter::api::proto::{self as pb, games_client::GamesClient, rules_client::RulesClient};
use clap::{Parser, ValueEnum};
use http::uri::PathAndQuery;
use prost::{Message, bytes::Bytes};
use tonic::{
    Request, Status,
    client::Grpc,
    transport::{Channel, Endpoint},
};
use tonic_health::pb::{
    HealthCheckRequest, health_check_response::ServingStatus, health_client::HealthClient,
};
use wire::WireCodec;

// The same allocator as the server, so that decoding answers steals as little
// of the shared machine from the server as it can.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The concurrency levels of `--all`.
const MATRIX_CONCURRENCY: [usize; 3] = [1, 16, 64];
/// Connections used when `--connections` is not given: min(concurrency, this).
const DEFAULT_MAX_CONNECTIONS: usize = 4;
/// A request unanswered for this long fails with DEADLINE_EXCEEDED.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause after a failed `CreateGame`, so a failing server is not hammered.
const SETUP_BACKOFF: Duration = Duration::from_millis(10);

/// The `LegalMoves` method, for the client that checks answers on the wire.
const LEGAL_MOVES_PATH: &str = "/arbiter.v1.Rules/LegalMoves";

/// The chess middlegame of the `chess_legal_moves/middlegame` bench.
const CHESS_FEN: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
/// Moves played from [`CHESS_FEN`] (history the server has to replay).
const CHESS_MOVES: [&str; 5] = ["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"];
/// The xiangqi middlegame of the `xiangqi_perft` bench.
const XIANGQI_FEN: &str =
    "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11";
/// Moves played from [`XIANGQI_FEN`] (ICCS).
const XIANGQI_MOVES: [&str; 5] = ["h0g2", "h9g7", "a1d1", "i9i8", "b2e2"];

/// Load generator for a running Arbiter server: measures requests/second and
/// latency of one RPC, or of the benchmark matrix with `--all`.
#[derive(Debug, Parser)]
#[command(name = "arbiter-load", version)]
struct Args {
    /// Server URL.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    addr: String,
    /// The RPC to measure.
    #[arg(long, value_enum, required_unless_present = "all")]
    rpc: Option<Rpc>,
    /// The game for legal-moves and make-move.
    #[arg(long, value_enum, default_value_t = GameVariant::Chess)]
    variant: GameVariant,
    /// Requests in flight (one task each).
    #[arg(
        long,
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..),
        conflicts_with = "all"
    )]
    concurrency: u32,
    /// HTTP/2 connections the tasks are spread over [default: min(concurrency, 4)].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    connections: Option<u32>,
    /// Measured seconds per run.
    #[arg(long, default_value = "10", value_parser = parse_positive_secs)]
    duration: Duration,
    /// Unmeasured seconds before each run's measurement.
    #[arg(long, default_value = "2", value_parser = parse_secs)]
    warmup: Duration,
    /// Run every RPC at 1, 16 and 64 in flight and print a Markdown table.
    #[arg(long, conflicts_with = "rpc")]
    all: bool,
    /// With --all: measure the matrix this many times, each RPC right after
    /// the health baseline at the same concurrency, and add a table of
    /// medians (one run is at the mercy of whatever else the machine does).
    #[arg(
        long,
        default_value_t = 1,
        requires = "all",
        value_parser = clap::value_parser!(u32).range(1..=20)
    )]
    rounds: u32,
}

/// An RPC to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Rpc {
    /// grpc.health.v1.Health/Check.
    Health,
    /// arbiter.v1.Rules/LegalMoves on a fixed middlegame, answers checked on
    /// the wire.
    LegalMoves,
    /// The same, answers decoded into the generated messages.
    LegalMovesDecoded,
    /// arbiter.v1.Rules/LegalMoves with MOVE_DETAIL_UCI (coordinates only).
    LegalMovesUci,
    /// arbiter.v1.Rules/LegalMoves with MOVE_DETAIL_UCI_TEXT (coordinates in
    /// one string).
    LegalMovesUciText,
    /// arbiter.v1.Games/MakeMove in games the tasks create.
    MakeMove,
}

impl Rpc {
    const ALL: [Rpc; 6] = [
        Rpc::Health,
        Rpc::LegalMoves,
        Rpc::LegalMovesDecoded,
        Rpc::LegalMovesUci,
        Rpc::LegalMovesUciText,
        Rpc::MakeMove,
    ];
}

/// The game for the Rules and Games RPCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum GameVariant {
    Chess,
    Xiangqi,
}

impl GameVariant {
    fn proto(self) -> pb::Variant {
        match self {
            GameVariant::Chess => pb::Variant::Chess,
            GameVariant::Xiangqi => pb::Variant::Xiangqi,
        }
    }

    /// The `legal-moves` request: a fixed middlegame with history.
    fn legal_moves_request(self, detail: pb::MoveDetail) -> pb::LegalMovesRequest {
        let (fen, moves) = match self {
            GameVariant::Chess => (CHESS_FEN, CHESS_MOVES),
            GameVariant::Xiangqi => (XIANGQI_FEN, XIANGQI_MOVES),
        };
        let position = pb::Position {
            variant: self.proto() as i32,
            fen: fen.into(),
            moves: moves.iter().map(|m| (*m).into()).collect(),
            ..Default::default()
        };
        pb::LegalMovesRequest {
            position: Some(position),
            detail: detail as i32,
        }
    }

    /// A cycle of moves from the start position back to it: both sides'
    /// knights (horses) out and back.
    fn move_cycle(self) -> [&'static str; 4] {
        match self {
            GameVariant::Chess => ["Nf3", "Nf6", "Ng1", "Ng8"],
            GameVariant::Xiangqi => ["h0g2", "h9g7", "g2h0", "g7h9"],
        }
    }

    /// Moves played in one game before a fresh one is created: the most the
    /// cycle allows before a repetition ends the game. Every position of the
    /// cycle recurs every 4 plies; chess ends at its fifth occurrence
    /// (fivefold, ply 16), xiangqi at its third (ply 8).
    fn moves_per_game(self) -> u32 {
        match self {
            GameVariant::Chess => 15,
            GameVariant::Xiangqi => 7,
        }
    }
}

impl fmt::Display for GameVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameVariant::Chess => "chess",
            GameVariant::Xiangqi => "xiangqi",
        })
    }
}

fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(secs).map_err(|err| format!("`{text}`: {err}"))
}

fn parse_positive_secs(text: &str) -> Result<Duration, String> {
    match parse_secs(text)? {
        Duration::ZERO => Err("must be more than 0 seconds".into()),
        duration => Ok(duration),
    }
}

/// What one run measures.
#[derive(Clone, Copy, Debug)]
struct RunSpec {
    rpc: Rpc,
    variant: GameVariant,
    concurrency: usize,
    connections: usize,
    warmup: Duration,
    duration: Duration,
}

/// The RPC's name, with the game where it matters.
fn rpc_label(rpc: Rpc, variant: GameVariant) -> String {
    match rpc {
        Rpc::Health => "health".into(),
        Rpc::LegalMoves => format!("legal-moves ({variant})"),
        Rpc::LegalMovesDecoded => format!("legal-moves-decoded ({variant})"),
        Rpc::LegalMovesUci => format!("legal-moves-uci ({variant})"),
        Rpc::LegalMovesUciText => format!("legal-moves-uci-text ({variant})"),
        Rpc::MakeMove => format!("make-move ({variant})"),
    }
}

/// The measured part of a run.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: Instant,
    end: Instant,
}

/// One task's client and state.
enum Worker {
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
    MakeMove(Player),
}

impl Worker {
    fn new(rpc: Rpc, variant: GameVariant, channel: Channel) -> Worker {
        match rpc {
            Rpc::Health => Worker::Health(HealthClient::new(channel)),
            Rpc::LegalMoves | Rpc::LegalMovesUci | Rpc::LegalMovesUciText => {
                let detail = match rpc {
                    Rpc::LegalMovesUci => pb::MoveDetail::Uci,
                    Rpc::LegalMovesUciText => pb::MoveDetail::UciText,
                    _ => pb::MoveDetail::Full,
                };
                Worker::LegalMoves {
                    client: Grpc::new(channel),
                    request: variant.legal_moves_request(detail).encode_to_vec().into(),
                }
            }
            Rpc::LegalMovesDecoded => Worker::LegalMovesDecoded {
                client: RulesClient::new(channel),
                request: variant.legal_moves_request(pb::MoveDetail::Full),
            },
            Rpc::MakeMove => Worker::MakeMove(Player {
                client: GamesClient::new(channel),
                variant,
                game: None,
            }),
        }
    }

    /// Untimed set-up before the next request (a fresh game for make-move).
    async fn prepare(&mut self) -> Result<(), Status> {
        match self {
            Worker::MakeMove(player) => player.ensure_game().await,
            Worker::Health(_) | Worker::LegalMoves { .. } | Worker::LegalMovesDecoded { .. } => {
                Ok(())
            }
        }
    }

    /// The timed request.
    async fn call(&mut self) -> Result<(), Status> {
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
            Worker::MakeMove(player) => player.play().await,
        }
    }
}

/// Every answer about the middlegame lists moves: none is an error.
fn some_moves(count: usize) -> Result<(), Status> {
    if count == 0 {
        Err(Status::internal("LegalMoves answered no moves"))
    } else {
        Ok(())
    }
}

/// A task playing its own games for make-move.
struct Player {
    client: GamesClient<Channel>,
    variant: GameVariant,
    game: Option<OpenGame>,
}

/// A game being played by a [`Player`].
struct OpenGame {
    id: String,
    /// White's (Red's) token, then Black's.
    tokens: [String; 2],
    /// Moves played so far.
    ply: u32,
}

impl Player {
    /// Creates a game unless the current one can take another move.
    async fn ensure_game(&mut self) -> Result<(), Status> {
        let limit = self.variant.moves_per_game();
        if self.game.as_ref().is_some_and(|game| game.ply < limit) {
            return Ok(());
        }
        self.game = None;
        let seat = |name: &str| {
            Some(pb::SeatRequest {
                display_name: name.into(),
                engine: None,
            })
        };
        let created = self
            .client
            .create_game(pb::CreateGameRequest {
                variant: self.variant.proto() as i32,
                start: None,
                white: seat("load white"),
                black: seat("load black"),
                engine_declines_takebacks: false,
                time_control: None,
                ..Default::default()
            })
            .await?
            .into_inner();
        let game = created
            .game
            .ok_or_else(|| Status::internal("CreateGame answered without a game"))?;
        self.game = Some(OpenGame {
            id: game.id,
            tokens: [created.white_token, created.black_token],
            ply: game.ply,
        });
        Ok(())
    }

    /// Plays the next move of the cycle. On any failure the game is dropped,
    /// so the next call starts a fresh one.
    async fn play(&mut self) -> Result<(), Status> {
        let Some(game) = self.game.take() else {
            return Err(Status::internal("no game to play in"));
        };
        let cycle = self.variant.move_cycle();
        let ply = game.ply;
        let response = self
            .client
            .make_move(pb::MakeMoveRequest {
                game_id: game.id.clone(),
                seat_token: game.tokens[ply as usize % 2].clone(),
                r#move: cycle[ply as usize % cycle.len()].into(),
                expected_ply: Some(ply),
                ..Default::default()
            })
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

/// What one task measured.
#[derive(Default)]
struct TaskStats {
    /// Latency of each successful request, in microseconds.
    latencies: Vec<u32>,
    errors: u64,
}

/// Prints the first error of a run to stderr, once.
struct FirstError {
    label: String,
    seen: AtomicBool,
}

impl FirstError {
    fn report(&self, status: &Status) {
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
async fn drive(mut worker: Worker, window: Window, first_error: Arc<FirstError>) -> TaskStats {
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

fn micros(duration: Duration) -> u32 {
    u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}

/// The result of a run.
struct Report {
    label: String,
    concurrency: usize,
    connections: usize,
    /// Successful requests' latencies in microseconds, sorted.
    latencies: Vec<u32>,
    errors: u64,
    duration: Duration,
}

impl Report {
    fn requests(&self) -> u64 {
        self.latencies.len() as u64 + self.errors
    }

    fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.duration.as_secs_f64()
    }

    /// The latency at quantile `q` (nearest rank), in milliseconds.
    fn quantile_ms(&self, q: f64) -> Option<f64> {
        let n = self.latencies.len();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        Some(f64::from(self.latencies[rank - 1]) / 1000.0)
    }

    /// p50, p90, p99 and max, formatted in milliseconds.
    fn latency_columns(&self) -> [String; 4] {
        [0.5, 0.9, 0.99, 1.0].map(|q| {
            self.quantile_ms(q)
                .map_or_else(|| "-".into(), |ms| format!("{ms:.3}"))
        })
    }

    /// The run's counts after its label, named, as both outputs show them.
    fn counts(&self) -> [(&'static str, String); 5] {
        [
            ("concurrency", self.concurrency.to_string()),
            ("connections", self.connections.to_string()),
            ("requests", self.requests().to_string()),
            ("errors", self.errors.to_string()),
            ("rps", format!("{:.0}", self.per_second())),
        ]
    }

    fn line(&self) -> String {
        let [p50, p90, p99, max] = self.latency_columns();
        let counts = self.counts().map(|(name, value)| format!("{name}={value}"));
        format!(
            "{} {} p50={p50}ms p90={p90}ms p99={p99}ms max={max}ms",
            self.label,
            counts.join(" "),
        )
    }

    const TABLE_HEADER: &str = "| round | rpc | in flight | connections | requests | errors | req/s \
                                | share of health | p50 ms | p90 ms | p99 ms | max ms |\n\
                                |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

    /// A table row; `share` is req/s as a share of the health run just before.
    fn table_row(&self, round: u32, share: f64) -> String {
        let [p50, p90, p99, max] = self.latency_columns();
        let counts = self.counts().map(|(_, value)| value);
        format!(
            "| {round} | {} | {} | {:.0}% | {p50} | {p90} | {p99} | {max} |",
            self.label,
            counts.join(" | "),
            share * 100.0,
        )
    }
}

/// The rounds of one (RPC, concurrency) cell of the `--all` matrix.
struct Cell {
    label: String,
    concurrency: usize,
    per_second: Vec<f64>,
    shares: Vec<f64>,
}

impl Cell {
    const TABLE_HEADER: &str = "| rpc | in flight | rounds | median req/s | median share of health \
                                | lowest share | highest share |\n\
                                |---|---:|---:|---:|---:|---:|---:|";

    fn table_row(&self) -> String {
        let percent = |x: f64| format!("{:.0}%", x * 100.0);
        let low = self.shares.iter().copied().fold(f64::INFINITY, f64::min);
        let high = self.shares.iter().copied().fold(0.0, f64::max);
        format!(
            "| {} | {} | {} | {:.0} | {} | {} | {} |",
            self.label,
            self.concurrency,
            self.shares.len(),
            median(&self.per_second),
            percent(median(&self.shares)),
            percent(low),
            percent(high),
        )
    }
}

/// The median (the mean of the middle two for an even count).
fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// A failure that stops the program.
#[derive(Debug)]
struct Fatal(String);

impl fmt::Display for Fatal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// An error with its chain of causes, e.g. "transport error: tcp connect
/// error: Connection refused (os error 111)".
fn describe(err: &dyn Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.ends_with(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

fn endpoint(addr: &str) -> Result<Endpoint, Fatal> {
    Endpoint::from_shared(addr.to_owned())
        .map(|endpoint| {
            endpoint
                .connect_timeout(CONNECT_TIMEOUT)
                .timeout(REQUEST_TIMEOUT)
                .tcp_nodelay(true)
        })
        .map_err(|err| Fatal(format!("invalid --addr `{addr}`: {}", describe(&err))))
}

/// Opens `count` connections.
async fn connect(endpoint: &Endpoint, count: usize) -> Result<Vec<Channel>, Fatal> {
    let mut channels = Vec::with_capacity(count);
    for _ in 0..count {
        let channel = endpoint.connect().await.map_err(|err| {
            Fatal(format!(
                "cannot connect to {}: {}",
                endpoint.uri(),
                describe(&err)
            ))
        })?;
        channels.push(channel);
    }
    Ok(channels)
}

/// Sends one request of each RPC to be measured, so that an unreachable or
/// misbehaving server stops the program before any run.
async fn preflight(endpoint: &Endpoint, rpcs: &[Rpc], variant: GameVariant) -> Result<(), Fatal> {
    let channel = connect(endpoint, 1).await?.remove(0);
    for &rpc in rpcs {
        let mut worker = Worker::new(rpc, variant, channel.clone());
        let result = match worker.prepare().await {
            Ok(()) => worker.call().await,
            Err(status) => Err(status),
        };
        result.map_err(|status| {
            Fatal(format!(
                "{} against {} failed: {:?}: {}",
                rpc_label(rpc, variant),
                endpoint.uri(),
                status.code(),
                status.message()
            ))
        })?;
    }
    Ok(())
}

/// Runs one measurement.
async fn run(endpoint: &Endpoint, spec: RunSpec) -> Result<Report, Fatal> {
    let channels = connect(endpoint, spec.connections).await?;
    let label = rpc_label(spec.rpc, spec.variant);
    let first_error = Arc::new(FirstError {
        label: format!("{label} at {} in flight", spec.concurrency),
        seen: AtomicBool::new(false),
    });
    let start = Instant::now() + spec.warmup;
    let window = Window {
        start,
        end: start + spec.duration,
    };
    let tasks: Vec<_> = (0..spec.concurrency)
        .map(|i| {
            let worker = Worker::new(spec.rpc, spec.variant, channels[i % channels.len()].clone());
            tokio::spawn(drive(worker, window, Arc::clone(&first_error)))
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let stats = task
            .await
            .map_err(|err| Fatal(format!("a load task failed: {err}")))?;
        latencies.extend(stats.latencies);
        errors += stats.errors;
    }
    latencies.sort_unstable();
    Ok(Report {
        label,
        concurrency: spec.concurrency,
        connections: spec.connections,
        latencies,
        errors,
        duration: spec.duration,
    })
}

async fn main_inner(args: Args) -> Result<(), Fatal> {
    let endpoint = endpoint(&args.addr)?;
    let (rpcs, levels): (Vec<Rpc>, Vec<usize>) = match args.rpc {
        Some(rpc) if !args.all => (vec![rpc], vec![args.concurrency as usize]),
        _ => (Rpc::ALL.to_vec(), MATRIX_CONCURRENCY.to_vec()),
    };
    preflight(&endpoint, &rpcs, args.variant).await?;
    if args.all {
        println!("{}", Report::TABLE_HEADER);
    }
    let mut cells: Vec<Cell> = Vec::new();
    // Concurrency outermost, then rounds, then RPCs: each RPC is measured
    // right after the health baseline it is compared with.
    for &concurrency in &levels {
        let connections = args
            .connections
            .map_or_else(|| concurrency.min(DEFAULT_MAX_CONNECTIONS), |c| c as usize);
        let first = cells.len();
        cells.extend(rpcs.iter().map(|&rpc| Cell {
            label: rpc_label(rpc, args.variant),
            concurrency,
            per_second: Vec::new(),
            shares: Vec::new(),
        }));
        for round in 1..=args.rounds {
            let mut baseline = f64::NAN;
            for (i, &rpc) in rpcs.iter().enumerate() {
                let spec = RunSpec {
                    rpc,
                    variant: args.variant,
                    concurrency,
                    connections,
                    warmup: args.warmup,
                    duration: args.duration,
                };
                let report = run(&endpoint, spec).await?;
                if !args.all {
                    println!("{}", report.line());
                    continue;
                }
                if rpc == Rpc::Health {
                    baseline = report.per_second();
                }
                let share = report.per_second() / baseline;
                println!("{}", report.table_row(round, share));
                let cell = &mut cells[first + i];
                cell.per_second.push(report.per_second());
                cell.shares.push(share);
            }
        }
    }
    if args.all && args.rounds > 1 {
        println!("\n{}", Cell::TABLE_HEADER);
        for cell in &cells {
            println!("{}", cell.table_row());
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    match main_inner(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("arbiter-load: {err}");
            ExitCode::FAILURE
        }
    }
}
