//! The command line: what to measure, on which servers, for how long.

use std::{fmt, time::Duration};

use arbiter::api::proto as pb;
use clap::{Parser, ValueEnum};

/// The concurrency levels of `--all`.
pub(crate) const MATRIX_CONCURRENCY: [usize; 3] = [1, 16, 64];
/// Connections used when `--connections` is not given: min(concurrency, this).
pub(crate) const DEFAULT_MAX_CONNECTIONS: usize = 4;

/// The longest `--start-ply`: ImportGame's default limit.
pub(crate) const MAX_START_PLY: i64 = 2000;
/// The chess middlegame of the `chess_legal_moves/middlegame` bench.
pub(crate) const CHESS_FEN: &str =
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
/// Moves played from [`CHESS_FEN`] (history the server has to replay).
pub(crate) const CHESS_MOVES: [&str; 5] = ["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"];
/// The xiangqi middlegame of the `xiangqi_perft` bench.
pub(crate) const XIANGQI_FEN: &str =
    "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11";
/// Moves played from [`XIANGQI_FEN`] (ICCS).
pub(crate) const XIANGQI_MOVES: [&str; 5] = ["h0g2", "h9g7", "a1d1", "i9i8", "b2e2"];

/// Load generator for a running Arbiter server: measures requests/second and
/// latency of one RPC, or of the benchmark matrix with `--all`.
#[derive(Debug, Parser)]
#[command(name = "arbiter-load", version)]
pub(crate) struct Args {
    /// Server URL. Several (the option repeated, or comma-separated) spread
    /// the tasks round-robin over them.
    #[arg(long, value_delimiter = ',', default_value = "http://127.0.0.1:50051")]
    pub(crate) addr: Vec<String>,
    /// With several --addr: each make-move task sends its game's moves to
    /// the addresses in turn (every move of a game on another server than
    /// the one before) instead of playing on one.
    #[arg(long)]
    pub(crate) alternate: bool,
    /// make-move: build each game to this many plies first (one untimed
    /// ImportGame of a fixed long game) and measure moves from there.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_START_PLY))]
    pub(crate) start_ply: u32,
    /// make-move: each game's seats are bound to two players the task
    /// creates, who move with their player tokens (`authorization`
    /// metadata) instead of seat tokens. Not with --start-ply.
    #[arg(long, conflicts_with = "start_ply")]
    pub(crate) as_players: bool,
    /// With --as-players: the players are the identity provider's, named
    /// by RS256 JWTs the task signs with this PEM key (the server trusting
    /// its public half through --auth-jwks), instead of player tokens.
    #[arg(long, requires = "as_players")]
    pub(crate) jwt_key: Option<std::path::PathBuf>,
    /// The key id the JWTs of --jwt-key carry (the JWKS's `kid`); without
    /// it they carry none, which a server whose key set has one key takes.
    #[arg(long, requires = "jwt_key")]
    pub(crate) jwt_kid: Option<String>,
    /// raw-commit's database: `sqlite:///PATH` on the filesystem of the
    /// server's database, or `postgres://USER@HOST:PORT/DATABASE`. A scratch
    /// table is created in it and dropped at the end. With --all, adds
    /// raw-commit to the matrix.
    #[arg(long, required_if_eq("rpc", "raw-commit"))]
    pub(crate) raw_database: Option<String>,
    /// The RPC to measure.
    #[arg(long, value_enum, required_unless_present_any = ["all", "pairing", "history", "platform"])]
    pub(crate) rpc: Option<Rpc>,
    /// The game for legal-moves and make-move.
    #[arg(long, value_enum, default_value_t = GameVariant::Chess)]
    pub(crate) variant: GameVariant,
    /// The position legal-moves asks about.
    #[arg(long, value_enum, default_value_t = Asked::Middlegame)]
    pub(crate) position: Asked,
    /// Requests in flight (one task each).
    #[arg(
        long,
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..),
        conflicts_with = "all"
    )]
    pub(crate) concurrency: u32,
    /// HTTP/2 connections the tasks are spread over [default: min(concurrency, 4)].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) connections: Option<u32>,
    /// Measured seconds per run.
    #[arg(long, default_value = "10", value_parser = parse_positive_secs)]
    pub(crate) duration: Duration,
    /// Unmeasured seconds before each run's measurement.
    #[arg(long, default_value = "2", value_parser = parse_secs)]
    pub(crate) warmup: Duration,
    /// Run every RPC at 1, 16 and 64 in flight and print a Markdown table.
    #[arg(long, conflicts_with = "rpc")]
    pub(crate) all: bool,
    /// Instead of an RPC: how fast the pairing pool pairs --pairs pairs of
    /// players seeking at once while --open-seeks other seeks wait, and
    /// each seeker's wait from Seek to game (on the first --addr, over
    /// --connections connections).
    #[arg(long, conflicts_with_all = ["rpc", "all"])]
    pub(crate) pairing: bool,
    /// Instead of an RPC: imports this many games through ImportGames
    /// (the server with `--import-kib-per-second 0 --create-rate 0`), then
    /// times ListGames pages for the filters a history page uses.
    #[arg(long, conflicts_with_all = ["rpc", "all", "pairing"])]
    pub(crate) history: Option<usize>,
    /// Instead of an RPC: a platform's traffic at human pace (games
    /// between players who think, streams for both players, spectators,
    /// a broadcast game, reconnects, games ending and starting) from many
    /// loopback source addresses; reports moves/s and the latencies from
    /// a move to its events. Every --platform-* flag shapes it. The game is
    /// --variant; the window is --warmup then --duration.
    #[arg(long, conflicts_with_all = ["rpc", "all", "pairing", "history"])]
    pub(crate) platform: bool,
    /// --platform: games in play at once.
    #[arg(long, default_value_t = 100, requires = "platform", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub(crate) platform_games: u32,
    /// --platform: a player's mean think time before each move, in ms.
    #[arg(long, default_value_t = 2000, requires = "platform")]
    pub(crate) platform_think_ms: u64,
    /// --platform: plies after which a game is resigned and another starts.
    #[arg(long, default_value_t = 60, requires = "platform", value_parser = clap::value_parser!(u32).range(2..=2000))]
    pub(crate) platform_plies: u32,
    /// --platform: spectator streams, spread over the games.
    #[arg(long, default_value_t = 0, requires = "platform")]
    pub(crate) platform_spectators: usize,
    /// --platform: spectator streams on one game (the first).
    #[arg(long, default_value_t = 0, requires = "platform")]
    pub(crate) platform_broadcast: usize,
    /// --platform: how often each stream drops and resumes from its last
    /// version, a minute.
    #[arg(long, default_value_t = 0.0, requires = "platform")]
    pub(crate) platform_reconnects_per_minute: f64,
    /// --platform: loopback source addresses the simulated users connect
    /// from (127.0.0.2 on), each with its own connections.
    #[arg(long, default_value_t = 64, requires = "platform", value_parser = clap::value_parser!(u32).range(1..=65_000))]
    pub(crate) platform_addresses: u32,
    /// --platform: the server's process id, to report its RSS and CPU per
    /// move (from /proc).
    #[arg(long, requires = "platform")]
    pub(crate) server_pid: Option<u32>,
    /// --pairing: seeks waiting in the pool, unpairable.
    #[arg(long, default_value_t = 1000, requires = "pairing")]
    pub(crate) open_seeks: usize,
    /// --pairing: pairs of players seeking at once.
    #[arg(long, default_value_t = 100, requires = "pairing", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub(crate) pairs: u32,
    /// With --all: measure the matrix this many times, each RPC right after
    /// the health baseline at the same concurrency, and add a table of
    /// medians (one run is at the mercy of whatever else the machine does).
    #[arg(
        long,
        default_value_t = 1,
        requires = "all",
        value_parser = clap::value_parser!(u32).range(1..=20)
    )]
    pub(crate) rounds: u32,
}

