//! The `arbiter` command line.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::{
    rules::{Game, Variant, perft},
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
