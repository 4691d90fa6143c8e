//! What a `Rules.LegalMoves` request costs the server beyond the transport:
//! set up the position from FEN plus history, list and describe every legal
//! move, judge the outcome. Same position as `arbiter-load --rpc legal-moves`.
//!
//! `cargo bench --bench rules_service`

use std::hint::black_box;

use arbiter::rules::{Variant, referee::referee};
use criterion::{Criterion, criterion_group, criterion_main};

const FEN: &str = "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10";
const MOVES: [&str; 5] = ["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("rules_service");
    group.bench_function("setup", |b| {
        b.iter(|| referee(Variant::Chess, Some(black_box(FEN)), &MOVES).expect("valid"));
    });
    let record = referee(Variant::Chess, Some(FEN), &MOVES).expect("valid");
    group.bench_function("describe_legal_moves", |b| {
        b.iter(|| black_box(&record).legal_moves())
    });
    group.bench_function("coordinates_of_legal_moves", |b| {
        b.iter(|| black_box(&record).legal_moves_coordinates())
    });
    group.bench_function("verdict", |b| b.iter(|| black_box(&record).verdict()));
    group.bench_function("fen", |b| b.iter(|| black_box(&record).fen()));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
