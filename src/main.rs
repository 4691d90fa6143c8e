use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    arbiter::cli::Cli::parse().run()
}
