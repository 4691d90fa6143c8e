//! The engine finds known mates (1-3 moves) in both games and never returns
//! an illegal move. Positions: matetrack (chess, verified with Stockfish) and
//! CCPD endgames (xiangqi; wins in 1-2 verified exhaustively with pyffish, as
//! listed in `../shared/reference`, wins in 3 with Fairy-Stockfish in
//! `tests/fixtures/xiangqi/win_in_3_fsf.jsonl`); Fairy-Stockfish coordinates
//! converted to ICCS.

use std::time::{Duration, Instant};

use arbiter::{
    engine::{Evaluate, Limits, MATE, search},
    rules::{Game, Record, chess::Chess, xiangqi::Xiangqi},
};

fn best<G: Evaluate>(fen: &str, depth: u32) -> (String, i32) {
    let pos = G::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    let result = search(&Record::new(pos.clone()), &Limits::depth(depth));
    let m = result.best().expect("a move");
    assert!(pos.legal_moves().contains(&m));
    (pos.coordinate_notation(m), result.score())
}

#[test]
fn chess_mates_in_one_and_two() {
    // (FEN, a mating first move, mate in N moves)
    let cases = [
        ("6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "a1a8", 1),
        ("5K2/8/2qk4/2nPp3/3r4/6B1/B7/3R4 w - e6 0 1", "d5e6", 1),
        ("rb6/k1p4R/P1P5/PpK5/8/8/8/5B2 w - b6 0 1", "a5b6", 1),
        (
            "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - 0 1",
            "h5a5",
            2,
        ),
        ("2N2B2/2N1r3/8/3nQ2R/1k6/8/2B5/R3K3 w Q - 0 1", "e1c1", 2),
    ];
    for (fen, expected, n) in cases {
        let (m, score) = best::<Chess>(fen, 2 * n + 1);
        assert_eq!(
            score,
            MATE - (2 * n as i32 - 1),
            "{fen}: mate in {n} not seen"
        );
        assert_eq!(m, expected, "{fen}");
    }
}

#[test]
fn xiangqi_wins_in_one() {
    // The CCPD positions' solutions, ICCS (FSF rank - 1).
    let cases = [
        (
            "2ba1k3/4a4/1P2b4/p8/9/8P/P8/4r4/3K5/2n1CA1R1 b - - 20 11",
            "e2d2",
        ),
        ("6R2/4k4/9/9/9/9/9/3A5/1r2C4/4K4 b - - 0 6", "b1b0"),
        (
            "2bak4/9/4b4/p2N4p/2P3P2/9/P8/3K4c/3R5/2B2n3 b - - 0 13",
            "f0g2",
        ),
    ];
    for (fen, expected) in cases {
        let (m, score) = best::<Xiangqi>(fen, 3);
        assert_eq!(score, MATE - 1, "{fen}: win in one not seen");
        assert_eq!(m, expected, "{fen}");
    }
}

#[test]
fn takes_a_free_piece() {
    let (m, _) = best::<Chess>("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1", 3);
    assert_eq!(m, "d1d5");
}

#[test]
fn limits_are_respected() {
    let record = Record::new(Chess::start());
    let mut limits = Limits::depth(64);
    limits.nodes = Some(5_000);
    let result = search(&record, &limits);
    assert!(result.nodes < 5_000 + 2_048, "{} nodes", result.nodes);
    assert!(result.best().is_some());
    let mut limits = Limits::depth(64);
    limits.deadline = Some(Instant::now() + Duration::from_millis(50));
    let result = search(&Record::new(Xiangqi::start()), &limits);
    assert!(result.best().is_some() && result.depth >= 1);
}

#[test]
fn always_a_legal_move_in_game_positions() {
    let mut record = Record::new(Xiangqi::start());
    for _ in 0..12 {
        if record.verdict().is_over() {
            break;
        }
        let result = search(&record, &Limits::depth(2));
        let m = result.best().expect("a move while the game goes on");
        assert!(record.current().legal_moves().contains(&m));
        record.push(m);
    }
    let mut record = Record::new(Chess::start());
    for _ in 0..12 {
        let result = search(&record, &Limits::depth(2));
        let m = result.best().expect("a move while the game goes on");
        assert!(record.current().legal_moves().contains(&m));
        record.push(m);
    }
}

/// Searches every position of the fixture games (python-chess's and
/// pyffish's), with the game so far as history, asking for two lines: every
/// line must be playable move by move, the lines must start differently, and
/// there must be a move exactly when the position has one.
fn fuzz_fixture_games<G: Evaluate>(path: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    let mut limits = Limits::depth(3);
    limits.nodes = Some(400);
    limits.multipv = 2;
    let mut searched = 0;
    for line in text.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        let start = G::from_fen(game["start"].as_str().unwrap()).unwrap();
        let mut record = Record::new(start);
        let moves: Vec<&str> = game["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        for i in 0..=moves.len() {
            let pos = record.current().clone();
            let legal = pos.legal_moves();
            let result = search(&record, &limits);
            assert_eq!(result.best().is_some(), !legal.is_empty(), "{}", pos.fen());
            for line in &result.lines {
                let mut replay = pos.clone();
                for &m in &line.pv {
                    assert!(
                        replay.legal_moves().contains(&m),
                        "{}: illegal {m:?} in {:?}",
                        pos.fen(),
                        line.pv
                    );
                    replay.play(m);
                }
            }
            assert_eq!(result.lines.len(), legal.len().min(2), "{}", pos.fen());
            if let [a, b] = &result.lines[..] {
                assert_ne!(a.pv[0], b.pv[0], "{}", pos.fen());
            }
            assert_eq!(result.pv(), result.lines.first().map_or(&[][..], |l| &l.pv));
            searched += 1;
            if let Some(m) = moves.get(i) {
                record.play_recorded(m).unwrap();
            }
        }
    }
    searched
}

