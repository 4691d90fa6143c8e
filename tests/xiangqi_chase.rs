//! The perpetual-chase judge against pyffish on generated cycles
//! (tests/fixtures/xiangqi/chases.jsonl, written by
//! tools/gen_xiangqi_chases.py), and hand-built cycles for the clauses of
//! the rule.

use arbiter::rules::{
    Game, GameEnd, IllegalReason, MoveError, Record, Side, Termination,
    xiangqi::{Xiangqi, XiangqiOptions, XiangqiRules},
};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    id: String,
    fen: String,
    moves: Vec<String>,
    ended: bool,
    value: i64,
}

/// The generated cycles where the exact judge and Fairy-Stockfish differ,
/// all for one reason. Fairy-Stockfish takes an attack as new whenever the
/// moved piece attacks from its new point or a move uncovers an attack, even
/// on a piece that was attacked all along; it convicts the side. We judge a
/// move a chase only if the threat is its doing: the rule threatens "to
/// capture on the next move", and here the piece stood threatened before
/// each of the side's moves and still after the opponent's reply (by one
/// piece or another, or by a piece that never moved), so no move created the
/// threat and the opponent never had to answer it: a draw by repetition.
const STANDING_THREATS: &[&str] = &[
    "chase-70",
    "chase-146",
    "chase-153",
    "chase-288",
    "chase-317",
    "chase-330",
    "chase-485",
    "chase-500",
    "chase-502",
    "chase-601",
    "chase-603",
    "chase-604",
    "chase-708",
    "chase-779",
    "chase-859",
    "chase-895",
    "chase-919",
    "chase-1020",
    "chase-1120",
    "chase-1207",
    "chase-1267",
    "chase-1268",
    "chase-1273",
    "chase-1394",
];

#[test]
fn generated_cycles_agree_with_pyffish() {
    let (mut agreed, mut decisive, mut differed) = (0, 0, 0);
    for line in include_str!("fixtures/xiangqi/chases.jsonl").lines() {
        let case: Case = serde_json::from_str(line).unwrap();
        let mut record = Record::new(Xiangqi::from_fen(&case.fen).unwrap());
        for m in &case.moves {
            record.play_recorded(m).unwrap();
        }
        let turn = record.current().turn();
        let theirs = match case.value.signum() {
            1 => Some(turn),
            -1 => Some(!turn),
            _ => None,
        };
        let label = format!("{} {} {:?}", case.id, case.fen, case.moves);
        assert!(case.ended, "{label}");
        let end = record.verdict().end.expect("a third occurrence");
        if STANDING_THREATS.contains(&case.id.as_str()) {
            assert!(theirs.is_some(), "{label}: pyffish convicts a side");
            assert_eq!(end, drawn(), "{label}");
            differed += 1;
            continue;
        }
        assert_eq!(end.winner, theirs, "{label}: ours {end}");
        if let (Some(winner), Some(chase)) = (theirs, end.chase) {
            assert_eq!(chase.chaser, !winner, "{label}");
            decisive += 1;
        }
        agreed += 1;
    }
    // 1540 cycles, 83 of them decisive for pyffish: 53 perpetual chases and
    // 6 perpetual checks agree.
    assert_eq!((agreed, decisive, differed), (1516, 53, 24));
}

/// The end after the 4-ply `cycle` is played twice from `fen` (the start
/// position then occurs for the third time).
fn end_after_cycle(fen: &str, cycle: [&str; 4]) -> GameEnd {
    let mut record = Record::new(Xiangqi::from_fen(fen).unwrap());
    for m in cycle.iter().chain(&cycle) {
        record.play_text(m).unwrap();
    }
    record
        .verdict()
        .end
        .expect("a third occurrence ends the game")
}

fn drawn() -> GameEnd {
    GameEnd::draw(Termination::ThreefoldRepetition)
}

