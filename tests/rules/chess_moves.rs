//! Move text in every accepted form, and why illegal moves are illegal.

use arbiter::rules::{Game, IllegalReason, MoveError, Record, Variant, chess::Chess};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const CASTLES: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";

fn pos(fen: &str) -> Chess {
    Chess::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn uci(fen: &str, text: &str) -> String {
    let p = pos(fen);
    let m = p
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text} in {fen}: {e}"));
    p.coordinate_notation(m)
}

/// The reason and message for an illegal move.
fn illegal(fen: &str, text: &str) -> (IllegalReason, String) {
    match pos(fen).parse_move(text) {
        Err(MoveError::Illegal(e)) => (e.reason, e.message),
        other => panic!("{text} in {fen}: expected illegal, got {other:?}"),
    }
}

#[test]
fn moves_are_read_in_uci_and_san() {
    assert_eq!(uci(START, "e2e4"), "e2e4");
    assert_eq!(uci(START, "e4"), "e2e4");
    assert_eq!(uci(START, "Nf3"), "g1f3");
    assert_eq!(uci(START, "Ng1f3"), "g1f3");
    assert_eq!(uci(START, " Nf3+ "), "g1f3");
    assert_eq!(uci(START, "Nf3#"), "g1f3");
    for text in ["e1g1", "e1h1", "O-O", "0-0", "O-O+", "Kg1"] {
        if text == "Kg1" {
            // A king step of two squares is castling only in coordinates.
            assert!(pos(CASTLES).parse_move(text).is_err());
            continue;
        }
        assert_eq!(uci(CASTLES, text), "e1g1", "{text}");
    }
    for text in ["e1c1", "e1a1", "O-O-O", "0-0-0"] {
        assert_eq!(uci(CASTLES, text), "e1c1", "{text}");
    }
    let promo = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1";
    assert_eq!(uci(promo, "e7e8q"), "e7e8q");
    assert_eq!(uci(promo, "e8=Q"), "e7e8q");
    assert_eq!(uci(promo, "e8=N"), "e7e8n");
    // A capture without its 'x' is understood, as python-chess does.
    let capture = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1";
    assert_eq!(uci(capture, "exd5"), "e4d5");
    assert_eq!(uci(capture, "ed5"), "e4d5");
}

#[test]
fn move_text_errors_say_what_is_wrong() {
    for text in [
        "",
        "xyz",
        "e9e4",
        "--",
        "Z@e4",
        "e2e4e5",
        "Nf3!!!!!!!!!!!!!!!!",
        "車",
    ] {
        assert!(
            matches!(
                pos(START).parse_move(text),
                Err(MoveError::Unparsable { .. })
            ),
            "{text:?}"
        );
    }
    let two_knights = "4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1";
    match pos(two_knights).parse_move("Nd2") {
        Err(MoveError::Ambiguous { candidates, .. }) => assert_eq!(candidates, ["Nbd2", "Nfd2"]),
        other => panic!("expected ambiguity, got {other:?}"),
    }
    assert_eq!(uci(two_knights, "Nbd2"), "b1d2");
}

