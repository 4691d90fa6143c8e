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
        assert_eq!(end.winner, theirs, "{label}: ours {end:?}");
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

/// A hand-built cycle for one clause of the rule: the 4-ply `cycle` is
/// played twice from `fen`, and the third occurrence of the start position
/// ends the game with `winner` by `termination`; for a perpetual chase,
/// `chase` is the offence as the verdict states it. pyffish 0.0.90
/// (Fairy-Stockfish) gives the same winner on every case of both tables
/// (tools/check_xiangqi_clauses.py).
struct Clause {
    name: &'static str,
    fen: &'static str,
    cycle: [&'static str; 4],
    winner: Option<Side>,
    termination: Termination,
    chase: Option<&'static str>,
}

fn assert_verdicts(clauses: &[Clause]) {
    for clause in clauses {
        let end = end_after_cycle(clause.fen, clause.cycle);
        assert_eq!(
            (end.winner, end.termination),
            (clause.winner, clause.termination),
            "{}: {end:?}",
            clause.name
        );
        assert_eq!(
            end.chase.map(|c| c.to_string()).as_deref(),
            clause.chase,
            "{}",
            clause.name
        );
    }
}

/// Check and chase in one cycle. AXF: perpetual check loses; check ranks
/// above chase, so a side that checks with every move loses even when its
/// moves also chase or the other side chases; one check and one chase is
/// allowed.
const CHECK_AND_CHASE: &[Clause] = &[
    Clause {
        // The chariot checks from i9 and attacks the lone horse on a5 from
        // i5 (a new threat each time); the black general only steps between
        // e9 and e8.
        name: "one check one chase",
        fen: "4k4/9/9/9/n7R/9/9/9/9/3K5 w - - 0 1",
        cycle: ["i5i9", "e9e8", "i9i5", "e8e9"],
        winner: None,
        termination: Termination::ThreefoldRepetition,
        chase: None,
    },
    Clause {
        // Every move of the chariot checks along rank 8 or 9 and attacks the
        // unprotected horse on a5 down the a file: a perpetual check.
        name: "every move checks and chases",
        fen: "R8/4k4/9/9/n8/9/9/9/9/3K5 w - - 0 1",
        cycle: ["a9a8", "e8e9", "a8a9", "e9e8"],
        winner: Some(Side::Black),
        termination: Termination::PerpetualCheck,
        chase: None,
    },
    Clause {
        // The red horse steps off the e file (the cannon on e2 checks
        // through the black chariot on e5) and back onto it (the cannon
        // checks through the horse). Each time the chariot answers the check
        // and attacks the unprotected horse again: off the file from d5,
        // back onto it from e5. Red checks perpetually while Black chases
        // perpetually: the checking side loses.
        name: "perpetual check against perpetual chase",
        fen: "4k4/9/9/9/4r4/4N4/9/4C4/9/5K3 w - - 0 1",
        cycle: ["e4d2", "e5d5", "d2e4", "d5e5"],
        winner: Some(Side::Black),
        termination: Termination::PerpetualCheck,
        chase: None,
    },
    Clause {
        // Black's cannon checks from a1 (screen d1) and, back on a2,
        // attacks the unprotected advisor on f2 (screen d2): one check and
        // one chase, allowed. Red's chariot follows the cannon with every
        // move, answering the check on b1: a perpetual chase, which loses
        // (the principle of AXF diagrams 37 and 38).
        name: "one check one chase against a perpetual chase",
        fen: "3k5/9/9/9/9/9/9/cR1A1A3/3NK4/9 b - - 0 1",
        cycle: ["a2a1", "b2b1", "a1a2", "b1b2"],
        winner: Some(Side::Black),
        termination: Termination::PerpetualChase,
        chase: Some("Red's chariot chased the unprotected cannon on a2"),
    },
];

#[test]
fn check_ranks_above_chase() {
    assert_verdicts(CHECK_AND_CHASE);
}

/// Soldiers. AXF: a soldier that has not crossed the river cannot be
/// chased; once across it can. In each cycle Black's chariot steps onto the
/// c file (with the cannon on c9 it attacks down the file) and off it again
/// (the cannon then attacks through the red horse that came to c6 to block
/// the file): every black move threatens the soldier anew, and every red
/// move answers the threat. A soldier cannot flee sideways before it has
/// crossed, so the soldier stands still in all three cycles.
const SOLDIERS: &[Clause] = &[
    Clause {
        name: "uncrossed soldier on c4",
        fen: "2c1k4/9/Nr7/9/9/2P6/9/9/9/5K3 b - - 0 1",
        cycle: ["b7c7", "a7c6", "c7b7", "c6a7"],
        winner: None,
        termination: Termination::ThreefoldRepetition,
        chase: None,
    },
    Clause {
        name: "crossed soldier on c5",
        fen: "2c1k4/9/Nr7/9/2P6/9/9/9/9/5K3 b - - 0 1",
        cycle: ["b7c7", "a7c6", "c7b7", "c6a7"],
        winner: Some(Side::White),
        termination: Termination::PerpetualChase,
        chase: Some("Black's cannon chased the unprotected soldier on c5"),
    },
    Clause {
        // The same cycle against a horse on c4: the chase is the cycle's,
        // the draw above is the soldier's.
        name: "horse on c4",
        fen: "2c1k4/9/Nr7/9/9/2N6/9/9/9/5K3 b - - 0 1",
        cycle: ["b7c7", "a7c6", "c7b7", "c6a7"],
        winner: Some(Side::White),
        termination: Termination::PerpetualChase,
        chase: Some("Black's cannon chased the unprotected horse on c4"),
    },
];

#[test]
fn an_uncrossed_soldier_cannot_be_chased() {
    assert_verdicts(SOLDIERS);
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
