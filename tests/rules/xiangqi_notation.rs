//! Xiangqi notation and illegal-move explanations, over every legal move of
//! many positions from deterministic random games.

use arbiter::rules::{
    Game, IllegalReason, MoveError,
    xiangqi::{Square, Xiangqi},
};

/// Positions of deterministic pseudo-random games from the start.
fn positions() -> Vec<Xiangqi> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut out = Vec::new();
    for _ in 0..40 {
        let mut pos = Xiangqi::start();
        for _ in 0..120 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            out.push(pos.clone());
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            pos.play(moves[(state % moves.len() as u64) as usize]);
        }
    }
    out
}

#[test]
fn every_notation_round_trips() {
    for pos in positions() {
        for m in pos.legal_moves() {
            let d = pos.describe(m);
            let chinese = d.chinese.expect("xiangqi has Chinese notation");
            for text in [&d.uci, &d.san, &chinese] {
                assert_eq!(
                    pos.parse_move(text),
                    Ok(m),
                    "{} in {}: {text} ({d:?})",
                    d.uci,
                    pos.fen()
                );
            }
            assert_eq!(d.is_check, {
                let mut after = pos.clone();
                after.play(m);
                after.is_check()
            });
        }
    }
}

#[test]
fn coordinates_are_legal_exactly_when_generated() {
    for pos in positions().into_iter().step_by(7) {
        let legal = pos.legal_moves();
        for from in 0..90u8 {
            for to in 0..90u8 {
                let from = Square::new(from % 9, from / 9).unwrap();
                let to = Square::new(to % 9, to / 9).unwrap();
                let text = format!("{from}{to}");
                match pos.parse_move(&text) {
                    Ok(m) => assert!(legal.contains(&m), "{text} accepted in {}", pos.fen()),
                    Err(MoveError::Illegal(e)) => assert!(
                        !legal.iter().any(|m| m.from() == from && m.to() == to),
                        "{text} rejected in {}: {e}",
                        pos.fen()
                    ),
                    Err(e) => panic!("{text}: {e}"),
                }
            }
        }
    }
}

fn reason(fen: &str, text: &str) -> (IllegalReason, String) {
    let pos = Xiangqi::from_fen(fen).unwrap();
    match pos.parse_move(text) {
        Err(MoveError::Illegal(e)) => (e.reason, e.message),
        other => panic!("{text} in {fen}: {other:?}"),
    }
}

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

#[test]
fn illegal_reasons() {
    use IllegalReason::*;
    let cases = [
        (START, "e5e6", NoPiece),
        (START, "h7e7", OpponentPiece),
        (START, "a0a3", OwnPieceOnDestination),
        (START, "b0b1", CannotMoveThatWay),
        (START, "b0d1", HorseLegBlocked),
        (START, "a0a5", PathBlocked),
        (START, "h2h8", PathBlocked),
        (START, "h2h7", CannonNeedsScreen),
        (START, "e3e2", SoldierCannotMoveThatWay),
        (START, "e3d3", SoldierCannotMoveThatWay),
        (START, "d0d1", CannotMoveThatWay),
        (START, "d0c1", MustStayInPalace),
        (
            "4k4/9/9/9/9/2B6/9/9/9/3K5 w - - 0 1",
            "c4e6",
            ElephantCannotCrossRiver,
        ),
        (
            "3k5/9/9/9/9/9/9/9/3N5/2B1K4 w - - 0 1",
            "c0e2",
            ElephantEyeBlocked,
        ),
        (
            "3k5/9/9/9/9/9/9/9/1R7/1N2K4 w - - 0 1",
            "b0c2",
            HorseLegBlocked,
        ),
        (
            "3k5/9/9/9/9/9/9/9/9/3AK4 w - - 0 1",
            "d0d1",
            CannotMoveThatWay,
        ),
        ("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", "d0e0", GeneralsFacing),
        (
            "4k4/9/9/9/9/9/9/9/4A4/4K4 w - - 0 1",
            "e1d2",
            GeneralsFacing,
        ),
        (
            "4k4/9/9/9/4r4/9/9/9/4A4/3AK4 w - - 0 1",
            "e1f2",
            OwnKingInCheck,
        ),
        (
            "4k4/9/9/9/4r4/9/9/9/9/3K5 w - - 0 1",
            "d0e0",
            OwnKingInCheck,
        ),
    ];
    for (fen, text, expected) in cases {
        let (reason, message) = reason(fen, text);
        assert_eq!(reason, expected, "{text} in {fen}: {message}");
    }
}

#[test]
fn messages_name_the_squares() {
    let (_, message) = reason("3k5/9/9/9/9/9/9/9/1R7/1N2K4 w - - 0 1", "b0c2");
    assert!(message.contains("b1"), "{message}");
    let (_, message) = reason("4k4/9/9/9/4r4/9/9/9/4A4/3AK4 w - - 0 1", "e1f2");
    assert_eq!(
        message,
        "the black chariot on e5 would attack your general on e0"
    );
}

