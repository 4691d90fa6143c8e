//! The engine follows xiangqi's repetition rules: it does not chase into a
//! lost repetition, and repeats when the opponent's chasing makes the
//! repetition a win. Every verdict the tests rely on is first confirmed by
//! the rules library's own judge, on the record the engine is given.
//!
//! The positions are the smallest chase (Black's chariot on the d
//! and c files chasing Red's horse between d0 and c2, which the general
//! cannot protect because of the flying general), with a red chariot on i8
//! so that Red is well ahead: a drawn repetition would suit Black and not
//! Red, so an engine that drew every repetition would chase as Black and
//! leave the repetition as Red.

use arbiter::{
    engine::{Limits, MATE, search},
    rules::{
        Game, Record, Side, Termination,
        xiangqi::{Xiangqi, XiangqiOptions, XiangqiRules},
    },
};

const FEN: &str = "3k5/9/9/9/9/9/3r5/9/8R/3NK4 w - - 0 1";
/// Red's horse flees, Black's chariot follows, twice round.
const CHASE: [&str; 8] = [
    "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
];
/// Scores beyond this are wins or losses (a mate or a repetition verdict).
const DECISIVE: i32 = MATE - 100;

/// The record after the first `plies` moves of the chase, under `rules`.
fn chased(plies: usize, rules: XiangqiRules) -> Record<Xiangqi> {
    let options = XiangqiOptions {
        rules,
        ..XiangqiOptions::default()
    };
    let mut record = Record::with_options(Xiangqi::from_fen(FEN).unwrap(), options);
    for m in &CHASE[..plies] {
        record.play_text(m).unwrap();
    }
    record
}

/// The engine's move (ICCS) and score for the record's current position.
fn engine_move(record: &Record<Xiangqi>, depth: u32) -> (String, i32) {
    let result = search(record, &Limits::depth(depth));
    let m = result.best().expect("a move");
    (record.current().coordinate_notation(m), result.score())
}

/// The game's end after `record` and then `m`.
fn end_after(record: &Record<Xiangqi>, m: &str) -> Option<(Option<Side>, Termination)> {
    let mut after = record.clone();
    after.play_text(m).unwrap();
    after.verdict().end.map(|end| (end.winner, end.termination))
}

#[test]
fn the_engine_does_not_complete_a_perpetual_chase() {
    // Black to move; chasing once more makes the third occurrence.
    let record = chased(7, XiangqiRules::Asian);
    assert_eq!(
        end_after(&record, "c3d3"),
        Some((Some(Side::White), Termination::PerpetualChase))
    );
    let (m, score) = engine_move(&record, 5);
    assert_ne!(m, "c3d3", "the engine chased into a lost repetition");
    assert!(score > -DECISIVE, "{m} scores {score}: not a loss");
}

#[test]
fn the_engine_does_not_start_a_perpetual_chase_either() {
    // Black to move with no history: chasing round once is already a
    // repetition the search judges, as it would be judged if repeated.
    let record = chased(3, XiangqiRules::Asian);
    let (m, score) = engine_move(&record, 6);
    assert_ne!(m, "c3d3", "the engine chased into a lost repetition");
    assert!(score > -DECISIVE, "{m} scores {score}: not a loss");
}

#[test]
fn the_engine_repeats_when_the_opponent_chases() {
    // Red to move; fleeing back to d0 leaves Black to vary or to complete
    // its own perpetual chase.
    let record = chased(6, XiangqiRules::Asian);
    let mut completed = record.clone();
    completed.play_text("c2d0").unwrap();
    assert_eq!(
        end_after(&completed, "c3d3"),
        Some((Some(Side::White), Termination::PerpetualChase))
    );
    let (m, score) = engine_move(&record, 5);
    assert_eq!(m, "c2d0", "the engine left a winning repetition");
    assert!(score > DECISIVE, "the repetition scores {score}, not a win");
}

#[test]
fn with_repetitions_drawn_the_engine_chases_for_the_draw() {
    // The same position when every repetition draws: for Black, behind, the
    // repetition is the best there is.
    let record = chased(7, XiangqiRules::RepetitionDraws);
    assert_eq!(
        end_after(&record, "c3d3"),
        Some((None, Termination::ThreefoldRepetition))
    );
    let (m, score) = engine_move(&record, 5);
    assert_eq!(m, "c3d3");
    assert_eq!(score, 0);
}

#[test]
fn deep_searches_judge_cycles_behind_null_moves() {
    // Deep enough for lines that pass (null-move pruning) and then run into
    // a repetition, whose cycle is rebuilt from the root through the pass.
    let record = chased(0, XiangqiRules::Asian);
    let result = search(&record, &Limits::depth(10));
    let m = result.best().expect("a move");
    assert!(record.current().legal_moves().contains(&m));
    assert!(result.score().abs() < DECISIVE, "{}", result.score());
}
