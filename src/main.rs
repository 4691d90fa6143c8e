use std::process::ExitCode;

use clap::Parser;

// The server allocates many small strings per request (move notations, h2
// frames); mimalloc serves them at about half the cost of glibc's malloc
// (BENCHMARKS.md, gRPC).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    arbiter::cli::Cli::parse().run()
}
