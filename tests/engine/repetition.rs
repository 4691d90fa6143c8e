//! The engine follows xiangqi's repetition rules: it does not chase into a
//! lost repetition, and scores a repetition as a win or a loss only where
//! the game would end by it (pyffish's judgement of generated cycles).
//! Every verdict the tests rely on is first confirmed by a rules library's
//! own judge, on the record the engine is given.
//!
//! The positions are the smallest chase (Black's chariot on the d
//! and c files chasing Red's horse between d0 and c2, which the general
//! cannot protect because of the flying general), with a red chariot on i1
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
    // Black to move three plies in: chasing on brings the start back for
    // the second time, and going round again, within the search, loses.
    let record = chased(3, XiangqiRules::Asian);
    let (m, score) = engine_move(&record, 6);
    assert_ne!(m, "c3d3", "the engine chased into a lost repetition");
    assert!(score > -DECISIVE, "{m} scores {score}: not a loss");
}

#[test]
fn a_repetition_the_opponent_can_still_leave_is_no_win() {
    // Red to move; fleeing back to d0 brings a position back for the
    // second time, so Black can still vary: no win yet. Red has a real mate
    // instead: the chariot checks on d1, Black's only move blocks on d3,
    // and the chariot takes it.
    let record = chased(6, XiangqiRules::Asian);
    assert_eq!(end_after(&record, "c2d0"), None);
    let mut mated = record.clone();
    mated.play_text("i1d1").unwrap();
    let replies = mated.current().legal_moves();
    assert_eq!(replies.len(), 1);
    assert_eq!(mated.current().coordinate_notation(replies[0]), "c3d3");
    mated.play_text("c3d3").unwrap();
    assert_eq!(
        end_after(&mated, "d1d3"),
        Some((Some(Side::White), Termination::Checkmate))
    );
    let (m, score) = engine_move(&record, 5);
    assert_eq!((m.as_str(), score), ("i1d1", MATE - 3));
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

/// One move that brings a position back, judged by pyffish with the game's
/// history (tests/fixtures/xiangqi/repetition_claims_fsf.jsonl, from
/// tools/gen_xiangqi_repetition_claims.py).
#[derive(serde::Deserialize)]
struct Claim {
    id: String,
    fen: String,
    moves: Vec<String>,
    #[serde(rename = "move")]
    repeat: String,
    ended: bool,
    value: i32,
    legal_after: usize,
}

/// The score the engine gives `claim.repeat`, searched one ply deep with
/// every root move on its own line.
fn score_of_repeat(record: &Record<Xiangqi>, claim: &Claim) -> i32 {
    let pos = record.current();
    let limits = Limits {
        multipv: pos.legal_moves().len(),
        ..Limits::depth(1)
    };
    let result = search(record, &limits);
    let line = result
        .lines
        .iter()
        .find(|line| pos.coordinate_notation(line.pv[0]) == claim.repeat)
        .unwrap_or_else(|| panic!("{}: {} has no line", claim.id, claim.repeat));
    line.score
}

#[test]
fn a_repetition_is_a_win_or_loss_only_where_the_game_ends() {
    let (mut going_on, mut ended) = (0, 0);
    for text in include_str!("../fixtures/xiangqi/repetition_claims_fsf.jsonl").lines() {
        let claim: Claim = serde_json::from_str(text).unwrap();
        let mut record = Record::new(Xiangqi::from_fen(&claim.fen).unwrap());
        for m in &claim.moves {
            record.play_recorded(m).unwrap();
        }
        let score = score_of_repeat(&record, &claim);
        if !claim.ended {
            // The second occurrence: the side the cycle blames can still
            // leave it, so the move neither mates nor is mated at once.
            assert!(claim.legal_after > 0, "{}", claim.id);
            assert!(
                score.abs() < MATE - 1,
                "{}: {} scores {score}, the game goes on",
                claim.id,
                claim.repeat
            );
            going_on += 1;
            continue;
        }
        // The third occurrence ends the game. Our judge differs from
        // pyffish's on some cycles (tests/rules/xiangqi_chase.rs); where
        // the two agree, the engine scores the move as the game's end (a
        // move that is the only one is played without a search).
        if record.current().legal_moves().len() == 1 {
            continue;
        }
        let mut after = record.clone();
        after.play_recorded(&claim.repeat).unwrap();
        let mover = record.current().turn();
        let pyffish_winner = if claim.value > 0 { !mover } else { mover };
        if after.verdict().end.and_then(|end| end.winner) == Some(pyffish_winner) {
            let expected = if pyffish_winner == mover {
                MATE - 1
            } else {
                -(MATE - 1)
            };
            assert_eq!(score, expected, "{}", claim.id);
            ended += 1;
        }
    }
    // 270 decisive cycles, four second occurrences each; 190 of their third
    // occurrences judged alike by pyffish and our rules, one of them with
    // a single legal move.
    assert_eq!((going_on, ended), (1080, 189));
}
