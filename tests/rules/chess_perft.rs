//! Perft against published counts: the chessprogramming-wiki positions and the
//! 126-position suite in `tests/fixtures/chess/perftsuite.epd`.
//!
//! Counts up to [`NODE_CAP`] run in every `cargo test`; the deeper ones are
//! `#[ignore]`d — run them with `cargo test --release --test rules chess_perft:: -- --ignored`.

use arbiter::rules::{FenProblem, Game, chess::Chess, perft::perft};

/// Largest count checked by default (keeps the debug test run short).
const NODE_CAP: u64 = 20_000_000;

/// (FEN, counts from depth 1) from <https://www.chessprogramming.org/Perft_Results>.
const WIKI: &[(&str, &[u64])] = &[
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &[20, 400, 8_902, 197_281, 4_865_609, 119_060_324],
    ),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        &[48, 2_039, 97_862, 4_085_603, 193_690_690],
    ),
    (
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        &[14, 191, 2_812, 43_238, 674_624, 11_030_083, 178_633_661],
    ),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        &[6, 264, 9_467, 422_333, 15_833_292],
    ),
    (
        "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
        &[6, 264, 9_467, 422_333, 15_833_292],
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
        &[44, 1_486, 62_379, 2_103_487, 89_941_194],
    ),
    (
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        &[46, 2_079, 89_890, 3_894_594, 164_075_551],
    ),
];

/// Lines of `FEN;count at depth 1;...`, as the perft fixtures hold them.
pub(crate) fn counts_of(lines: &str) -> Vec<(String, Vec<u64>)> {
    lines
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let mut fields = line.split(';');
            let fen = fields.next().expect("fen").trim().to_owned();
            let counts = fields.map(|n| n.trim().parse().expect("count")).collect();
            (fen, counts)
        })
        .collect()
}

fn all_cases() -> Vec<(String, Vec<u64>)> {
    let mut cases: Vec<_> = WIKI
        .iter()
        .map(|(fen, counts)| ((*fen).to_owned(), counts.to_vec()))
        .collect();
    cases.extend(counts_of(include_str!("../fixtures/chess/perftsuite.epd")));
    cases
}

/// Suite positions that cannot arise in a game — python-chess's `is_valid()`
/// rejects them too (`STATUS_IMPOSSIBLE_CHECK`) — so a strict referee refuses
/// them instead of counting their moves.
const IMPOSSIBLE: &[(&str, &str)] = &[(
    "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    "IMPOSSIBLE_CHECK", // two bishops check along one diagonal from both sides
)];

/// Checks every (position, depth) of `cases` whose count is within
/// `[low, high]`, on `G`'s rules; returns how many were checked.
pub(crate) fn check_perft<G: Game>(cases: Vec<(String, Vec<u64>)>, low: u64, high: u64) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (fen, counts) in cases {
        let pos = G::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for (depth, &expected) in (1..).zip(&counts) {
            if expected < low || expected > high {
                continue;
            }
            checked += 1;
            let got = perft(&pos, depth);
            if got != expected {
                failures.push(format!(
                    "{fen} depth {depth}: got {got}, expected {expected}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// Checks every possible (position, depth) whose count is within `[low, high]`.
fn check_counts(low: u64, high: u64) -> usize {
    let cases = all_cases()
        .into_iter()
        .filter(|(fen, _)| !IMPOSSIBLE.iter().any(|(f, _)| f == fen))
        .collect();
    check_perft::<Chess>(cases, low, high)
}

#[test]
fn impossible_suite_positions_are_rejected_with_their_reason() {
    for (fen, code) in IMPOSSIBLE {
        let err = Chess::from_fen(fen).expect_err(fen);
        let codes: Vec<_> = err.problems.iter().map(FenProblem::code).collect();
        assert_eq!(codes, [*code], "{fen}");
    }
}

#[test]
fn perft_counts_up_to_the_cap() {
    let checked = check_counts(0, NODE_CAP);
    assert!(checked > 400, "only {checked} counts checked");
}

#[test]
#[ignore = "deep perft: run with `cargo test --release --test rules chess_perft:: -- --ignored`"]
fn perft_counts_beyond_the_cap() {
    check_counts(NODE_CAP + 1, u64::MAX);
}
