//! `arbiter-load`: a closed-loop load generator for a running Arbiter server.
//!
//! It keeps `--concurrency` requests in flight (one task each, sending its
//! next request as soon as the previous one is answered), spread round-robin
//! over `--connections` HTTP/2 connections (default: min(concurrency, 4); one
//! connection serialises on a single socket and server task). `--addr` may
//! name several servers (repeated or comma-separated): the tasks are spread
//! round-robin over them, each with `--connections` of its own (fewer when
//! fewer tasks use it). Each run has
//! `--warmup` unmeasured seconds, then `--duration` measured seconds. A request
//! is measured when it starts and ends inside the measured window.
//!
//! The RPCs (`--rpc`):
//!
//! * `health`: `grpc.health.v1.Health/Check` for the whole server, i.e. the
//!   cost of the transport alone (the baseline for the others);
//! * `legal-moves`: `arbiter.v1.Rules/LegalMoves` on a fixed middlegame with
//!   five moves of history (`--variant chess` or `xiangqi`; `--position
//!   start`: the start position instead), no database. The
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
//! * `make-move`: `arbiter.v1.Games/MakeMove`, a durable write. Every
//!   task plays its own games: it moves the knights (horses) out and back from
//!   the start position, alternating the seat tokens and passing
//!   `expected_ply`, and creates a fresh game before the repetition would end
//!   the game (chess: after 15 moves, before fivefold repetition; xiangqi: after
//!   7, before the threefold repetition that ends it). The `CreateGame` calls
//!   are neither timed nor counted as requests, but they take the task's time,
//!   so they lower requests/second a little (one per 15 or 7 moves).
//!   With `--start-ply N` every game is first built to N plies by one
//!   untimed `ImportGame` of a fixed long game (`long_game.rs`: no check, no
//!   repeated position, an irreversible move often enough for no move-count
//!   rule to apply), and its next 20 moves are measured: MakeMove on games
//!   N plies long. An imported game's first move may find it outside a
//!   server's cache of live games. With `--alternate` each task sends its
//!   game's moves to every `--addr` in turn, its own first (the servers must
//!   share one database: several replicas on PostgreSQL), so that every
//!   move is written by another server than the one before;
//! * `raw-commit`: no gRPC; one-row INSERT transactions to a scratch table
//!   of `--raw-database` (`raw_commit.rs`), with the store's settings: the
//!   bare commit rate that make-move is compared with in the same run. For
//!   SQLite (`sqlite:///PATH`, a file on the filesystem of the server's
//!   database, created if missing) WAL with `synchronous = FULL` and one
//!   writer connection that the tasks queue on, as the server's writer
//!   does; for PostgreSQL one connection per task and, run alone at more
//!   than one in flight, a run from one connection first. The table
//!   (`arbiter_load_scratch_<pid>`) is created at the start and dropped at
//!   the end (not if the program is killed); the file stays. `--all` adds it
//!   to the matrix, right before make-move, when `--raw-database` is given.
//!
//! Output: one line per run with its connections (all servers'; database
//! connections for raw-commit), the requests completed in the measured window,
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
//! target/release/arbiter-load --rpc raw-commit --concurrency 64 \
//!     --raw-database sqlite:///tmp/scratch.db
//! target/release/arbiter-load --rpc make-move --start-ply 400 --concurrency 16
//! target/release/arbiter-load --rpc make-move --concurrency 64 --alternate \
//!     --addr http://127.0.0.1:50051,http://127.0.0.1:50052
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

mod long_game;
mod raw_commit;
mod wire;

use arbiter::api::proto::{self as pb, games_client::GamesClient, rules_client::RulesClient};
use clap::{Parser, ValueEnum};
use http::uri::PathAndQuery;
use prost::{Message, bytes::Bytes};
use raw_commit::{Committer, ScratchDatabase};
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

