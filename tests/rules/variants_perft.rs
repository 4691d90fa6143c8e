//! Perft of the seven Lichess variants against the published suites in
//! `tests/fixtures/variants/*.perft` (python-chess's and shakmaty's suites,
//! from multi-variant Stockfish, and the counts of Fairy-Stockfish's
//! `tests/perft.sh`; sources in that directory's README).
//!
//! Every count up to [`NODE_CAP`] runs in every `cargo test`; the deeper
//! ones are `#[ignore]`d — run them with
//! `cargo test --release --test rules variants_perft:: -- --ignored`.

use arbiter::rules::{
    Game,
    perft::perft,
    variants::{Antichess, Atomic, Crazyhouse, Horde, KingOfTheHill, RacingKings, ThreeCheck},
};

/// Largest count checked by default (keeps the debug test run short).
const NODE_CAP: u64 = 300_000;

/// One published count: (suite entry id, FEN, depth, count).
type Case = (String, String, u32, u64);

const FAIRY_STOCKFISH: &str = include_str!("../fixtures/variants/fairy-stockfish.perft");

/// The cases of a suite in python-chess's perft format (`id`, `epd`,
/// `perft <depth> <count>`; `variant <key>` where a file mixes variants)
/// that belong to the variant `key`.
fn cases(suite: &str, key: &str, default_key: Option<&str>) -> Vec<Case> {
    let mut cases = Vec::new();
    let (mut id, mut variant, mut fen) = (String::new(), default_key, String::new());
    for line in suite.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (command, argument) = line.split_once(' ').expect("command and argument");
        match command {
            "id" => {
                id = argument.to_owned();
                variant = default_key;
            }
            "variant" => variant = Some(argument),
            "epd" => fen = full_fen(argument),
            "perft" => {
                let (depth, count) = argument.split_once(' ').expect("depth and count");
                if variant == Some(key) {
                    cases.push((
                        id.clone(),
                        fen.clone(),
                        depth.parse().expect("depth"),
                        count.parse().expect("count"),
                    ));
                }
            }
            other => panic!("unknown perft line {other:?}"),
        }
    }
    cases
}

/// An EPD's four fields (five with Three-check's `W+B` checks) with the move
/// counters added.
fn full_fen(epd: &str) -> String {
    let fields: Vec<_> = epd.split_whitespace().collect();
    match fields.len() {
        4 => format!("{epd} 0 1"),
        5 if fields[4].contains('+') => format!("{epd} 0 1"),
        _ => epd.to_owned(),
    }
}

/// Checks every case of `G` whose count is within `[low, high]`; returns
/// how many were checked.
fn check<G: Game>(cases: &[Case], low: u64, high: u64) -> usize {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (id, fen, depth, expected) in cases {
        if *expected < low || *expected > high {
            continue;
        }
        let pos = match G::from_fen(fen) {
            Ok(pos) => pos,
            Err(e) => {
                failures.push(format!("{id} ({fen}): rejected: {e}"));
                continue;
            }
        };
        checked += 1;
        let got = perft(&pos, *depth);
        if got != *expected {
            failures.push(format!(
                "{id} ({fen}) depth {depth}: got {got}, expected {expected}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    checked
}

/// The suite of a variant: its own file and its Fairy-Stockfish counts,
/// without the Chess960 positions of python-chess's atomic suite
/// (`atomic960-*`: Lichess Atomic is not Chess960).
fn suite(own: &str, key: &str) -> Vec<Case> {
    let mut all = cases(own, key, Some(key));
    all.extend(cases(FAIRY_STOCKFISH, key, None));
    all.retain(|(id, ..)| !id.contains("960"));
    all
}

macro_rules! variant_perft {
    ($module:ident, $game:ty, $key:literal, $file:literal, $least:literal) => {
        mod $module {
            use super::*;

            fn suite() -> Vec<Case> {
                super::suite(include_str!(concat!("../fixtures/variants/", $file)), $key)
            }

            #[test]
            fn perft_counts_up_to_the_cap() {
                let checked = check::<$game>(&suite(), 0, NODE_CAP);
                assert!(checked >= $least, "only {checked} counts checked");
            }

            #[test]
            #[ignore = "deep perft: run with `cargo test --release --test rules variants_perft:: -- --ignored`"]
            fn perft_counts_beyond_the_cap() {
                check::<$game>(&suite(), NODE_CAP + 1, u64::MAX);
            }
        }
    };
}

variant_perft!(crazyhouse, Crazyhouse, "crazyhouse", "crazyhouse.perft", 15);
variant_perft!(antichess, Antichess, "antichess", "antichess.perft", 20);
variant_perft!(atomic, Atomic, "atomic", "atomic.perft", 10);
variant_perft!(horde, Horde, "horde", "horde.perft", 10);
variant_perft!(
    king_of_the_hill,
    KingOfTheHill,
    "kingOfTheHill",
    "kingOfTheHill.perft",
    4
);
variant_perft!(
    racing_kings,
    RacingKings,
    "racingKings",
    "racingKings.perft",
    10
);
variant_perft!(three_check, ThreeCheck, "threeCheck", "threeCheck.perft", 6);

/// Every published position is read, and every suite has counts for its
/// variant (a misspelt `variant` line would silently drop its cases).
#[test]
fn every_fairy_stockfish_count_belongs_to_a_variant() {
    let keys = [
        "crazyhouse",
        "antichess",
        "atomic",
        "horde",
        "kingOfTheHill",
        "racingKings",
        "threeCheck",
    ];
    let all: usize = keys
        .iter()
        .map(|key| cases(FAIRY_STOCKFISH, key, None).len())
        .sum();
    let lines = FAIRY_STOCKFISH
        .lines()
        .filter(|l| l.starts_with("perft "))
        .count();
    assert_eq!(all, lines);
}