#[test]
fn every_fixture_position_gets_legal_lines() {
    let chess = fuzz_fixture_games::<Chess>("tests/fixtures/chess/games.jsonl");
    let xiangqi = fuzz_fixture_games::<Xiangqi>("tests/fixtures/xiangqi/games.jsonl");
    assert_eq!((chess, xiangqi), (6763, 5993));
}

/// Every level plays a legal move within its node cap, in both games, and the
/// weakest levels vary their choices from game to game.
#[test]
fn every_level_plays_legal_moves_within_its_caps() {
    use arbiter::engine::Level;

    fn check<G: Evaluate>(fen: &str) -> std::collections::HashSet<String> {
        let pos = G::from_fen(fen).unwrap();
        let record = Record::new(pos.clone());
        let mut weakest = std::collections::HashSet::new();
        for n in 1..=10 {
            for seed in 0..4u64 {
                let level = Level::new(n).unwrap();
                let limits = level.apply(Limits::depth(4), seed * 7919);
                let result = search(&record, &limits);
                let m = result.best().expect("a move");
                assert!(pos.legal_moves().contains(&m));
                if let Some(cap) = limits.nodes {
                    assert!(
                        result.nodes <= cap + 1024,
                        "level {n}: {} nodes",
                        result.nodes
                    );
                }
                if n == 1 {
                    weakest.insert(pos.coordinate_notation(m));
                }
            }
        }
        weakest
    }
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    assert!(check::<Chess>(fen).len() > 1);
    let fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";
    assert!(check::<Xiangqi>(fen).len() > 1);
}

#[test]
fn chess_mates_in_three() {
    // matetrack MT.020, MT.024, MT.031: (FEN, the mating first move).
    let cases = [
        (
            "1K3RQ1/ppn3p1/r3N1pq/2pN4/2b1kPB1/b5r1/8/2BR4 w - - 0 1",
            "d5f6",
        ),
        (
            "2q5/4B2p/7n/4p1pk/P2n1b2/R3P2P/2r3P1/1Q3R1K b - - 0 1",
            "c8h3",
        ),
        ("8/3P2P1/3N4/3k4/4N3/4K3/8/8 w - - 0 1", "g7g8q"),
    ];
    for (fen, expected) in cases {
        // Five plies, plus one: late-move reductions search quiet moves
        // (such as the king's move in the third case) a ply shallower.
        let (m, score) = best::<Chess>(fen, 6);
        assert_eq!(score, MATE - 5, "{fen}: mate in 3 not seen");
        assert_eq!(m, expected, "{fen}");
    }
}

/// Wins in 3 taken from CCPD games, verified with Fairy-Stockfish
/// (`tools/gen_xiangqi_mates.py`): every first move that wins in 3 is listed.
#[test]
fn xiangqi_wins_in_three() {
    let text = std::fs::read_to_string("tests/fixtures/xiangqi/win_in_3_fsf.jsonl").unwrap();
    let mut count = 0;
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let fen = case["fen"].as_str().unwrap();
        let solutions: Vec<&str> = case["solutions_iccs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let (m, score) = best::<Xiangqi>(fen, 5);
        assert_eq!(score, MATE - 5, "{fen}: win in 3 not seen");
        assert!(
            solutions.contains(&m.as_str()),
            "{fen}: {m} not in {solutions:?}"
        );
        count += 1;
    }
    assert_eq!(count, 18);
}

#[test]
fn xiangqi_wins_in_two() {
    // CCPD XQM.038-XQM.041 (verified exhaustively with pyffish): the only
    // winning first move, ICCS.
    let cases = [
        ("6R2/4k4/9/9/9/9/9/3A5/1r2C4/3K1p3 b - - 6 5", "f0e0"),
        (
            "2b1ka3/1R2a4/2R1b4/p1pP4p/6p2/9/P7P/3C5/3KAnc2/7c1 b - - 0 9",
            "f1e3",
        ),
        (
            "3rkab2/4a4/4b4/8p/p8/1N7/2R1c3n/4C4/4A3c/2BA1K3 b - - 3 3",
            "d9d0",
        ),
        (
            "3k1ab2/4a4/6C1b/5N3/P3c4/2B6/5n1n1/9/9/2B1K4 b - - 9 19",
            "h3g1",
        ),
    ];
    for (fen, expected) in cases {
        let (m, score) = best::<Xiangqi>(fen, 5);
        assert_eq!(score, MATE - 3, "{fen}: win in two not seen");
        assert_eq!(m, expected, "{fen}");
    }
}