/// Hand-built cycles for the clauses of the rule (pyffish agrees on each;
/// the Fairy-Stockfish test.py cases in tests/xiangqi_outcome.rs cover
/// mutual chases, fake protectors, pins and one check one chase).
#[test]
fn chasing_an_unprotected_piece_loses() {
    // The general cannot take back on d0 (flying general): a fake protector.
    let end = end_after_cycle(
        "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1",
        ["d0c2", "d3c3", "c2d0", "c3d3"],
    );
    assert_eq!(end.winner, Some(Side::White));
    assert_eq!(
        end.chase.map(|c| c.to_string()).as_deref(),
        Some("Black's chariot chased the unprotected horse on d0")
    );
}

#[test]
fn chasing_a_protected_piece_is_no_offence() {
    // The chariot on c0 protects the horse on c2 and on d0.
    assert_eq!(
        end_after_cycle(
            "3k5/9/9/9/9/9/3r5/9/9/2RNK4 w - - 0 1",
            ["d0c2", "d3c3", "c2d0", "c3d3"],
        ),
        drawn()
    );
}

#[test]
fn a_horse_chasing_a_protected_chariot_loses() {
    // The chariot flees between c4 and d4, always protected by the one on
    // a4; the horse follows it.
    let end = end_after_cycle(
        "4k4/9/9/9/1n7/R2R5/9/9/9/5K3 w - - 0 1",
        ["d4c4", "b5d6", "c4d4", "d6b5"],
    );
    assert_eq!(end.winner, Some(Side::White));
    assert_eq!(
        end.chase.map(|c| c.to_string()).as_deref(),
        Some("Black's horse chased the chariot on d4")
    );
}

#[test]
fn the_general_may_chase() {
    // The black general follows the cannon from e7 to f7 and back.
    assert_eq!(
        end_after_cycle(
            "9/5k3/4C4/9/9/9/9/9/9/3K5 b - - 0 1",
            ["f8e8", "e7f7", "e8f8", "f7e7"],
        ),
        drawn()
    );
}

#[test]
fn alternating_targets_are_no_perpetual_chase() {
    // The chariot attacks the horse on a1 and the cannon on b1 in turn.
    assert_eq!(
        end_after_cycle(
            "3k5/9/9/9/r8/9/9/9/NC7/4K4 w - - 0 1",
            ["e0e1", "a5b5", "e1e0", "b5a5"],
        ),
        drawn()
    );
}

#[test]
fn a_soldier_may_chase() {
    // The black soldier across the river follows the cannon along rank 1.
    assert_eq!(
        end_after_cycle(
            "5k3/9/9/9/9/9/9/4p4/3C5/3K5 b - - 0 1",
            ["e2d2", "d1e1", "d2e2", "e1d1"],
        ),
        drawn()
    );
}

/// The minimal chase under the other rule sets.
#[test]
fn rule_sets_judge_or_refuse_the_chase() {
    let fen = "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1";
    let cycle = [
        "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
    ];
    let with = |rules| {
        Record::with_options(
            Xiangqi::from_fen(fen).unwrap(),
            XiangqiOptions {
                rules,
                ..XiangqiOptions::default()
            },
        )
    };
    // Casual play: any third occurrence draws.
    let mut casual = with(XiangqiRules::RepetitionDraws);
    for m in cycle {
        casual.play_text(m).unwrap();
    }
    assert_eq!(casual.verdict().end, Some(drawn()));

    // Refusing: the chasing move that would complete the cycle is illegal,
    // and says which piece it chases; Black must vary.
    let mut refusing = with(XiangqiRules::AsianRefusing);
    for m in &cycle[..7] {
        refusing.play_text(m).unwrap();
    }
    match refusing.play_text("c3d3") {
        Err(MoveError::Illegal(e)) => {
            assert_eq!(e.reason, IllegalReason::PerpetualChase);
            assert_eq!(
                e.message,
                "c3d3 would complete a perpetual chase (Black's chariot chased the \
                 unprotected horse on d0): play another move"
            );
        }
        other => panic!("{other:?}"),
    }
    refusing.play_text("c3c4").unwrap();
    assert_eq!(refusing.verdict().end, None);
    // Red, the chased side, may repeat as it likes.
    let mut red = with(XiangqiRules::AsianRefusing);
    for m in &cycle[..6] {
        red.play_text(m).unwrap();
    }
    assert_eq!(
        red.play_text("c2d0").map(|m| m.to_string()).as_deref(),
        Ok("c2d0")
    );
}
