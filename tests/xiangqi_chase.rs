//! The perpetual-chase judge against pyffish on generated cycles
//! (tests/fixtures/xiangqi/chases.jsonl, chases-v2.jsonl and chases-v3.jsonl,
//! three seeds of tools/gen_xiangqi_chases.py), and hand-built cycles for the
//! clauses of the rule.

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

/// The generated cycles where pyffish convicts a side and the exact judge
/// draws, for one reason. Fairy-Stockfish takes an attack as new whenever
/// the moved piece attacks from its new point or a move uncovers an attack,
/// even on a piece that was attacked all along. We judge a move a chase only
/// if the threat is its doing: the rule threatens "to capture on the next
/// move", and here, on one of the side's moves at least, the piece stood
/// threatened before the move and the move did not make the threat: the
/// moved piece did not attack it anew (it attacked the piece from where it
/// came as well, or the threat was another piece's, handed over or
/// uncovered), nor kept up a threat that the reply answers other than with
/// a check. So that move created no threat: a draw by repetition. The
/// test checks that this is the whole difference: counting the threats that
/// stand after each move as well
/// (`Xiangqi::chase_counting_standing_threats`), the judge convicts the side
/// pyffish convicts; a case that does not fit fails.
const STANDING_THREATS: &[&str] = &[
    "chase-70",
    "chase-146",
    "chase-153",
    "chase-288",
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
    "chase-v2-50",
    "chase-v2-52",
    "chase-v2-54",
    "chase-v2-60",
    "chase-v2-174",
    "chase-v2-199",
    "chase-v2-201",
    "chase-v2-300",
    "chase-v2-449",
    "chase-v2-502",
    "chase-v2-503",
    "chase-v2-504",
    "chase-v2-505",
    "chase-v2-597",
    "chase-v2-598",
    "chase-v2-599",
    "chase-v2-600",
    "chase-v2-682",
    "chase-v2-683",
    "chase-v2-684",
    "chase-v2-689",
    "chase-v2-740",
    "chase-v2-742",
    "chase-v2-806",
    "chase-v2-822",
    "chase-v2-872",
    "chase-v2-887",
    "chase-v2-948",
    "chase-v2-957",
    "chase-v2-958",
    "chase-v2-959",
    "chase-v2-973",
    "chase-v2-1360",
    "chase-v2-1366",
    "chase-v2-1471",
    "chase-v2-1473",
    "chase-v3-9",
    "chase-v3-34",
    "chase-v3-131",
    "chase-v3-417",
    "chase-v3-644",
    "chase-v3-645",
    "chase-v3-783",
    "chase-v3-790",
    "chase-v3-841",
    "chase-v3-1034",
    "chase-v3-1036",
    "chase-v3-1037",
    "chase-v3-1127",
    "chase-v3-1130",
    "chase-v3-1145",
    "chase-v3-1146",
    "chase-v3-1390",
    "chase-v3-1391",
];

/// The other generated cycles where the exact judge and Fairy-Stockfish
/// differ: the id, our winner (pyffish gives another), and the rule that
/// decides it. Where pyffish convicts a side, counting standing threats does
/// not convict it either: these are no standing threats.
const APPROXIMATIONS: &[(&str, Option<Side>, &str)] = &[
    (
        "chase-317",
        None,
        "Two pieces of a kind attacking each other threaten nothing: after e8e5 the black \
         chariot on e5 and the red one on e4 can take each other. The red chariot is pinned \
         to its general on e0, but by the chariot it would take, along the line of the pin, \
         so the capture is legal; Fairy-Stockfish counts any attack on a pinned piece of the \
         kind as one-sided.",
    ),
    (
        "chase-v2-197",
        None,
        "A piece threatens only what it can legally capture: after f6g6 the black chariot on \
         f8 attacks the horse on f5, but the red chariot on h8 pins it to its general on d8. \
         Fairy-Stockfish does not ask whether the chasing piece may capture.",
    ),
    (
        "chase-v3-1178",
        None,
        "One check and one chase is allowed: Black's f7i7 gives a discovered check (the \
         cannon on f9 through the advisor on f2), so Black alternates a chase and a check. \
         Fairy-Stockfish counts the checking move as a chase too (as on test.py line 1168, \
         tests/xiangqi_outcome.rs).",
    ),
    (
        "chase-v3-140",
        Some(Side::Black),
        "A move chases a piece when the moved piece keeps up a threat the reply has to answer: \
         the elephant flees between e7 and g9 and Red's chariot follows it between f7 and \
         g7, attacking it with every move. Fairy-Stockfish takes no attack along the line a \
         chariot moved on as new (g7f7 attacks e7 along rank 7), as in the hand-built \
         `Differs` cases.",
    ),
    (
        "chase-v3-420",
        Some(Side::White),
        "As chase-v3-140: Black's chariot follows the elephant fleeing between g0 and e2 \
         (e0f0 keeps up the attack on g0 along rank 0, which the elephant answers).",
    ),
    (
        "chase-v3-920",
        Some(Side::Black),
        "As chase-v3-140: Red's chariot follows the elephant fleeing between i7 and g9 \
         (i9h9 keeps up the attack on g9 along rank 9, which the elephant answers).",
    ),
];

