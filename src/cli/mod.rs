//! The `arbiter` command line: `serve` (the server), `uci` (the engine on
//! stdin and stdout) and `perft` (the move generator's count).

mod perft;
mod serve;
pub mod uci;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use self::serve::ServeArgs;
use crate::{rules::Variant, with_game};

/// Arbiter: referees and manages chess and xiangqi games.
#[derive(Debug, Parser)]
#[command(name = "arbiter", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the gRPC server: the Rules, Games, Positions and Engine
    /// services, health, reflection, grpc-web and the web app.
    Serve(Box<ServeArgs>),
    /// Speak UCI on stdin/stdout (chess, or xiangqi via
    /// `setoption name UCI_Variant value xiangqi` or `--variant xiangqi`).
    Uci {
        /// The game until `UCI_Variant` changes it: xiangqi for GUIs that
        /// expect a xiangqi engine such as Pikafish (moves with ranks 0-9).
        #[arg(long, default_value = "chess")]
        variant: Variant,
    },
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
            Command::Serve(args) => serve::run(*args),
            Command::Uci { variant } => {
                let output: uci::Output =
                    std::sync::Arc::new(std::sync::Mutex::new(std::io::stdout()));
                uci::Session::new(output, variant).run(std::io::stdin().lock());
                ExitCode::SUCCESS
            }
            Command::Perft {
                variant,
                fen,
                depth,
                divide,
            } => with_game!(variant, G => perft::run::<G>(fen.as_deref(), depth, divide)),
        }
    }
}