/// The longest `--start-ply`: ImportGame's default limit.
const MAX_START_PLY: i64 = 2000;
/// Moves measured in each game of `--start-ply` before a fresh one is
/// imported.
const MEASURED_PLIES: u32 = 20;

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
    /// Server URL. Several (the option repeated, or comma-separated) spread
    /// the tasks round-robin over them.
    #[arg(long, value_delimiter = ',', default_value = "http://127.0.0.1:50051")]
    addr: Vec<String>,
    /// With several --addr: each make-move task sends its game's moves to
    /// the addresses in turn (every move of a game on another server than
    /// the one before) instead of playing on one.
    #[arg(long)]
    alternate: bool,
    /// make-move: build each game to this many plies first (one untimed
    /// ImportGame of a fixed long game) and measure moves from there.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_START_PLY))]
    start_ply: u32,
    /// raw-commit's database: `sqlite:///PATH` on the filesystem of the
    /// server's database, or `postgres://USER@HOST:PORT/DATABASE`. A scratch
    /// table is created in it and dropped at the end. With --all, adds
    /// raw-commit to the matrix.
    #[arg(long, required_if_eq("rpc", "raw-commit"))]
    raw_database: Option<String>,
    /// The RPC to measure.
    #[arg(long, value_enum, required_unless_present = "all")]
    rpc: Option<Rpc>,
    /// The game for legal-moves and make-move.
    #[arg(long, value_enum, default_value_t = GameVariant::Chess)]
    variant: GameVariant,
    /// The position legal-moves asks about.
    #[arg(long, value_enum, default_value_t = Asked::Middlegame)]
    position: Asked,
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
    /// No gRPC: one-row commits to a scratch table of --raw-database.
    RawCommit,
    /// arbiter.v1.Games/MakeMove in games the tasks create.
    MakeMove,
}

impl Rpc {
    const ALL: [Rpc; 7] = [
        Rpc::Health,
        Rpc::LegalMoves,
        Rpc::LegalMovesDecoded,
        Rpc::LegalMovesUci,
        Rpc::LegalMovesUciText,
        Rpc::RawCommit,
        Rpc::MakeMove,
    ];
}

/// The position of the legal-moves RPCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Asked {
    /// A fixed middlegame with five moves of history.
    Middlegame,
    /// The start position, no history.
    Start,
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

    /// The `legal-moves` request about `asked`.
    fn legal_moves_request(self, asked: Asked, detail: pb::MoveDetail) -> pb::LegalMovesRequest {
        let (fen, moves) = match (asked, self) {
            (Asked::Start, _) => ("", [].as_slice()),
            (Asked::Middlegame, GameVariant::Chess) => (CHESS_FEN, CHESS_MOVES.as_slice()),
            (Asked::Middlegame, GameVariant::Xiangqi) => (XIANGQI_FEN, XIANGQI_MOVES.as_slice()),
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
    concurrency: usize,
    /// Connections per server address.
    connections: usize,
    warmup: Duration,
    duration: Duration,
}

/// What every run shares: where the requests go and what make-move plays.
struct Setup {
    endpoints: Vec<Endpoint>,
    /// make-move tasks alternate their moves over the endpoints.
    alternate: bool,
    script: Arc<Script>,
    /// What the legal-moves RPCs ask about.
    asked: Asked,
    raw: Option<ScratchDatabase>,
}

impl Setup {
    /// The RPC's name, with the game where it matters, the database of
    /// raw-commit, make-move's start ply and the servers when there are
    /// several.
    fn label(&self, rpc: Rpc) -> String {
        let variant = self.script.variant();
        let mut details = match rpc {
            Rpc::Health => vec![],
            Rpc::RawCommit => match &self.raw {
                Some(raw) => vec![raw.backend().to_string()],
                None => vec![],
            },
            Rpc::MakeMove => vec![variant.to_string()],
            _ => match self.asked {
                Asked::Middlegame => vec![variant.to_string()],
                Asked::Start => vec![variant.to_string(), "start".into()],
            },
        };
        if rpc == Rpc::MakeMove
            && let Script::Long { start, .. } = &*self.script
        {
            details.push(format!("from ply {start}"));
        }
        let servers = self.endpoints.len();
        if servers > 1 && rpc != Rpc::RawCommit {
            let alternating = self.alternate && rpc == Rpc::MakeMove;
            details.push(format!(
                "{servers} servers{}",
                if alternating { ", alternating" } else { "" }
            ));
        }
        let name = rpc
            .to_possible_value()
            .map_or_else(|| format!("{rpc:?}"), |value| value.get_name().to_owned());
        if details.is_empty() {
            name
        } else {
            format!("{name} ({})", details.join(", "))
        }
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
    RawCommit(Committer),
    MakeMove(Player),
}

impl Worker {
    /// A task's worker for `rpc` over `channels`: one, or (alternating
    /// make-move) one for each server address, the task's own first.
    /// raw-commit's takes the `committer` instead.
    fn new(
        rpc: Rpc,
        (variant, asked): (GameVariant, Asked),
        channels: Vec<Channel>,
        script: &Arc<Script>,
        committer: Option<Committer>,
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
            }),
        })
    }

    /// Untimed set-up before the next request (a fresh game for make-move).
    async fn prepare(&mut self) -> Result<(), Status> {
        match self {
            Worker::MakeMove(player) => player.ensure_game().await,
            Worker::Health(_)
            | Worker::LegalMoves { .. }
            | Worker::LegalMovesDecoded { .. }
            | Worker::RawCommit(_) => Ok(()),
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
            Worker::RawCommit(committer) => committer.commit().await,
            Worker::MakeMove(player) => player.play().await,
        }
    }
}