/// The generated fixtures, one per seed of the generator.
const FIXTURES: &[&str] = &[
    include_str!("fixtures/xiangqi/chases.jsonl"),
    include_str!("fixtures/xiangqi/chases-v2.jsonl"),
    include_str!("fixtures/xiangqi/chases-v3.jsonl"),
];

#[test]
fn generated_cycles_agree_with_pyffish() {
    let (mut agreed, mut chases, mut checks) = (0, 0, 0);
    let (mut standing, mut approximated) = (0, 0);
    for line in FIXTURES.iter().flat_map(|fixture| fixture.lines()) {
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
        let first = record.earlier_occurrences().nth(1).unwrap();
        let standing_chase = |offender| {
            Xiangqi::chase_counting_standing_threats(
                &record.positions()[first..],
                &record.moves()[first..],
                offender,
            )
        };
        if STANDING_THREATS.contains(&case.id.as_str()) {
            let winner = theirs.expect("pyffish convicts a side");
            assert_eq!(end, drawn(), "{label}");
            assert!(
                standing_chase(!winner).is_some(),
                "{label}: no standing threat"
            );
            standing += 1;
            continue;
        }
        if let Some((_, ours, _)) = APPROXIMATIONS.iter().find(|(id, ..)| *id == case.id) {
            assert_ne!(theirs, *ours, "{label}");
            assert_eq!(end.winner, *ours, "{label}: ours {end:?}");
            if let Some(winner) = theirs {
                assert!(
                    standing_chase(!winner).is_none(),
                    "{label}: a standing threat"
                );
            }
            approximated += 1;
            continue;
        }
        assert_eq!(end.winner, theirs, "{label}: ours {end:?}");
        match (theirs, end.chase) {
            (Some(winner), Some(chase)) => {
                assert_eq!(chase.chaser, !winner, "{label}");
                chases += 1;
            }
            (Some(_), None) => {
                assert_eq!(end.termination, Termination::PerpetualCheck, "{label}");
                checks += 1;
            }
            (None, _) => {}
        }
        agreed += 1;
    }
    // 4521 cycles (1540, 1480 and 1501 a seed), 270 of them decisive for
    // pyffish: 167 perpetual chases and 23 perpetual checks agree, 77
    // standing threats and 3 other approximations of Fairy-Stockfish convict
    // where we draw, and in 3 cycles we convict where it draws.
    assert_eq!(
        (agreed, chases, checks, standing, approximated),
        (4438, 167, 23, 77, 6)
    );
    assert_eq!(standing, STANDING_THREATS.len());
    assert_eq!(approximated, APPROXIMATIONS.len());
}

