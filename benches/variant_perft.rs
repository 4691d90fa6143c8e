//! Move generation of the Lichess variants: Arbiter's perft against
//! shakmaty's own (`shakmaty::perft`) on the same positions, from each
//! variant's start.
//!
//! `cargo bench --bench variant_perft`; figures and the Fairy-Stockfish
//! comparison are in BENCHMARKS.md.

use std::hint::black_box;

use arbiter::rules::{Game, perft::perft, variants};
use criterion::{
    BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main, measurement::WallTime,
};
use shakmaty::{Position, variant};

/// Depth 4 from the start: Arbiter's game and shakmaty's bare position.
fn compare<G: Game, P: Position + Clone + Default>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
) {
    let depth = 4;
    let ours = G::start();
    let bare = P::default();
    let nodes = perft(&ours, depth);
    assert_eq!(nodes, shakmaty::perft(&bare, depth), "{name}");
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("{name}/arbiter"), |b| {
        b.iter(|| perft(black_box(&ours), depth))
    });
    group.bench_function(format!("{name}/shakmaty"), |b| {
        b.iter(|| shakmaty::perft(black_box(&bare), depth))
    });
}

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("variant_perft");
    group.sample_size(10);
    compare::<variants::Crazyhouse, variant::Crazyhouse>(&mut group, "crazyhouse");
    compare::<variants::Antichess, variant::Antichess>(&mut group, "antichess");
    compare::<variants::Atomic, variant::Atomic>(&mut group, "atomic");
    compare::<variants::Horde, variant::Horde>(&mut group, "horde");
    compare::<variants::KingOfTheHill, variant::KingOfTheHill>(&mut group, "kingOfTheHill");
    compare::<variants::RacingKings, variant::RacingKings>(&mut group, "racingKings");
    compare::<variants::ThreeCheck, variant::ThreeCheck>(&mut group, "threeCheck");
    group.finish();
}

criterion_group!(benches, bench_perft);
criterion_main!(benches);