/// An RPC to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Rpc {
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
    pub(crate) const ALL: [Rpc; 7] = [
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
pub(crate) enum Asked {
    /// A fixed middlegame with five moves of history.
    Middlegame,
    /// The start position, no history.
    Start,
}

/// The game for the Rules and Games RPCs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum GameVariant {
    Chess,
    Xiangqi,
}

impl GameVariant {
    pub(crate) fn proto(self) -> pb::Variant {
        match self {
            GameVariant::Chess => pb::Variant::Chess,
            GameVariant::Xiangqi => pb::Variant::Xiangqi,
        }
    }

    /// The `legal-moves` request about `asked`.
    pub(crate) fn legal_moves_request(
        self,
        asked: Asked,
        detail: pb::MoveDetail,
    ) -> pb::LegalMovesRequest {
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
    pub(crate) fn move_cycle(self) -> [&'static str; 4] {
        match self {
            GameVariant::Chess => ["Nf3", "Nf6", "Ng1", "Ng8"],
            GameVariant::Xiangqi => ["h0g2", "h9g7", "g2h0", "g7h9"],
        }
    }

    /// Moves played in one game before a fresh one is created: the most the
    /// cycle allows before a repetition ends the game. Every position of the
    /// cycle recurs every 4 plies; chess ends at its fifth occurrence
    /// (fivefold, ply 16), xiangqi at its third (ply 8).
    pub(crate) fn moves_per_game(self) -> u32 {
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

pub(crate) fn parse_secs(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(secs).map_err(|err| format!("`{text}`: {err}"))
}

pub(crate) fn parse_positive_secs(text: &str) -> Result<Duration, String> {
    match parse_secs(text)? {
        Duration::ZERO => Err("must be more than 0 seconds".into()),
        duration => Ok(duration),
    }
}

/// The RPCs and concurrency levels to measure: `--all`'s matrix (with
/// raw-commit when there is a database for it), or one RPC. PostgreSQL's
/// raw-commit alone at more than one in flight is measured from one
/// connection first: the disk's bare commit rate, which the write path's
/// figures are compared with.
pub(crate) fn plan(args: &Args) -> (Vec<Rpc>, Vec<usize>) {
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
