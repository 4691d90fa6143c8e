//! What a `Rules.LegalMoves` request costs the server beyond the transport:
//! set up the position from FEN plus history, list and describe every legal
//! move, judge the outcome; and the whole answer as the service builds and
//! encodes it (`answer/*`); reading the FEN alone (`read_fen`). Same
//! positions as `arbiter-load --rpc legal-moves`, plus the replay of a
//! 100-ply history (`setup_100_plies`).
//!
//! `cargo bench --bench rules_service`

use std::hint::black_box;

use arbiter::{
    api::{LegalMovesAnswer, proto as pb},
    rules::{Variant, referee::referee},
};
use criterion::{Criterion, criterion_group, criterion_main};

// The server's allocator (`src/main.rs`): the answers are mostly small strings.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// (variant, FEN, history) as `arbiter-load` sends them.
const POSITIONS: [(Variant, &str, [&str; 5]); 2] = [
    (
        Variant::Chess,
        "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
        ["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"],
    ),
    (
        Variant::Xiangqi,
        "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11",
        ["h0g2", "h9g7", "a1d1", "i9i8", "b2e2"],
    ),
];

/// 100 plies of a deterministic pseudo-random game from the start, in
/// coordinate notation: what a long history costs to replay. Random games
/// can end early (xiangqi's repetitions), so seeds are tried in turn.
fn long_history(variant: Variant) -> Vec<String> {
    (1..)
        .find_map(|seed| random_game(variant, seed, 100))
        .expect("some seed plays on")
}

fn random_game(variant: Variant, seed: u64, plies: usize) -> Option<Vec<String>> {
    let mut record = referee::<&str>(variant, None, &[]).expect("start position");
    let mut state = seed;
    let mut history = Vec::new();
    while history.len() < plies {
        if record.verdict().is_over() {
            return None;
        }
        let moves = record.legal_moves_coordinates();
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let text = moves[usize::try_from(state >> 33).expect("31 bits") % moves.len()].clone();
        record.play(&text).expect("legal move");
        history.push(text);
    }
    Some(history)
}

fn bench(c: &mut Criterion) {
    for (variant, fen, moves) in POSITIONS {
        let mut group = c.benchmark_group(format!("rules_service/{variant}"));
        group.bench_function("read_fen", |b| {
            b.iter(|| referee::<&str>(variant, Some(black_box(fen)), &[]).expect("valid"));
        });
        group.bench_function("setup", |b| {
            b.iter(|| referee(variant, Some(black_box(fen)), &moves).expect("valid"));
        });
        let history = long_history(variant);
        group.bench_function("setup_100_plies", |b| {
            b.iter(|| referee(variant, None, black_box(&history)).expect("valid"));
        });
        let record = referee(variant, Some(fen), &moves).expect("valid");
        group.bench_function("describe_legal_moves", |b| {
            b.iter(|| black_box(&record).legal_moves())
        });
        group.bench_function("coordinates_of_legal_moves", |b| {
            b.iter(|| black_box(&record).legal_moves_coordinates())
        });
        group.bench_function("verdict", |b| b.iter(|| black_box(&record).verdict()));
        group.bench_function("fen", |b| b.iter(|| black_box(&record).fen()));
        // The handler, then the protobuf encoding, then the drop.
        for (name, detail) in [
            ("answer/full", pb::MoveDetail::Full),
            ("answer/uci", pb::MoveDetail::Uci),
            ("answer/uci_text", pb::MoveDetail::UciText),
        ] {
            let request = pb::LegalMovesRequest {
                position: Some(pb::Position {
                    variant: match variant {
                        Variant::Xiangqi => pb::Variant::Xiangqi,
                        _ => pb::Variant::Chess,
                    } as i32,
                    fen: fen.to_owned(),
                    moves: moves.map(String::from).to_vec(),
                    ..Default::default()
                }),
                detail: detail as i32,
            };
            let mut buffer = Vec::with_capacity(8192);
            let answer = LegalMovesAnswer::of(&request).expect("legal moves");
            // The size decides how the transport writes it (see `api::transport`).
            eprintln!("{variant} {name}: {} bytes", answer.encoded_len());
            group.bench_function(name, |b| {
                b.iter(|| {
                    let answer = LegalMovesAnswer::of(black_box(&request)).expect("legal moves");
                    buffer.clear();
                    answer.encode(&mut buffer);
                    black_box(buffer.len())
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
