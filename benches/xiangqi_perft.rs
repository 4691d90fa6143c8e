//! Xiangqi move generation speed: perft (bulk-counted at the last ply) and
//! legal-move generation. Compare with Fairy-Stockfish as described in
//! BENCHMARKS.md (Xiangqi perft).

use std::hint::black_box;

use arbiter::rules::{Game, perft::perft, xiangqi::Xiangqi};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// A middlegame with every kind of piece in play (from a master game).
const MIDDLEGAME: &str =
    "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11";

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("xiangqi_perft");
    group.sample_size(10);
    for (name, pos, depth) in [
        ("start_depth_4", Xiangqi::start(), 4),
        (
            "middlegame_depth_4",
            Xiangqi::from_fen(MIDDLEGAME).unwrap(),
            4,
        ),
    ] {
        let nodes = perft(&pos, depth);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(name, |b| b.iter(|| perft(black_box(&pos), depth)));
    }
    group.finish();
}

fn bench_movegen(c: &mut Criterion) {
    let mut group = c.benchmark_group("xiangqi_movegen");
    for (name, pos) in [
        ("start", Xiangqi::start()),
        ("middlegame", Xiangqi::from_fen(MIDDLEGAME).unwrap()),
    ] {
        group.bench_function(format!("legal_moves_{name}"), |b| {
            b.iter(|| black_box(&pos).legal_moves())
        });
        group.bench_function(format!("count_legal_moves_{name}"), |b| {
            b.iter(|| black_box(&pos).count_legal_moves())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_perft, bench_movegen);
criterion_main!(benches);