/// Every answer about the positions asked lists moves: none is an error.
fn some_moves(count: usize) -> Result<(), Status> {
    if count == 0 {
        Err(Status::internal("LegalMoves answered no moves"))
    } else {
        Ok(())
    }
}

/// What make-move's games are and which moves they play.
enum Script {
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
    fn new(variant: GameVariant, start: u32) -> Result<Script, Fatal> {
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

    fn variant(&self) -> GameVariant {
        match self {
            Script::Cycle(variant) | Script::Long { variant, .. } => *variant,
        }
    }

    /// The ply after which a fresh game is needed.
    fn last_ply(&self) -> u32 {
        match self {
            Script::Cycle(variant) => variant.moves_per_game(),
            Script::Long { start, .. } => start + MEASURED_PLIES,
        }
    }

    /// The move to play at `ply`.
    fn move_at(&self, ply: u32) -> &str {
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
struct Player {
    /// The task's own server first; moves at ply `p` go to
    /// `clients[p % clients.len()]`.
    clients: Vec<GamesClient<Channel>>,
    script: Arc<Script>,
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
    /// Creates (or imports) a game unless the current one can take another
    /// move.
    async fn ensure_game(&mut self) -> Result<(), Status> {
        let limit = self.script.last_ply();
        if self.game.as_ref().is_some_and(|game| game.ply < limit) {
            return Ok(());
        }
        self.game = None;
        let client = &mut self.clients[0];
        let (game, tokens) = match &*self.script {
            Script::Cycle(_) => {
                let seat = |name: &str| {
                    Some(pb::SeatRequest {
                        display_name: name.into(),
                        engine: None,
                        ..Default::default()
                    })
                };
                let created = client
                    .create_game(pb::CreateGameRequest {
                        variant: self.script.variant().proto() as i32,
                        white: seat("load white"),
                        black: seat("load black"),
                        ..Default::default()
                    })
                    .await?
                    .into_inner();
                (created.game, [created.white_token, created.black_token])
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

    /// Plays the script's next move. On any failure the game is dropped,
    /// so the next call starts a fresh one.
    async fn play(&mut self) -> Result<(), Status> {
        let Some(game) = self.game.take() else {
            return Err(Status::internal("no game to play in"));
        };
        let ply = game.ply;
        let count = self.clients.len();
        let response = self.clients[ply as usize % count]
            .make_move(pb::MakeMoveRequest {
                game_id: game.id.clone(),
                seat_token: game.tokens[ply as usize % 2].clone(),
                r#move: self.script.move_at(ply).into(),
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

/// Sends one request of each RPC to be measured to each server (and one
/// raw commit), so that an unreachable or misbehaving server stops the
/// program before any run.
async fn preflight(setup: &Setup, rpcs: &[Rpc]) -> Result<(), Fatal> {
    let asked = (setup.script.variant(), setup.asked);
    let fail = |rpc: Rpc, target: String| {
        let label = setup.label(rpc);
        move |status: Status| {
            Fatal(format!(
                "{label} against {target} failed: {:?}: {}",
                status.code(),
                status.message()
            ))
        }
    };
    if let Some(raw) = &setup.raw {
        for committer in raw.committers(1).await? {
            committer
                .commit()
                .await
                .map_err(fail(Rpc::RawCommit, raw.to_string()))?;
        }
    }
    // raw-commit alone needs no server.
    let grpc: Vec<Rpc> = rpcs
        .iter()
        .copied()
        .filter(|&rpc| rpc != Rpc::RawCommit)
        .collect();
    for endpoint in setup.endpoints.iter().filter(|_| !grpc.is_empty()) {
        let channel = connect(endpoint, 1).await?.remove(0);
        for &rpc in &grpc {
            let mut worker = Worker::new(rpc, asked, vec![channel.clone()], &setup.script, None)?;
            let result = match worker.prepare().await {
                Ok(()) => worker.call().await,
                Err(status) => Err(status),
            };
            result.map_err(fail(rpc, endpoint.uri().to_string()))?;
        }
    }
    Ok(())
}

/// Which server address and which of its connections each task uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Spread {
    addresses: usize,
    tasks: usize,
    /// Every task uses every address (alternating make-move).
    alternate: bool,
}

impl Spread {
    /// The address of task `task`'s own server (round-robin).
    fn home(self, task: usize) -> usize {
        task % self.addresses
    }

    /// The tasks that send requests to `address`.
    fn tasks_at(self, address: usize) -> usize {
        if self.alternate {
            self.tasks
        } else {
            self.tasks / self.addresses + usize::from(address < self.tasks % self.addresses)
        }
    }

    /// The addresses task `task` sends to, its own first.
    fn addresses_of(self, task: usize) -> Vec<usize> {
        let count = if self.alternate { self.addresses } else { 1 };
        (0..count)
            .map(|k| (self.home(task) + k) % self.addresses)
            .collect()
    }

    /// Which of an address's `connections` task `task` uses.
    fn connection_of(self, task: usize, connections: usize) -> usize {
        (task / self.addresses) % connections
    }
}

/// Runs one measurement.
async fn run(setup: &Setup, spec: RunSpec) -> Result<Report, Fatal> {
    let asked = (setup.script.variant(), setup.asked);
    let spread = Spread {
        addresses: setup.endpoints.len(),
        tasks: spec.concurrency,
        alternate: setup.alternate && spec.rpc == Rpc::MakeMove,
    };
    let mut committers = Vec::new();
    let mut channels: Vec<Vec<Channel>> = Vec::new();
    let connections = match (spec.rpc, &setup.raw) {
        (Rpc::RawCommit, Some(raw)) => {
            committers = raw.committers(spec.concurrency).await?;
            raw.connections(spec.concurrency)
        }
        (Rpc::RawCommit, None) => return Err(Fatal("raw-commit needs --raw-database".into())),
        _ => {
            for (address, endpoint) in setup.endpoints.iter().enumerate() {
                let count = spec.connections.min(spread.tasks_at(address));
                channels.push(connect(endpoint, count).await?);
            }
            channels.iter().map(Vec::len).sum()
        }
    };
    let label = setup.label(spec.rpc);
    let first_error = Arc::new(FirstError {
        label: format!("{label} at {} in flight", spec.concurrency),
        seen: AtomicBool::new(false),
    });
    let mut committers = committers.into_iter();
    let workers = (0..spec.concurrency)
        .map(|task| {
            let task_channels = if channels.is_empty() {
                Vec::new()
            } else {
                spread
                    .addresses_of(task)
                    .into_iter()
                    .map(|address| {
                        let at = &channels[address];
                        at[spread.connection_of(task, at.len())].clone()
                    })
                    .collect()
            };
            Worker::new(
                spec.rpc,
                asked,
                task_channels,
                &setup.script,
                committers.next(),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let start = Instant::now() + spec.warmup;
    let window = Window {
        start,
        end: start + spec.duration,
    };
    let tasks: Vec<_> = workers
        .into_iter()
        .map(|worker| tokio::spawn(drive(worker, window, Arc::clone(&first_error))))
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
        connections,
        latencies,
        errors,
        duration: spec.duration,
    })
}

/// The RPCs and concurrency levels to measure: `--all`'s matrix (with
/// raw-commit when there is a database for it), or one RPC. PostgreSQL's
/// raw-commit alone at more than one in flight is measured from one
/// connection first: the disk's bare commit rate, which the write path's
/// figures are compared with.
fn plan(args: &Args) -> (Vec<Rpc>, Vec<usize>) {
    match args.rpc {
        Some(rpc) if !args.all => {
            let concurrency = args.concurrency as usize;
            let one_first = rpc == Rpc::RawCommit
                && concurrency > 1
                && args
                    .raw_database
                    .as_deref()
                    .is_some_and(|url| url.starts_with("postgres"));
            let levels = if one_first {
                vec![1, concurrency]
            } else {
                vec![concurrency]
            };
            (vec![rpc], levels)
        }
        _ => {
            let rpcs = Rpc::ALL
                .into_iter()
                .filter(|&rpc| rpc != Rpc::RawCommit || args.raw_database.is_some())
                .collect();
            (rpcs, MATRIX_CONCURRENCY.to_vec())
        }
    }
}

async fn main_inner(args: Args) -> Result<(), Fatal> {
    let endpoints = args
        .addr
        .iter()
        .map(|addr| endpoint(addr))
        .collect::<Result<Vec<_>, _>>()?;
    let (rpcs, levels) = plan(&args);
    let raw = match &args.raw_database {
        Some(url) if rpcs.contains(&Rpc::RawCommit) => Some(ScratchDatabase::create(url).await?),
        _ => None,
    };
    let setup = Setup {
        endpoints,
        alternate: args.alternate,
        script: Arc::new(Script::new(args.variant, args.start_ply)?),
        asked: args.position,
        raw,
    };
    let measured = measure(&args, &setup, &rpcs, &levels).await;
    // The scratch table goes whatever happened to the runs.
    let dropped = match setup.raw {
        Some(raw) => raw.drop_table().await,
        None => Ok(()),
    };
    measured.and(dropped)
}

/// Every run of the plan, printed as it ends.
async fn measure(args: &Args, setup: &Setup, rpcs: &[Rpc], levels: &[usize]) -> Result<(), Fatal> {
    preflight(setup, rpcs).await?;
    if args.all {
        println!("{}", Report::TABLE_HEADER);
    }
    let mut cells: Vec<Cell> = Vec::new();
    // Concurrency outermost, then rounds, then RPCs: each RPC is measured
    // right after the health baseline it is compared with.
    for &concurrency in levels {
        let connections = args
            .connections
            .map_or_else(|| concurrency.min(DEFAULT_MAX_CONNECTIONS), |c| c as usize);
        let first = cells.len();
        cells.extend(rpcs.iter().map(|&rpc| Cell {
            label: setup.label(rpc),
            concurrency,
            per_second: Vec::new(),
            shares: Vec::new(),
        }));
        for round in 1..=args.rounds {
            let mut baseline = f64::NAN;
            for (i, &rpc) in rpcs.iter().enumerate() {
                let spec = RunSpec {
                    rpc,
                    concurrency,
                    connections,
                    warmup: args.warmup,
                    duration: args.duration,
                };
                let report = run(setup, spec).await?;
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

#[cfg(test)]
mod tests {
    use arbiter::rules::{Game, Record, chess::Chess, xiangqi::Xiangqi};

    use super::*;

    fn parse(args: &[&str]) -> Result<Args, clap::Error> {
        Args::try_parse_from([&["arbiter-load"], args].concat())
    }

    #[test]
    fn addresses_may_be_repeated_or_comma_separated() {
        let args = parse(&["--rpc", "make-move"]).unwrap();
        assert_eq!(args.addr, ["http://127.0.0.1:50051"]);
        let args = parse(&[
            "--rpc",
            "make-move",
            "--addr",
            "http://a:1,http://b:2",
            "--addr",
            "http://c:3",
            "--alternate",
        ])
        .unwrap();
        assert_eq!(args.addr, ["http://a:1", "http://b:2", "http://c:3"]);
        assert!(args.alternate);
    }

    #[test]
    fn raw_commit_needs_its_database() {
        assert!(parse(&["--rpc", "raw-commit"]).is_err());
        let args = parse(&[
            "--rpc",
            "raw-commit",
            "--raw-database",
            "sqlite:///tmp/s.db",
        ])
        .unwrap();
        assert_eq!(args.rpc, Some(Rpc::RawCommit));
        assert_eq!(args.raw_database.as_deref(), Some("sqlite:///tmp/s.db"));
    }

    #[test]
    fn start_ply_is_bounded_by_what_an_import_takes() {
        assert_eq!(parse(&["--all"]).unwrap().start_ply, 0);
        assert_eq!(
            parse(&["--all", "--start-ply", "400"]).unwrap().start_ply,
            400
        );
        assert!(parse(&["--all", "--start-ply", "-1"]).is_err());
        assert!(parse(&["--all", "--start-ply", &(MAX_START_PLY + 1).to_string()]).is_err());
    }

    #[test]
    fn the_matrix_has_raw_commit_only_with_a_database() {
        let (rpcs, levels) = plan(&parse(&["--all"]).unwrap());
        assert!(!rpcs.contains(&Rpc::RawCommit));
        assert_eq!(rpcs.len(), Rpc::ALL.len() - 1);
        assert_eq!(levels, MATRIX_CONCURRENCY);
        let (rpcs, _) = plan(&parse(&["--all", "--raw-database", "sqlite:///tmp/s.db"]).unwrap());
        assert_eq!(rpcs, Rpc::ALL);
    }

    #[test]
    fn raw_commit_on_postgres_is_measured_from_one_connection_too() {
        let raw = |url: &str, concurrency: &str| {
            plan(
                &parse(&[
                    "--rpc",
                    "raw-commit",
                    "--raw-database",
                    url,
                    "--concurrency",
                    concurrency,
                ])
                .unwrap(),
            )
        };
        assert_eq!(raw("postgres://u@h:5432/d", "64").1, [1, 64]);
        assert_eq!(raw("postgres://u@h:5432/d", "1").1, [1]);
        assert_eq!(raw("sqlite:///tmp/s.db", "64").1, [64]);
    }

    #[test]
    fn tasks_spread_round_robin_over_the_addresses() {
        let spread = Spread {
            addresses: 3,
            tasks: 7,
            alternate: false,
        };
        let homes: Vec<_> = (0..7).map(|task| spread.addresses_of(task)).collect();
        assert_eq!(homes, [[0], [1], [2], [0], [1], [2], [0]]);
        assert_eq!(
            (0..3).map(|a| spread.tasks_at(a)).collect::<Vec<_>>(),
            [3, 2, 2]
        );
        // Tasks 0, 3 and 6 share address 0's two connections in turn.
        let connections: Vec<_> = [0, 3, 6].map(|task| spread.connection_of(task, 2)).into();
        assert_eq!(connections, [0, 1, 0]);
    }

    #[test]
    fn alternating_tasks_use_every_address_their_own_first() {
        let spread = Spread {
            addresses: 3,
            tasks: 2,
            alternate: true,
        };
        assert_eq!(spread.addresses_of(0), [0, 1, 2]);
        assert_eq!(spread.addresses_of(1), [1, 2, 0]);
        assert_eq!(spread.tasks_at(2), 2);
    }

    #[test]
    fn labels_say_what_was_measured() {
        let setup = |servers: usize, alternate: bool, start: u32| Setup {
            endpoints: vec![Endpoint::from_static("http://127.0.0.1:1"); servers],
            alternate,
            script: Arc::new(Script::new(GameVariant::Xiangqi, start).unwrap()),
            asked: Asked::Middlegame,
            raw: None,
        };
        assert_eq!(
            setup(1, false, 0).label(Rpc::MakeMove),
            "make-move (xiangqi)"
        );
        assert_eq!(setup(1, false, 0).label(Rpc::Health), "health");
        assert_eq!(
            setup(2, true, 10).label(Rpc::MakeMove),
            "make-move (xiangqi, from ply 10, 2 servers, alternating)"
        );
        assert_eq!(
            setup(2, true, 10).label(Rpc::LegalMoves),
            "legal-moves (xiangqi, 2 servers)"
        );
        let start = Setup {
            asked: Asked::Start,
            ..setup(1, false, 0)
        };
        assert_eq!(
            start.label(Rpc::LegalMovesDecoded),
            "legal-moves-decoded (xiangqi, start)"
        );
        assert_eq!(start.label(Rpc::MakeMove), "make-move (xiangqi)");
    }

    /// Plays a script's measured moves after its start with the rules
    /// library, as the server would.
    fn check_script<G: Game>(start: G, script: &Script) {
        let mut record = Record::new(start);
        for ply in 0..script.last_ply() {
            let text = script.move_at(ply);
            record
                .play_text(text)
                .unwrap_or_else(|err| panic!("ply {}: {text}: {err}", ply + 1));
            assert!(!record.verdict().is_over(), "ply {} ends the game", ply + 1);
        }
    }

    #[test]
    fn every_script_plays_to_its_last_ply_without_ending_the_game() {
        for start in [0, 10, 400, MAX_START_PLY as u32] {
            check_script(
                Chess::start(),
                &Script::new(GameVariant::Chess, start).unwrap(),
            );
            check_script(
                Xiangqi::start(),
                &Script::new(GameVariant::Xiangqi, start).unwrap(),
            );
        }
    }

    #[test]
    fn a_long_script_imports_its_start_and_plays_on_from_there() {
        let script = Script::new(GameVariant::Xiangqi, 10).unwrap();
        assert_eq!(script.last_ply(), 10 + MEASURED_PLIES);
        let Script::Long { pgn, moves, .. } = &script else {
            panic!("a start past 0 imports a long game");
        };
        assert_eq!(moves.len(), (10 + MEASURED_PLIES) as usize);
        assert!(
            pgn.contains(&format!("5. {} {} *", moves[8], moves[9])),
            "{pgn}"
        );
        assert_eq!(script.move_at(10), moves[10]);
    }
}