#[test]
fn notation_examples() {
    let pos = Xiangqi::start();
    let m = |text: &str| pos.parse_move(text).map(|m| m.to_string());
    for text in [
        "h2e2",
        "H2-E2",
        "C2.5",
        "C2=5",
        "c2.5",
        "炮二平五",
        "砲二平五",
    ] {
        assert_eq!(m(text).as_deref(), Ok("h2e2"), "{text}");
    }
    assert_eq!(m("H8+7").as_deref(), Ok("b0c2"));
    assert_eq!(m("R9+1").as_deref(), Ok("a0a1"));
    let black =
        Xiangqi::from_fen("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b - - 1 1")
            .unwrap();
    for text in ["马8进7", "馬８進７", "H8+7", "h9g7"] {
        assert_eq!(
            black.parse_move(text).map(|m| m.to_string()).as_deref(),
            Ok("h9g7"),
            "{text}"
        );
    }
    let d = black.describe(black.parse_move("h9g7").unwrap());
    assert_eq!(
        (d.san.as_str(), d.chinese.as_deref()),
        ("H8+7", Some("马8进7"))
    );
    assert!(matches!(m("xyz"), Err(MoveError::Unparsable { .. })));
    assert!(matches!(m("炮二平"), Err(MoveError::Unparsable { .. })));
}

#[test]
fn tandem_forms() {
    // Two red chariots on the e file... and on file 3 from Red's right (g).
    let pos = Xiangqi::from_fen("4k4/9/9/9/9/6R2/9/6R2/9/3K5 w - - 0 1").unwrap();
    let front = pos.parse_move("g4d4").unwrap();
    let d = pos.describe(front);
    assert_eq!(
        (d.san.as_str(), d.chinese.as_deref()),
        ("R+.6", Some("前车平六"))
    );
    for text in ["R+.6", "+R.6", "车前平六", "前俥平六"] {
        assert_eq!(pos.parse_move(text), Ok(front), "{text}");
    }
    let rear = pos.describe(pos.parse_move("g2g1").unwrap());
    assert_eq!(
        (rear.san.as_str(), rear.chinese.as_deref()),
        ("R--1", Some("后车退一"))
    );
    assert!(matches!(
        pos.parse_move("R3.6"),
        Err(MoveError::Ambiguous { .. })
    ));
    // Three soldiers on one file: front, middle (by file), rear.
    let pawns = Xiangqi::from_fen("3k5/9/2P6/2P6/2P6/9/9/9/9/4K4 w - - 0 1").unwrap();
    let names: Vec<(String, String)> = ["c7b7", "c6b6", "c5b5"]
        .into_iter()
        .map(|t| {
            let d = pawns.describe(pawns.parse_move(t).unwrap());
            (String::from(d.san), d.chinese.map(String::from).unwrap())
        })
        .collect();
    assert_eq!(
        names,
        [
            ("P+.8".to_owned(), "前兵平八".to_owned()),
            ("P7.8".to_owned(), "中兵平八".to_owned()),
            ("P-.8".to_owned(), "后兵平八".to_owned()),
        ]
    );
    // Tandem soldiers on two files: the file comes first.
    let two = Xiangqi::from_fen("3k5/9/2P3P2/2P3P2/9/9/9/9/9/4K4 w - - 0 1").unwrap();
    let d = two.describe(two.parse_move("c7b7").unwrap());
    assert_eq!(
        (d.san.as_str(), d.chinese.as_deref()),
        ("7+.8", Some("前七平八"))
    );
}

/// pyffish's numbered soldier forms (place from the front, then the file)
/// are read as pyffish means them; where two equal digits could also be
/// wxf.org's middle soldier of that file and the two are different soldiers,
/// the text is refused, never read as a guess.
#[test]
fn numbered_soldier_forms_are_read_as_written_or_refused() {
    let read = |fen: &str, text: &str| {
        let pos = Xiangqi::from_fen(fen).unwrap();
        pos.parse_move(text).map(|m| pos.coordinate_notation(m))
    };
    // Three soldiers on Red's file 1, none tandem elsewhere: `11=2` is the
    // first of them (i9), as pyffish writes it.
    let one_file = "6P1P/9/4k3P/3n4P/9/9/9/5K2B/9/3A5 w - - 0 26";
    assert_eq!(read(one_file, "11=2").as_deref(), Ok("i9h9"));
    assert_eq!(read(one_file, "21=2").as_deref(), Ok("i7h7"));
    assert_eq!(read(one_file, "31=2").as_deref(), Ok("i6h6"));
    // Three on file 3 and two on file 5: `23=4` is the middle one both ways,
    // `33=4` is the third for pyffish but the middle for wxf.org.
    let two_files = "3k2P2/9/6P2/4P1P2/4P4/9/9/9/9/4K4 w - - 0 1";
    assert_eq!(read(two_files, "13=4").as_deref(), Ok("g9f9"));
    assert_eq!(read(two_files, "23=4").as_deref(), Ok("g7f7"));
    assert!(matches!(
        read(two_files, "33=4"),
        Err(MoveError::Ambiguous { .. })
    ));
    assert_eq!(read(two_files, "25=6").as_deref(), Ok("e5d5"));
    // The middle one of three is written in the form both readings share.
    let pos = Xiangqi::from_fen(two_files).unwrap();
    let middle = pos.parse_move("g7f7").unwrap();
    assert_eq!(pos.describe(middle).san, "23.4");
}