/// The end after `cycle` is played twice from `fen` (the start position
/// then occurs for the third time).
fn end_after_cycle(fen: &str, cycle: &[&str]) -> GameEnd {
    let mut record = Record::new(Xiangqi::from_fen(fen).unwrap());
    for m in cycle.iter().chain(cycle) {
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

/// A hand-built cycle for one clause of the rule: `cycle` is played twice
/// from `fen`, and the third occurrence of the start position ends the game
/// with `winner` by `termination`; for a perpetual chase, `chase` is the
/// offence as the verdict states it. pyffish 0.0.90 (Fairy-Stockfish) gives
/// the same winner on every case of these tables
/// (tools/check_xiangqi_clauses.py); many clauses come in pairs that differ
/// in one piece, so that the clause, not the cycle, decides the verdict.
/// The Fairy-Stockfish test.py cases in tests/xiangqi_outcome.rs add mutual
/// chases and more pins.
struct Clause {
    name: &'static str,
    fen: &'static str,
    cycle: &'static [&'static str],
    winner: Option<Side>,
    termination: Termination,
    chase: Option<&'static str>,
}

impl Clause {
    /// A cycle that ends in a draw by repetition.
    const fn draw(name: &'static str, fen: &'static str, cycle: &'static [&'static str]) -> Self {
        Clause {
            name,
            fen,
            cycle,
            winner: None,
            termination: Termination::ThreefoldRepetition,
            chase: None,
        }
    }

    /// A cycle in which the side other than `winner` checks perpetually.
    const fn check(
        name: &'static str,
        fen: &'static str,
        cycle: &'static [&'static str],
        winner: Side,
    ) -> Self {
        Clause {
            name,
            fen,
            cycle,
            winner: Some(winner),
            termination: Termination::PerpetualCheck,
            chase: None,
        }
    }

    /// A cycle in which the side other than `winner` chases perpetually, as
    /// `chase` states it.
    const fn chase(
        name: &'static str,
        fen: &'static str,
        cycle: &'static [&'static str],
        winner: Side,
        chase: &'static str,
    ) -> Self {
        Clause {
            name,
            fen,
            cycle,
            winner: Some(winner),
            termination: Termination::PerpetualChase,
            chase: Some(chase),
        }
    }
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

/// What is chased, and by whom. AXF: a piece with no real protector may not
/// be chased perpetually, a chariot not even when protected (by a horse or
/// cannon); the general and soldiers may chase; attacking different pieces
/// in turn is allowed.
const CHASES: &[Clause] = &[
    // The minimal chase: Black's chariot follows the horse between
    // d0 and c2.
    Clause::chase(
        "a chariot chasing an unprotected horse",
        "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1",
        &["d0c2", "d3c3", "c2d0", "c3d3"],
        Side::White,
        "Black's chariot chased the unprotected horse on d0",
    ),
    // The chariot on c0 protects the horse on c2 and on d0.
    Clause::draw(
        "a chariot chasing a protected horse",
        "3k5/9/9/9/9/9/3r5/9/9/2RNK4 w - - 0 1",
        &["d0c2", "d3c3", "c2d0", "c3d3"],
    ),
    // The chariot flees between c4 and d4, always protected by the one on
    // a4; the horse follows it.
    Clause::chase(
        "a horse chasing a protected chariot",
        "4k4/9/9/9/1n7/R2R5/9/9/9/5K3 w - - 0 1",
        &["d4c4", "b5d6", "c4d4", "d6b5"],
        Side::White,
        "Black's horse chased the chariot on d4",
    ),
    // The chariot attacks the horse on a1 and the cannon on b1 in turn.
    Clause::draw(
        "alternating targets",
        "3k5/9/9/9/r8/9/9/9/NC7/4K4 w - - 0 1",
        &["e0e1", "a5b5", "e1e0", "b5a5"],
    ),
    // The black general follows the cannon from e7 to f7 and back.
    Clause::draw(
        "the general chasing",
        "9/5k3/4C4/9/9/9/9/9/9/3K5 b - - 0 1",
        &["f8e8", "e7f7", "e8f8", "f7e7"],
    ),
    // The black soldier across the river follows the cannon along rank 1.
    Clause::draw(
        "a soldier chasing",
        "5k3/9/9/9/9/9/9/4p4/3C5/3K5 b - - 0 1",
        &["e2d2", "d1e1", "d2e2", "e1d1"],
    ),
    // Each move of the red horse (d4, f5, e7, c6) attacks the black chariot
    // and each move of the chariot (d6, d5, e5, e6) flees and attacks the
    // horse: both chase perpetually, a draw ...
    Clause::draw(
        "a mutual perpetual chase",
        "4k4/9/9/3r5/9/3N5/9/9/9/5K3 w - - 0 1",
        &[
            "d4f5", "d6d5", "f5e7", "d5e5", "e7c6", "e5e6", "c6d4", "e6d6",
        ],
    ),
    // ... but with a red chariot on f2 the horse is protected on f5, so
    // d6d5 chases nothing: only Red chases perpetually (a horse may chase
    // a chariot), and Red loses.
    Clause::chase(
        "a mutual chase broken on one side",
        "4k4/9/9/3r5/9/3N5/9/5R3/9/5K3 w - - 0 1",
        &[
            "d4f5", "d6d5", "f5e7", "d5e5", "e7c6", "e5e6", "c6d4", "e6d6",
        ],
        Side::Black,
        "Red's horse chased the unprotected chariot on e6",
    ),
];

