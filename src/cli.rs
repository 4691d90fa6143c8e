//! The `arbiter` command line.

use std::{path::PathBuf, process::ExitCode};

use clap::{Parser, Subcommand};

use crate::{
    analysis::Analyst,
    api::{ServerConfig, TlsFiles, serve},
    rules::{Game, Variant, perft},
    telemetry::{self, LogFormat},
    with_game,
};

/// Arbiter: referees and manages chess and xiangqi games.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gRPC server (Rules and Games services, health, reflection,
    /// grpc-web).
    Serve {
        /// Address to listen on.
        #[arg(long, env = "ARBITER_LISTEN", default_value = "127.0.0.1:50051")]
        listen: String,
        /// SQLite database URL; the file is created if missing.
        #[arg(
            long,
            env = "ARBITER_DATABASE_URL",
            default_value = "sqlite://arbiter.db"
        )]
        database_url: String,
        /// Log format.
        #[arg(long, env = "ARBITER_LOG_FORMAT", value_enum, default_value = "text")]
        log_format: LogFormat,
        /// Engine searches run at once (Engine RPCs and engine seats);
        /// default: one fewer than the CPU cores, at least 1.
        #[arg(long, env = "ARBITER_ENGINE_SLOTS", value_parser = clap::value_parser!(u16).range(1..=1024))]
        engine_slots: Option<u16>,
        /// Serve over TLS with this certificate chain (PEM, leaf first);
        /// needs --tls-key. Reloaded on SIGHUP and when the file changes.
        #[arg(long, env = "ARBITER_TLS_CERT", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The TLS certificate's private key (PEM); needs --tls-cert.
        #[arg(long, env = "ARBITER_TLS_KEY", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// Mutual TLS: accept only clients with a certificate signed by a CA
        /// in this file (PEM); needs --tls-cert.
        #[arg(long, env = "ARBITER_TLS_CLIENT_CA", requires = "tls_cert")]
        tls_client_ca: Option<PathBuf>,
    },
    /// Speak UCI on stdin/stdout (chess, or xiangqi via
    /// `setoption name UCI_Variant value xiangqi`).
    Uci,
    /// Count the leaf nodes of the legal move tree (move generator test).
    ///
    /// Prints the node count as the last line; with --divide, one
    /// `move: count` line per root move first.
    Perft {
        /// The game.
        #[arg(long, default_value = "chess")]
        variant: Variant,
        /// Start position (default: the standard start).
        #[arg(long)]
        fen: Option<String>,
        /// Depth in half-moves.
        #[arg(long)]
        depth: u32,
        /// Print the count below each root move.
        #[arg(long)]
        divide: bool,
    },
}

impl Cli {
    /// Runs the command, printing to stdout and errors to stderr.
    pub fn run(self) -> ExitCode {
        match self.command {
            Command::Serve {
                listen,
                database_url,
                log_format,
                engine_slots,
                tls_cert,
                tls_key,
                tls_client_ca,
            } => run_server(
                &listen,
                ServerConfig {
                    engine_slots: engine_slots.map_or_else(Analyst::default_slots, usize::from),
                    tls: tls_cert.zip(tls_key).map(|(cert, key)| TlsFiles {
                        cert,
                        key,
                        client_ca: tls_client_ca,
                    }),
                    ..ServerConfig::new(database_url)
                },
                log_format,
            ),
            Command::Uci => {
                let output: crate::uci::Output =
                    std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
                crate::uci::Session::new(output).run(std::io::stdin().lock());
                ExitCode::SUCCESS
            }
            Command::Perft {
                variant,
                fen,
                depth,
                divide,
            } => with_game!(variant, G => run_perft::<G>(fen.as_deref(), depth, divide)),
        }
    }
}

fn run_perft<G: Game>(fen: Option<&str>, depth: u32, divide: bool) -> ExitCode {
    let pos = match fen.map(G::from_fen).transpose() {
        Ok(pos) => pos.unwrap_or_else(G::start),
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let total = if divide && depth > 0 {
        let split = perft::divide(&pos, depth);
        for (m, n) in &split {
            println!("{m}: {n}");
        }
        split.iter().map(|(_, n)| n).sum()
    } else {
        perft::perft(&pos, depth)
    };
    println!("{total}");
    ExitCode::SUCCESS
}

fn run_server(listen: &str, config: ServerConfig, log_format: LogFormat) -> ExitCode {
    telemetry::init(log_format);
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(listen).await {
            Ok(listener) => listener,
            Err(err) => {
                eprintln!("error: cannot listen on {listen}: {err}");
                return ExitCode::FAILURE;
            }
        };
        match serve(config, listener, shutdown_signal()).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("error: {err}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => return interrupt.await.unwrap_or(()),
            };
        tokio::select! {
            _ = interrupt => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = interrupt.await;
    tracing::info!("shutting down");
}
