//! The command line: output to a reader that has gone away, and the help
//! that names what the server serves and stores in.

use std::process::{Command, Stdio};

fn arbiter() -> Command {
    Command::new(env!("CARGO_BIN_EXE_arbiter"))
}

/// `arbiter perft --divide | head -1`: the reader closed the pipe before
/// the output was written, which is the reader's business: no panic, no
/// message, a success.
#[test]
fn a_closed_stdout_ends_a_command_quietly() {
    for args in [
        &["perft", "--depth", "2", "--divide"][..],
        &["perft", "--depth", "2"],
        &["perft", "--variant", "xiangqi", "--depth", "1", "--divide"],
    ] {
        let (reader, writer) = std::io::pipe().unwrap();
        // Closed before the command writes a byte.
        drop(reader);
        let run = arbiter()
            .args(args)
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(run.status.success(), "{args:?}: {:?}", run.status);
        assert_eq!(String::from_utf8_lossy(&run.stderr), "", "{args:?}");
    }
}

/// The help names every service and both databases.
#[test]
fn the_help_names_every_service_and_both_databases() {
    let help = |args: &[&str]| {
        let run = arbiter().args(args).output().unwrap();
        assert!(run.status.success(), "{args:?}");
        String::from_utf8(run.stdout).unwrap()
    };
    let top = help(&["--help"]);
    for service in [
        "Rules",
        "Games",
        "Positions",
        "Engine",
        "health",
        "reflection",
    ] {
        assert!(
            top.contains(service),
            "arbiter --help lacks {service}:\n{top}"
        );
    }
    let serve = help(&["serve", "--help"]);
    let database_url = &serve[serve.find("--database-url").unwrap()..];
    // Its paragraph, up to the next option's.
    let database_url = &database_url[..database_url.find("\n\n").unwrap_or(database_url.len())];
    for backend in ["SQLite", "PostgreSQL"] {
        assert!(database_url.contains(backend), "{database_url}");
    }
}