#[test]
fn what_may_chase_and_be_chased() {
    assert_verdicts(CHASES);
}

/// Protectors. AXF: a protector counts only if it could legally recapture;
/// one that is pinned, or whose recapture would expose its general (the
/// flying general included), is a fake one. Each pair plays the minimal
/// chase with one piece changed: the horse on d0 is protected in the first
/// cycle of the pair, only falsely in the second.
const PROTECTORS: &[Clause] = &[
    // The black horse on d6 blocks the d file: the general on e0 may take
    // back on d0, so only the attack on c2 is a chase.
    Clause::draw(
        "the general protects when the file is blocked",
        "3k5/9/9/3n5/9/9/3r5/9/9/3NK4 w - - 0 1",
        &["d0c2", "d3c3", "c2d0", "c3d3"],
    ),
    // The advisor on e1 protects d0.
    Clause::draw(
        "an advisor protects",
        "3k5/9/9/9/9/9/3r5/9/4A4/3NK4 w - - 0 1",
        &["d0c2", "d3c3", "c2d0", "c3d3"],
    ),
    // The chariot on e5 pins the advisor to its general: a fake protector.
    Clause::chase(
        "a pinned advisor does not protect",
        "3k5/9/9/9/4r4/9/3r5/9/4A4/3NK4 w - - 0 1",
        &["d0c2", "d3c3", "c2d0", "c3d3"],
        Side::White,
        "Black's chariot chased the unprotected horse on d0",
    ),
];

#[test]
fn a_fake_protector_does_not_protect() {
    assert_verdicts(PROTECTORS);
}

/// One-sided attacks between pieces of one kind. AXF: two pieces of a kind
/// attacking each other threaten nothing, but a one-sided attack, by a horse
/// whose victim is blocked or on a pinned piece, is a chase.
const ONE_SIDED: &[Clause] = &[
    // The red horse flees between b2 and c0, the black horse follows from
    // d3 and e1. On b2 the red horse could take d3 back: mutual.
    Clause::draw(
        "horses attacking each other",
        "5k3/9/9/9/9/9/3n5/1N7/9/3K5 w - - 0 1",
        &["b2c0", "d3e1", "c0b2", "e1d3"],
    ),
    // The black cannon on c2 blocks that leg (and the red general the leg
    // from c0 to e1): the black horse attacks, the red one cannot answer.
    Clause::chase(
        "a blocked horse",
        "5k3/9/9/9/9/9/3n5/1Nc6/9/3K5 w - - 0 1",
        &["b2c0", "d3e1", "c0b2", "e1d3"],
        Side::White,
        "Black's horse chased the unprotected horse on b2",
    ),
    // The red chariot flees along the e file and the black one follows it
    // along ranks 3 and 2. With the red general on d0 the red chariot could
    // take the black one: mutual.
    Clause::draw(
        "chariots attacking each other",
        "4ck3/9/4b4/9/9/9/r3R4/9/9/3K5 w - - 0 1",
        &["e3e2", "a3a2", "e2e3", "a2a3"],
    ),
    // With the red general on e0 the cannon on e9 (screen e7) pins the red
    // chariot to the e file: the attack is one-sided.
    Clause::chase(
        "a pinned chariot",
        "4ck3/9/4b4/9/9/9/r3R4/9/9/4K4 w - - 0 1",
        &["e3e2", "a3a2", "e2e3", "a2a3"],
        Side::White,
        "Black's chariot chased the unprotected chariot on e3",
    ),
];

#[test]
fn a_one_sided_attack_between_pieces_of_a_kind_chases() {
    assert_verdicts(ONE_SIDED);
}

