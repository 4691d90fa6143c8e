//! Chess move generation speed: perft (bulk-counted) and legal move lists.
//!
//! `cargo bench --bench chess_perft`; figures and the Stockfish comparison
//! are in BENCHMARKS.md.

use std::hint::black_box;

use arbiter::rules::{Game, chess::Chess, perft::perft};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
const MIDDLEGAME: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("chess_perft");
    group.sample_size(10);
    for (name, fen, depth, nodes) in [
        ("start_d4", None, 4, 197_281),
        ("kiwipete_d3", Some(KIWIPETE), 3, 97_862),
    ] {
        let pos = fen.map_or_else(Chess::start, |f| Chess::from_fen(f).expect("valid"));
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), depth)));
    }
    group.finish();
}

fn bench_legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("chess_legal_moves");
    for (name, fen) in [("kiwipete", KIWIPETE), ("middlegame", MIDDLEGAME)] {
        let pos = Chess::from_fen(fen).expect("valid");
        group.bench_function(name, |b| b.iter(|| black_box(&pos).legal_moves()));
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_legal_moves);
criterion_main!(benches);
