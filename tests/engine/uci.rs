//! UCI transcripts, for chess and xiangqi.

use std::sync::{Arc, Mutex};

use arbiter::cli::uci::{Output, Session};

/// Runs a script through a session and returns what it printed.
fn transcript(script: &str) -> Vec<String> {
    let buffer = Arc::new(Mutex::new(Vec::<u8>::new()));
    let output: Output = buffer.clone();
    Session::new(output).run(script.as_bytes());
    let bytes = buffer.lock().unwrap().clone();
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn handshake_and_options() {
    let lines =
        transcript("uci\nisready\nsetoption name Hash value 8\nsetoption name Nope value 1\n");
    assert_eq!(
        lines[0],
        format!("id name Arbiter {}", env!("CARGO_PKG_VERSION"))
    );
    assert!(lines.contains(
        &"option name UCI_Variant type combo default chess var chess var xiangqi".to_owned()
    ));
    assert!(lines.contains(&"uciok".to_owned()));
    assert!(lines.contains(&"readyok".to_owned()));
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("info string unknown option")
    );
}

#[test]
fn chess_search_reports_and_finds_mate() {
    let lines = transcript("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 4\n");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 1 score") && l.contains(" pv ")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("score mate 1")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
}

#[test]
fn chess_moves_after_startpos_and_clock() {
    let lines = transcript(
        "ucinewgame\nposition startpos moves e2e4 e7e5 g1f3\ngo wtime 1000 btime 1000 winc 10 binc 10\n",
    );
    let best = lines.last().unwrap();
    assert!(
        best.starts_with("bestmove ") && best.len() >= 13,
        "{lines:?}"
    );
}

#[test]
fn xiangqi_in_iccs() {
    let lines = transcript(
        "setoption name UCI_Variant value xiangqi\n\
         position fen 6R2/4k4/9/9/9/9/9/3A5/1r2C4/4K4 b - - 0 6\ngo depth 3\n",
    );
    assert_eq!(lines.last().unwrap(), "bestmove b1b0", "{lines:?}");
    let lines = transcript(
        "setoption name UCI_Variant value xiangqi\nposition startpos moves h2e2 h9g7\ngo nodes 3000\n",
    );
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
}

#[test]
fn bad_input_is_reported_not_fatal() {
    let lines =
        transcript("position startpos moves e2e5\nposition fen nonsense\nfoo\ngo depth 1\n");
    assert!(
        lines[0].starts_with("info string position rejected: move 1"),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with("info string position rejected"),
        "{lines:?}"
    );
    assert_eq!(lines[2], "info string unknown command: foo");
    assert!(lines.last().unwrap().starts_with("bestmove "));
}

#[test]
fn stop_and_quit_end_an_infinite_search() {
    let lines = transcript("position startpos\ngo infinite\nstop\nquit\n");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
}

#[test]
fn levels_limit_the_search() {
    let lines = transcript(
        "setoption name Level value 2\nposition startpos moves e2e4\ngo movetime 2000\n",
    );
    // Level 2 looks one move ahead, so it answers at once at depth 1.
    let depths: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth"))
        .collect();
    assert!(
        depths.iter().all(|l| l.starts_with("info depth 1 ")),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().starts_with("bestmove "));
    let lines = transcript("setoption name Level value 11\n");
    assert_eq!(lines, ["info string Level must be a number from 1 to 10"]);
}

#[test]
fn multipv_reports_numbered_lines() {
    let lines = transcript(
        "setoption name MultiPV value 3\nposition fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1\ngo depth 3\n",
    );
    let last_depth: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 3 "))
        .collect();
    assert_eq!(last_depth.len(), 3, "{lines:?}");
    for (i, line) in last_depth.iter().enumerate() {
        assert!(
            line.starts_with(&format!("info depth 3 multipv {} score ", i + 1)),
            "{line}"
        );
    }
    assert!(last_depth[0].contains("score mate 1 "), "{}", last_depth[0]);
    assert_eq!(lines.last().unwrap(), "bestmove a1a8");
    let lines = transcript("setoption name MultiPV value 0\n");
    assert_eq!(lines, ["info string MultiPV must be a number from 1 to 16"]);
}
