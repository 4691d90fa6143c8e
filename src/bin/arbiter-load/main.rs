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
//! target/release/arbiter-load --platform --platform-games 2000 \
//!     --platform-think-ms 2000 --platform-spectators 500 --platform-broadcast 1000 \
//!     --platform-reconnects-per-minute 1 --server-pid "$(pgrep -f 'arbiter serve')"
//! ```
//!
//! `--platform` (see `platform.rs`) prints moves/s and p50/p99/p99.9 from a
//! move sent to its MakeMove answer and to its event on the opponent's,
//! spectators' and the broadcast's streams, reconnects, errors by reason,
//! and the CPU a move costs the server (with `--server-pid`) and the tool;
//! any error fails it.

use std::{
    error::Error,
    fmt,
    process::ExitCode,
    sync::{Arc, atomic::AtomicBool},
    time::{Duration, Instant},
};

mod args;
mod history;
mod jwt;
mod long_game;
mod pairing;
mod platform;
mod raw_commit;
mod report;
mod wire;
mod workers;

use clap::{Parser, ValueEnum};
use raw_commit::ScratchDatabase;
use tonic::{
    Status,
    transport::{Channel, Endpoint},
};

use crate::{
    args::{Args, Asked, DEFAULT_MAX_CONNECTIONS, Rpc, plan},
    jwt::{AsPlayers, Signer},
    report::{Cell, Report},
    workers::{FirstError, Script, Window, Worker, drive},
};

// The same allocator as the server, so that decoding answers steals as little
// of the shared machine from the server as it can.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A request unanswered for this long fails with DEADLINE_EXCEEDED.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Pause after a failed `CreateGame`, so a failing server is not hammered.
const SETUP_BACKOFF: Duration = Duration::from_millis(10);

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
    /// make-move tasks play as players, with these credentials.
    as_players: Option<AsPlayers>,
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
            Rpc::MakeMove => match self.as_players {
                Some(AsPlayers::Tokens) => vec![variant.to_string(), "as players".into()],
                Some(AsPlayers::Jwt(_)) => vec![variant.to_string(), "as JWT players".into()],
                None => vec![variant.to_string()],
            },
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
            let mut worker = Worker::new(
                rpc,
                asked,
                vec![channel.clone()],
                &setup.script,
                None,
                setup.as_players.clone(),
            )?;
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
                setup.as_players.clone(),
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

async fn main_inner(args: Args) -> Result<(), Fatal> {
    let endpoints = args
        .addr
        .iter()
        .map(|addr| endpoint(addr))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(games) = args.history {
        return history::measure(&endpoints[0], games).await;
    }
    if args.platform {
        let plan = platform::Plan {
            games: args.platform_games as usize,
            think: Duration::from_millis(args.platform_think_ms),
            plies: args.platform_plies,
            spectators: args.platform_spectators,
            broadcast: args.platform_broadcast,
            reconnects_per_minute: args.platform_reconnects_per_minute,
            addresses: args.platform_addresses as usize,
            variant: args.variant,
            warmup: args.warmup,
            duration: args.duration,
            server_pid: args.server_pid,
        };
        return platform::measure(&endpoints[0], plan).await;
    }
    if args.pairing {
        let connections = args
            .connections
            .map_or(DEFAULT_MAX_CONNECTIONS, |c| c as usize);
        let pairs = args.pairs as usize;
        return pairing::measure(&endpoints[0], connections, args.open_seeks, pairs).await;
    }
    let (rpcs, levels) = plan(&args);
    let raw = match &args.raw_database {
        Some(url) if rpcs.contains(&Rpc::RawCommit) => Some(ScratchDatabase::create(url).await?),
        _ => None,
    };
    let setup = Setup {
        endpoints,
        alternate: args.alternate,
        as_players: match (&args.jwt_key, args.as_players) {
            (_, false) => None,
            (None, true) => Some(AsPlayers::Tokens),
            (Some(key), true) => Some(AsPlayers::Jwt(Arc::new(Signer::load(
                key,
                args.jwt_kid.as_deref(),
            )?))),
        },
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
    use crate::{
        args::{GameVariant, MATRIX_CONCURRENCY, MAX_START_PLY},
        workers::MEASURED_PLIES,
    };

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
            as_players: None,
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