/// Check and chase in one cycle. AXF: perpetual check loses; if both sides
/// check perpetually ("resolve check and check back") the game is drawn;
/// if one side checks perpetually and the other chases perpetually, the
/// checking side loses (check ranks above chase). One check and one chase,
/// or several checks and one chase, is allowed (AXF rule 12, diagram 13):
/// a side that checks with some moves but not all is neither checking nor
/// chasing perpetually.
const CHECK_AND_CHASE: &[Clause] = &[
    // The chariot checks from i9 and attacks the lone horse on a5 from
    // i5 (a new threat each time); the black general only steps between
    // e9 and e8.
    Clause::draw(
        "one check one chase",
        "4k4/9/9/9/n7R/9/9/9/9/3K5 w - - 0 1",
        &["i5i9", "e9e8", "i9i5", "e8e9"],
    ),
    // Every move of the chariot checks along rank 8 or 9 and attacks the
    // unprotected horse on a5 down the a file: a perpetual check.
    Clause::check(
        "every move checks and chases",
        "R8/4k4/9/9/n8/9/9/9/9/3K5 w - - 0 1",
        &["a9a8", "e8e9", "a8a9", "e9e8"],
        Side::Black,
    ),
    // Black's chariot follows the red horse from e5 to d5 and back: without
    // a check, a perpetual chase ...
    Clause::chase(
        "a perpetual chase",
        "4k4/9/9/9/4r4/4N4/9/9/9/5K3 w - - 0 1",
        &["e4d2", "e5d5", "d2e4", "d5e5"],
        Side::White,
        "Black's chariot chased the unprotected horse on e4",
    ),
    // ... and the same moves with a red cannon on e2: the horse steps off
    // the e file (the cannon checks through the chariot on e5) and back onto
    // it (the cannon checks through the horse). Each time the chariot
    // answers the check and attacks the horse again. Red checks perpetually
    // while Black chases perpetually: the checking side loses.
    Clause::check(
        "perpetual check against perpetual chase",
        "4k4/9/9/9/4r4/4N4/9/4C4/9/5K3 w - - 0 1",
        &["e4d2", "e5d5", "d2e4", "d5e5"],
        Side::Black,
    ),
    // Each horse move answers a cannon's check and gives one: the red horse
    // leaves the e file (the cannon on e0 checks through it on e3, or
    // through the black horse on e1) and blocks rank 1 against the cannon
    // on a1; the black horse does the same the other way. Both check
    // perpetually: a draw.
    Clause::draw(
        "perpetual check on both sides",
        "4k4/9/9/9/9/9/3n5/9/c2N1K3/4C4 w - - 0 1",
        &["d1e3", "d3e1", "e3d1", "e1d3"],
    ),
    // Black's cannon checks from a1 (screen d1) and, back on a2,
    // attacks the unprotected advisor on f2 (screen d2): one check and
    // one chase, allowed. Red's chariot follows the cannon with every
    // move, answering the check on b1: a perpetual chase, which loses
    // (the principle of AXF diagrams 37 and 38).
    Clause::chase(
        "one check one chase against a perpetual chase",
        "3k5/9/9/9/9/9/9/cR1A1A3/3NK4/9 b - - 0 1",
        &["a2a1", "b2b1", "a1a2", "b1b2"],
        Side::Black,
        "Red's chariot chased the unprotected cannon on a2",
    ),
    // The red chariot attacks the black horse from a6, the horse flees to
    // d4, the chariot follows to a4, the horse goes back: a perpetual
    // chase ...
    Clause::chase(
        "a chariot chasing a fleeing horse",
        "4k4/9/9/2n6/9/R8/9/9/9/5K3 w - - 0 1",
        &["a4a6", "c6d4", "a6a4", "d4c6"],
        Side::Black,
        "Red's chariot chased the unprotected horse on d4",
    ),
    // ... which two checks in a row break: the chariot goes up to check on
    // a9 and a8 (the general steps to e8 and back), then chases the horse as
    // before. Two checks and two chases: neither perpetual.
    Clause::draw(
        "two checks and two chases",
        "4k4/9/9/2n6/9/R8/9/9/9/5K3 w - - 0 1",
        &[
            "a4a9", "e9e8", "a9a8", "e8e9", "a8a6", "c6d4", "a6a4", "d4c6",
        ],
    ),
    // Without the horse the chariot's last two moves are idle: checks
    // interleaved with idle moves are no perpetual check.
    Clause::draw(
        "two checks and two idle moves",
        "4k4/9/9/9/9/R8/9/9/9/5K3 w - - 0 1",
        &[
            "a4a9", "e9e8", "a9a8", "e8e9", "a8a6", "e9d9", "a6a4", "d9e9",
        ],
    ),
    // Black's cannon checks from d6 (screen d3); Red's cannon answers on d4
    // with a check through it; the black cannon steps back to f6, no check;
    // Red's cannon leaves d4, uncovering the chariot's check up the d file.
    // Red checks with both moves, Black with one: only Red checks
    // perpetually, and Red loses.
    Clause::check(
        "two checks against one check back",
        "9/3k5/9/5c3/9/8C/3R5/9/9/3K5 b - - 0 1",
        &["f6d6", "i4d4", "d6f6", "d4i4"],
        Side::Black,
    ),
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
    Clause::draw(
        "uncrossed soldier on c4",
        "2c1k4/9/Nr7/9/9/2P6/9/9/9/5K3 b - - 0 1",
        &["b7c7", "a7c6", "c7b7", "c6a7"],
    ),
    Clause::chase(
        "crossed soldier on c5",
        "2c1k4/9/Nr7/9/2P6/9/9/9/9/5K3 b - - 0 1",
        &["b7c7", "a7c6", "c7b7", "c6a7"],
        Side::White,
        "Black's cannon chased the unprotected soldier on c5",
    ),
    // The same cycle against a horse on c4: the chase is the cycle's,
    // the draw above is the soldier's.
    Clause::chase(
        "horse on c4",
        "2c1k4/9/Nr7/9/9/2N6/9/9/9/5K3 b - - 0 1",
        &["b7c7", "a7c6", "c7b7", "c6a7"],
        Side::White,
        "Black's cannon chased the unprotected horse on c4",
    ),
];

