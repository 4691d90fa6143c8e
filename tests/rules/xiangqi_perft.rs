//! Xiangqi perft against external truth: the start-position counts every
//! engine agrees on, and counts from Debian `fairy-stockfish` 11.1
//! (`setoption name UCI_Variant value xiangqi`, `position fen FEN`,
//! `go perft N`) for positions with checks, cannons, pins and flying
//! generals.

use arbiter::rules::{Game, perft::perft, xiangqi::Xiangqi};

fn check(fen: &str, counts: &[u64]) {
    let pos = Xiangqi::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    for (depth, &expected) in (1..).zip(counts) {
        assert_eq!(perft(&pos, depth), expected, "{fen} depth {depth}");
    }
}

#[test]
fn start_position() {
    check(
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
        &[44, 1_920, 79_666, 3_290_240],
    );
}

#[test]
#[ignore = "slow in debug builds: run with --release -- --ignored"]
fn start_position_deep() {
    assert_eq!(perft(&Xiangqi::start(), 5), 133_312_995);
}

#[test]
fn middlegames() {
    check(
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        &[38, 1_128, 43_929, 1_339_047],
    );
    check(
        "4kab2/4a4/b5n2/C5p1p/2p1p4/N5P2/4P1c1P/C1n3N2/4A4/1cBAK1B2 w - - 0 1",
        &[27, 893, 26_043, 869_297],
    );
    check(
        "1n1ak2rP/4a2C1/4bc3/p1P3R2/6p2/9/P5r2/C3BpN2/4A4/2BAK2R1 b - - 0 6",
        &[37, 1_848, 70_518, 3_390_666],
    );
    check(
        "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3",
        &[34, 1_307, 45_366, 1_781_238],
    );
}

#[test]
fn in_check_and_pins() {
    check(
        "1cbak4/9/n2a5/2p1p3p/5cp2/2n2N3/6PCP/3AB4/2C6/3A1K1N1 w - - 0 1",
        &[7, 281, 8_620, 326_201],
    );
    check(
        "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 2 30",
        &[25, 424, 9_850, 202_884],
    );
}

#[test]
fn cannons_and_flying_generals() {
    check(
        "4k4/9/9/9/4c4/9/9/4R4/4p4/3K5 b - - 0 1",
        &[10, 104, 1_503, 22_124],
    );
    check(
        "3k5/9/9/9/9/4c4/9/4C4/9/4K4 w - - 0 1",
        &[9, 158, 2_833, 47_973],
    );
}