#[test]
fn illegal_moves_are_explained() {
    let cases: &[(&str, &str, IllegalReason, &str)] = &[
        (START, "e3e4", IllegalReason::NoPiece, "no piece on e3"),
        (
            START,
            "e7e5",
            IllegalReason::OpponentPiece,
            "the black pawn on e7 belongs to black",
        ),
        (
            START,
            "a1a2",
            IllegalReason::OwnPieceOnDestination,
            "your own pawn",
        ),
        (
            START,
            "e2e5",
            IllegalReason::CannotMoveThatWay,
            "pawn moves one square forward",
        ),
        (
            START,
            "g1g3",
            IllegalReason::CannotMoveThatWay,
            "knight jumps",
        ),
        (
            START,
            "d1d3",
            IllegalReason::PathBlocked,
            "the white pawn on d2 is in the way",
        ),
        (
            START,
            "Qh5",
            IllegalReason::PathBlocked,
            "the white pawn on e2 is in the way",
        ),
        (
            START,
            "Nd2",
            IllegalReason::OwnPieceOnDestination,
            "your own pawn",
        ),
        (START, "Bb5", IllegalReason::PathBlocked, "in the way"),
        (
            START,
            "Qe5",
            IllegalReason::NoPieceCanReach,
            "no white queen can move to e5",
        ),
        (
            START,
            "e2d3",
            IllegalReason::CannotMoveThatWay,
            "diagonally only to capture",
        ),
        (
            START,
            "e2e4q",
            IllegalReason::PromotionNotAllowed,
            "last rank",
        ),
        (
            START,
            "g1f3q",
            IllegalReason::PromotionNotAllowed,
            "only a pawn",
        ),
        (
            START,
            "e1g1",
            IllegalReason::CastlingBlocked,
            "f1 is not empty",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "e1g1",
            IllegalReason::CastlingWithoutRight,
            "no K in the castling rights",
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w Qkq - 0 1",
            "O-O",
            IllegalReason::CastlingWithoutRight,
            "kingside",
        ),
        (
            "r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1",
            "O-O",
            IllegalReason::CastlingOutOfCheck,
            "the black rook on e2 attacks your king",
        ),
        (
            "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
            "e1g1",
            IllegalReason::CastlingThroughCheck,
            "the black rook on f2 attacks f1",
        ),
        (
            "r3k2r/8/8/8/8/8/6r1/R3K2R w KQkq - 0 1",
            "e1h1",
            IllegalReason::CastlingIntoCheck,
            "the black rook on g2 attacks g1",
        ),
        (
            "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
            "Nc3",
            IllegalReason::OwnKingInCheck,
            "expose your king on e1 to the black rook on e7",
        ),
        (
            "4k3/8/8/8/8/8/3r4/4K3 w - - 0 1",
            "e1e2",
            IllegalReason::OwnKingInCheck,
            "your king would be in check on e2 from the black rook on d2",
        ),
        (
            "4k3/8/8/8/8/8/4r3/3K4 w - - 0 1",
            "d1d2",
            IllegalReason::OwnKingInCheck,
            "in check on d2 from the black rook on e2",
        ),
        (
            "4k3/8/8/8/8/8/8/R3K2r w Q - 0 1",
            "a1a2",
            IllegalReason::OwnKingInCheck,
            "is in check from the black rook on h1, and this move does not stop it",
        ),
        (
            "8/8/8/KPp4r/8/8/8/7k w - c6 0 1",
            "b5c6",
            IllegalReason::OwnKingInCheck,
            "expose your king on a5 to the black rook on h5",
        ),
        (
            "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
            "e7e8",
            IllegalReason::PromotionMissing,
            "must promote",
        ),
        (
            "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
            "e8",
            IllegalReason::PromotionMissing,
            "must promote",
        ),
        (
            "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
            "e7e8k",
            IllegalReason::PromotionNotAllowed,
            "queen, rook, bishop or knight",
        ),
    ];
    let mut failures = Vec::new();
    for &(fen, text, reason, phrase) in cases {
        let (got, message) = illegal(fen, text);
        if got != reason || !message.contains(phrase) {
            failures.push(format!(
                "{text} in {fen}: got {got:?} {message:?}, expected {reason:?} with {phrase:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn moves_after_the_end_are_refused_as_game_over() {
    let mut record = Record::replay(Chess::start(), ["f3", "e5", "g4", "Qh4#"]).unwrap();
    let end = record.verdict().end.expect("fool's mate");
    assert_eq!(end.describe(Variant::Chess), "black won by checkmate");
    let game_over = |record: &mut Record<Chess>, text: &str| match record.play_text(text) {
        Err(MoveError::Illegal(e)) => assert_eq!(e.reason, IllegalReason::GameOver, "{text}"),
        other => panic!("{text}: expected game over, got {other:?}"),
    };
    // After mate, a move, an impossible move and nonsense are all too late.
    game_over(&mut record, "a3");
    game_over(&mut record, "Ke2");
    game_over(&mut record, "hello");
    // A dead position ends the game although the kings could still move.
    let mut bare = Record::new(pos("8/8/8/4k3/8/8/8/4K3 w - - 0 1"));
    game_over(&mut bare, "Kd1");
    let err = Record::replay(Chess::start(), ["e4", "e5", "Ke3"]).unwrap_err();
    assert_eq!(err.ply, 2);
    assert!(err.to_string().starts_with("move 3 (\"Ke3\")"), "{err}");
}

#[test]
fn moves_are_described_in_every_notation() {
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let d = p.describe(p.parse_move("e1h1").unwrap());
    assert_eq!(
        (
            d.uci.as_str(),
            d.san.as_str(),
            d.from.as_str(),
            d.to.as_str()
        ),
        ("e1g1", "O-O", "e1", "g1")
    );
    assert!(d.is_castling && !d.is_capture() && d.piece == 'K');
    let p = pos("8/8/8/KPp4r/8/8/8/7k w - c6 0 1");
    let d = p.describe(p.parse_move("Ka6").unwrap());
    assert_eq!(d.san, "Ka6");
    let p = pos("r3k3/1P6/8/8/8/8/8/4K3 w q - 0 1");
    let d = p.describe(p.parse_move("b7a8q").unwrap());
    assert_eq!(
        (d.san.as_str(), d.captured, d.promotion, d.is_check),
        ("bxa8=Q+", Some('r'), Some('Q'), true)
    );
}
