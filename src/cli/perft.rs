//! `arbiter perft`: the leaf nodes of the legal move tree, for testing the
//! move generator against published counts.

use std::{io::Write, process::ExitCode};

use crate::rules::{Game, perft};

pub(super) fn run<G: Game>(fen: Option<&str>, depth: u32, divide: bool) -> ExitCode {
    let pos = match fen.map(G::from_fen).transpose() {
        Ok(pos) => pos.unwrap_or_else(G::start),
        Err(err) => {
            eprintln!("error: {err}");
            return ExitCode::from(2);
        }
    };
    let mut out = std::io::stdout().lock();
    let printed = if divide && depth > 0 {
        let split = perft::divide(&pos, depth);
        split
            .iter()
            .try_for_each(|(m, n)| writeln!(out, "{m}: {n}"))
            .and_then(|()| writeln!(out, "{}", split.iter().map(|(_, n)| n).sum::<u64>()))
    } else {
        writeln!(out, "{}", perft::perft(&pos, depth))
    };
    printed_to_stdout(printed.and_then(|()| out.flush()))
}

/// The exit of a command whose output went to stdout with `printed`. A
/// reader that closed stdout (`| head -1`) has what it wanted: that is a
/// success, said nothing about.
fn printed_to_stdout(printed: std::io::Result<()>) -> ExitCode {
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: cannot write the output: {err}");
            ExitCode::FAILURE
        }
    }
}
