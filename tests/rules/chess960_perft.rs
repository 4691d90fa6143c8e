//! Chess960 perft against the published counts of 960 positions, one from
//! each start, to depth 6 (`tests/fixtures/chess/chess960.epd`, from
//! <https://www.chessprogramming.org/Chess960_Perft_Results>), read from
//! their Shredder-FEN.
//!
//! Every position is checked to [`NODE_CAP`] nodes in every `cargo test`;
//! the deeper counts are `#[ignore]`d — run them with
//! `cargo test --release --test rules chess960_perft:: -- --ignored`.

use arbiter::rules::chess::Chess960;

use crate::chess_perft::{check_perft, counts_of};

/// Largest count checked by default (keeps the debug test run short).
const NODE_CAP: u64 = 12_000;

fn check_counts(low: u64, high: u64) -> usize {
    let positions = counts_of(include_str!("../fixtures/chess/chess960.epd"));
    check_perft::<Chess960>(positions, low, high)
}

#[test]
fn perft_counts_up_to_the_cap() {
    let checked = check_counts(0, NODE_CAP);
    assert!(checked >= 2 * 960, "only {checked} counts checked");
}

#[test]
#[ignore = "deep perft: run with `cargo test --release --test rules chess960_perft:: -- --ignored`"]
fn perft_counts_beyond_the_cap() {
    check_counts(NODE_CAP + 1, u64::MAX);
}
