//! UCI transcripts, for chess and xiangqi.

use std::sync::{Arc, Mutex};

use arbiter::{
    cli::uci::{Output, Session},
    rules::{Game, Record, Variant, chess::Chess960, xiangqi::Xiangqi},
};

/// Runs a script through a session that starts as chess and returns what it
/// printed.
fn transcript(script: &str) -> Vec<String> {
    transcript_in(Variant::Chess, script)
}

/// Runs a script through a session that starts with `variant`.
fn transcript_in(variant: Variant, script: &str) -> Vec<String> {
    let buffer = Arc::new(Mutex::new(Vec::<u8>::new()));
    let output: Output = buffer.clone();
    Session::new(output, variant).run(script.as_bytes());
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
        &"option name UCI_Variant type combo default chess var chess var xiangqi var crazyhouse var antichess var atomic var horde var kingofthehill var racingkings var 3check".to_owned()
    ));
    assert!(lines.contains(
        &"option name XiangqiRanks type combo default auto var auto var 0-9 var 1-10".to_owned()
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

/// A Lichess variant named as Fairy-Stockfish names it: a drop mates in
/// Crazyhouse, the third check wins in Three-check.
#[test]
fn lichess_variants_by_their_fairy_stockfish_names() {
    let lines = transcript(
        "setoption name UCI_Variant value crazyhouse\n\
         position fen 6k1/5ppp/8/8/8/8/8/6K1[R] w - - 0 1\ngo depth 3\n",
    );
    assert!(bestmove(&lines).starts_with("R@"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("score mate 1")),
        "{lines:?}"
    );
    let lines = transcript(
        "setoption name UCI_Variant value 3check\n\
         position fen 4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1\ngo depth 3\n",
    );
    assert!(["a1a8", "a1e1"].contains(&bestmove(&lines)), "{lines:?}");
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

/// Black mates at once with the chariot: ICCS `b1b0`, which Fairy-Stockfish
/// (asked `go` in this position) answers as `b2b1`.
const XIANGQI_MATE_IN_ONE: &str =
    "position fen 6R2/4k4/9/9/9/9/9/3A5/1r2C4/4K4 b - - 0 6\ngo depth 3\n";

#[test]
fn xiangqi_as_for_pikafish_in_iccs() {
    // Started as xiangqi, with no UCI_Variant: ranks 0-9.
    let lines = transcript_in(Variant::Xiangqi, XIANGQI_MATE_IN_ONE);
    assert_eq!(lines.last().unwrap(), "bestmove b1b0", "{lines:?}");
    let lines = transcript_in(
        Variant::Xiangqi,
        "uci\nposition startpos moves h2e2 h9g7\ngo nodes 3000\n",
    );
    assert!(lines.contains(
        &"option name UCI_Variant type combo default xiangqi var chess var xiangqi var crazyhouse var antichess var atomic var horde var kingofthehill var racingkings var 3check".to_owned()
    ));
    let best = bestmove(&lines);
    Record::replay(Xiangqi::start(), ["h2e2", "h9g7", best]).unwrap();
    // Ranks 0-9 chosen after UCI_Variant, as a GUI for ICCS engines may.
    let lines = transcript(&format!(
        "setoption name UCI_Variant value xiangqi\nsetoption name XiangqiRanks value 0-9\n\
         {XIANGQI_MATE_IN_ONE}"
    ));
    assert_eq!(lines.last().unwrap(), "bestmove b1b0", "{lines:?}");
}

#[test]
fn xiangqi_as_for_fairy_stockfish_with_ranks_1_to_10() {
    let fairy = "setoption name UCI_Variant value xiangqi\n";
    let lines = transcript(&format!("{fairy}{XIANGQI_MATE_IN_ONE}"));
    assert_eq!(lines.last().unwrap(), "bestmove b2b1", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info depth 1 ") && l.ends_with(" pv b2b1")),
        "{lines:?}"
    );
    // The central cannon (ICCS h2e2) and Black's horse (h9g7) as
    // Fairy-Stockfish writes them; every answer is legal read with ranks
    // 1-10, the principal variations too.
    for moves in ["h3e3", "h3e3 h10g8"] {
        let lines = transcript(&format!(
            "{fairy}position startpos moves {moves}\ngo depth 3\n"
        ));
        let played: Vec<String> = moves.split(' ').map(iccs).collect();
        let best = iccs(bestmove(&lines));
        Record::replay(Xiangqi::start(), played.iter().chain([&best])).unwrap();
        for pv in lines.iter().filter_map(|l| l.split_once(" pv ")) {
            let pv = pv.1.split(' ').map(iccs);
            Record::replay(Xiangqi::start(), played.iter().cloned().chain(pv)).unwrap();
        }
    }
    // Read with ranks 1-10, ICCS's h2e2 is h1e1: no piece there.
    let lines = transcript(&format!(
        "{fairy}position startpos moves h2e2\nposition startpos moves h0e0\n"
    ));
    assert!(
        lines[0].starts_with(r#"info string position rejected: move 1 ("h2e2", read as "h1e1")"#),
        "{lines:?}"
    );
    assert!(
        lines[1].starts_with(r#"info string position rejected: move 1: "h0e0": "#),
        "{lines:?}"
    );
    // XiangqiRanks 1-10 chosen explicitly works without UCI_Variant.
    let lines = transcript_in(
        Variant::Xiangqi,
        &format!("setoption name XiangqiRanks value 1-10\n{XIANGQI_MATE_IN_ONE}"),
    );
    assert_eq!(lines.last().unwrap(), "bestmove b2b1", "{lines:?}");
    let lines = transcript("setoption name XiangqiRanks value 1-9\n");
    assert_eq!(
        lines,
        ["info string XiangqiRanks must be auto, 0-9 or 1-10"]
    );
}

/// The move of the `bestmove` line, which must be the last.
fn bestmove(lines: &[String]) -> &str {
    lines
        .last()
        .and_then(|l| l.strip_prefix("bestmove "))
        .unwrap_or_else(|| panic!("no bestmove last: {lines:?}"))
}

/// ICCS (ranks 0-9) for a move written with ranks 1-10: `h10g8` is `h9g7`.
fn iccs(move_1_to_10: &str) -> String {
    let split = move_1_to_10
        .rfind(|c: char| c.is_ascii_lowercase())
        .unwrap();
    let (from, to) = move_1_to_10.split_at(split);
    let point = |p: &str| format!("{}{}", &p[..1], p[1..].parse::<u8>().unwrap() - 1);
    point(from) + &point(to)
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
    assert_eq!(lines[3], lines[1], "{lines:?}");
    assert_eq!(lines.last().unwrap(), "bestmove 0000");
}

#[test]
fn a_rejected_position_is_not_searched() {
    // `go` after a rejected position answers no move, not one for the
    // position before, until a position is accepted.
    for (variant, good, bad) in [
        (Variant::Chess, "e2e4", "e2e4 e2e4"),
        (Variant::Xiangqi, "h2e2", "h2e2 h2e2"),
    ] {
        let lines = transcript_in(
            variant,
            &format!(
                "position startpos moves {good}\nposition startpos moves {bad}\ngo depth 2\n\
                 go depth 1\nposition startpos moves {good}\ngo depth 1\n"
            ),
        );
        let rejected = r#"info string position rejected: move 2 ("#;
        assert!(lines[0].starts_with(rejected), "{lines:?}");
        for answer in [&lines[1..3], &lines[3..5]] {
            assert_eq!(answer[0], lines[0], "{lines:?}");
            assert_eq!(answer[1], "bestmove 0000", "{lines:?}");
        }
        let best = bestmove(&lines);
        assert_ne!(best, "0000", "{lines:?}");
        let legal =
            arbiter::with_game!(variant, G => Record::replay(G::start(), [good, best]).is_ok());
        assert!(legal, "{lines:?}");
    }
    // `ucinewgame` starts again from the start position.
    let lines = transcript("position startpos moves e2e5\nucinewgame\ngo depth 1\n");
    assert_ne!(bestmove(&lines), "0000", "{lines:?}");
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

/// Under `UCI_Chess960` a Chess960 position with its castling rights in
/// Shredder-FEN is set, castling is read as the king taking its rook, and the
/// engine's moves are Chess960's; without the option the position is refused.
#[test]
fn chess960_castles_king_takes_rook_under_the_option() {
    let fen = "1r2k3/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AH - 0 1";
    let legal: Vec<String> = {
        let pos = Chess960::from_fen(fen).unwrap();
        pos.legal_moves()
            .into_iter()
            .map(|m| pos.coordinate_notation(m))
            .collect()
    };
    assert!(legal.contains(&"b1a1".to_owned()), "{legal:?}");
    let lines = transcript(&format!(
        "setoption name UCI_Chess960 value true\nposition fen {fen}\ngo depth 3\n"
    ));
    let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(legal.iter().any(|m| m == best), "{lines:?}");
    // Castled queenside: the black reply is searched in the castled position.
    let lines = transcript(&format!(
        "setoption name UCI_Chess960 value true\nposition fen {fen} moves b1a1\ngo depth 1\n"
    ));
    assert_ne!(lines.last().unwrap(), "bestmove 0000", "{lines:?}");
    let lines = transcript(&format!("position fen {fen}\ngo depth 1\n"));
    assert_eq!(lines.last().unwrap(), "bestmove 0000", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info string")),
        "{lines:?}"
    );
}