#[test]
fn an_uncrossed_soldier_cannot_be_chased() {
    assert_verdicts(SOLDIERS);
}

/// A hand-built cycle where Fairy-Stockfish's approximation gives another
/// verdict than the exact judge: `pyffish` is pyffish 0.0.90's winner,
/// `rule` the rule text that decides the clause's.
struct Differs {
    clause: Clause,
    pyffish: Option<Side>,
    rule: &'static str,
}

const DIFFERS_FROM_FAIRY_STOCKFISH: &[Differs] = &[
    Differs {
        // The red elephant flees between i2 and g4, the black chariot
        // follows from i4 and h4.
        clause: Clause::chase(
            "a chariot following along its own line",
            "9/9/4k1N2/9/6b2/7r1/9/4c3B/4K4/2N2A3 b - - 0 1",
            &["h4i4", "i2g4", "i4h4", "g4i2"],
            Side::White,
            "Black's chariot chased the unprotected elephant on g4",
        ),
        pyffish: None,
        rule: "AXF: a move that threatens an unprotected piece anew chases it. Fairy-Stockfish \
               takes no attack along the line a chariot or cannon moved on as new (i4h4 attacks \
               g4 along rank 4), though the elephant has just come to g4.",
    },
    Differs {
        // The red cannon flees between d1 and d4, the black chariot follows
        // from g1 and g4.
        clause: Clause::chase(
            "a general that may not take back",
            "5k3/8r/9/9/9/6r2/9/8B/3C5/3K1n3 b - - 0 1",
            &["g4g1", "d1d4", "g1g4", "d4d1"],
            Side::White,
            "Black's chariot chased the unprotected cannon on d4",
        ),
        pyffish: None,
        rule: "AXF: a protector counts only if it could legally recapture. The general on d0 \
               cannot take back on d1, which the black horse on f0 guards; Fairy-Stockfish \
               counts any general next to the piece as its protector.",
    },
];

#[test]
fn where_fairy_stockfish_approximates() {
    for differs in DIFFERS_FROM_FAIRY_STOCKFISH {
        let clause = &differs.clause;
        assert_ne!(clause.winner, differs.pyffish, "{}", clause.name);
        assert!(!differs.rule.is_empty());
        assert_verdicts(std::slice::from_ref(clause));
    }
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
