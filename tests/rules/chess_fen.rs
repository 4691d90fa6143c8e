//! Bad FENs and the reason each is rejected with.

use arbiter::rules::{FenProblem, Game, chess::Chess};

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// (FEN, expected problem codes in order, a phrase the first message contains)
const BAD: &[(&str, &[&str], &str)] = &[
    ("", &["EMPTY"], "empty"),
    ("   ", &["EMPTY"], "empty"),
    // Syntax shakmaty would accept.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w kqKQ - 0 1",
        &["BAD_CASTLING"],
        "KQkq",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkqkq - 0 1",
        &["BAD_CASTLING"],
        "in that order",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKQkq - 0 1",
        &["BAD_CASTLING"],
        "KQkq",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
        &["BAD_CASTLING"],
        "KQkq",
    ),
    (
        "rnbqkbnr/pppppppp/44/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["CONSECUTIVE_DIGITS"],
        "\"44\"",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR_w_KQkq_-_0_1",
        &["BAD_SEPARATOR"],
        "single spaces",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w  KQkq - 0 1",
        &["BAD_SEPARATOR"],
        "single spaces",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR\tw KQkq - 0 1",
        &["BAD_SEPARATOR"],
        "single spaces",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        &["WRONG_FIELD_COUNT"],
        "4 field",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x",
        &["WRONG_FIELD_COUNT"],
        "7 field",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 x y z",
        &["WRONG_FIELD_COUNT"],
        "9 field",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0",
        &["BAD_FULLMOVE_NUMBER"],
        "from 1",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
        &["BAD_HALFMOVE_CLOCK"],
        "-1",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - +0 1",
        &["BAD_CHARACTER"],
        "'+'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999",
        &["BAD_FULLMOVE_NUMBER"],
        "99999999999",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 4294967296 1",
        &["BAD_HALFMOVE_CLOCK"],
        "4294967296",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 50 1",
        &["HALFMOVE_CLOCK_TOO_HIGH"],
        "larger than the 0 half-moves",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1.5",
        &["BAD_CHARACTER"],
        "'.'",
    ),
    // Board syntax.
    (
        "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["BAD_PIECE_LETTER"],
        "'9'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/ppp6/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["WRONG_RANK_LENGTH"],
        "rank 3 has 9 squares",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/7/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["WRONG_RANK_LENGTH"],
        "rank 3 has 7 squares",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["WRONG_RANK_COUNT"],
        "7 ranks",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["WRONG_RANK_COUNT"],
        "9 ranks",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        &["BAD_PIECE_LETTER"],
        "'X'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN~ w KQkq - 0 1",
        &["BAD_CHARACTER"],
        "'~'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        &["BAD_TURN"],
        "'w' or 'b'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1",
        &["BAD_TURN"],
        "'w' or 'b'",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
        &["BAD_EN_PASSANT"],
        "e9",
    ),
    // Position problems.
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKKNR w kq - 0 1",
        &["TOO_MANY_KINGS"],
        "white has 2 kings",
    ),
    (
        "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
        &["MISSING_KING"],
        "black has no king",
    ),
    (
        "8/8/8/8/8/8/8/8 w - - 0 1",
        &["MISSING_KING", "MISSING_KING"],
        "white has no king",
    ),
    (
        "4k3/8/8/8/8/8/8/P3K3 w - - 0 1",
        &["PAWN_ON_BACK_RANK"],
        "white pawn on a1",
    ),
    (
        "p3k3/8/8/8/8/8/8/4K3 w - - 0 1",
        &["PAWN_ON_BACK_RANK"],
        "black pawn on a8",
    ),
    (
        "4k3/pppppppp/p7/8/8/8/8/4K3 w - - 0 1",
        &["TOO_MANY_PAWNS"],
        "black has 9 pawns",
    ),
    (
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w K - 0 1",
        &[],
        "",
    ),
    (
        "4k3/8/8/8/8/8/8/4K3 w K - 0 1",
        &["CASTLING_WITHOUT_ROOK"],
        "castling right K without a white rook on h1",
    ),
    (
        "4k3/8/8/8/8/8/8/4K3 w Q - 0 1",
        &["CASTLING_WITHOUT_ROOK"],
        "castling right Q without a white rook on a1",
    ),
    (
        "r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1",
        &["CASTLING_WITHOUT_KING", "CASTLING_WITHOUT_KING"],
        "needs the white king on e1",
    ),
    (
        "4k3/8/8/8/8/8/8/4K3 w - e3 0 1",
        &["EN_PASSANT_WRONG_RANK"],
        "rank 6",
    ),
    ("4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1", &[], ""),
    (
        "4k3/8/8/8/8/8/8/4K3 b - e3 0 1",
        &["EN_PASSANT_WITHOUT_PAWN"],
        "en-passant square e3 with no white pawn on e4 that just moved",
    ),
    (
        "4k3/8/8/8/4P3/4N3/8/4K3 b - e3 0 1",
        &["EN_PASSANT_SQUARE_OCCUPIED"],
        "e3",
    ),
    (
        "4k3/8/8/8/4P3/8/4N3/4K3 b - e3 0 1",
        &["EN_PASSANT_SQUARE_OCCUPIED"],
        "e2 must be empty",
    ),
    (
        "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1",
        &["OPPOSITE_CHECK"],
        "black is in check but it is not black's turn",
    ),
    (
        "4k3/8/3N1N2/8/8/8/8/4K3 b - - 0 1",
        &["IMPOSSIBLE_CHECK"],
        "no legal last move",
    ),
    (
        "QQQQQQQQ/QQQQQQQQ/8/8/8/8/8/k3K3 w - - 0 1",
        &["TOO_MANY_PIECES", "IMPOSSIBLE_MATERIAL", "OPPOSITE_CHECK"],
        "white has 17 pieces",
    ),
    ("4k3/8/8/8/8/8/PPPPPPP1/QQ2K3 w - - 0 1", &[], ""),
    (
        "4k3/8/8/8/8/8/PPPPPPP1/QQQ1K3 w - - 0 1",
        &["IMPOSSIBLE_MATERIAL"],
        "promotions of its 1 missing pawns",
    ),
    // Several problems at once are all reported.
    (
        "4k3/8/8/8/8/8/8/P3K3 w K e3 0 1",
        &[
            "PAWN_ON_BACK_RANK",
            "CASTLING_WITHOUT_ROOK",
            "EN_PASSANT_WRONG_RANK",
        ],
        "pawn on a1",
    ),
];

#[test]
fn every_bad_fen_is_rejected_with_its_reason() {
    let mut failures = Vec::new();
    for &(fen, codes, phrase) in BAD {
        match Chess::from_fen(fen) {
            Ok(_) if codes.is_empty() => {}
            Ok(_) => failures.push(format!("{fen:?}: accepted, expected {codes:?}")),
            Err(err) => {
                let got: Vec<_> = err.problems.iter().map(FenProblem::code).collect();
                let message = err.problems[0].to_string();
                if got != codes || !message.contains(phrase) {
                    failures.push(format!(
                        "{fen:?}: got {got:?} ({err}), expected {codes:?} containing {phrase:?}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn valid_fens_round_trip_in_standard_form() {
    for fen in [
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "4k3/8/8/8/8/8/8/4K3 b - - 99 80",
    ] {
        assert_eq!(Chess::from_fen(fen).expect(fen).fen(), fen);
    }
    // Surrounding whitespace is forgiven.
    assert_eq!(
        Chess::from_fen(&format!("  {START}\n")).unwrap().fen(),
        START
    );
    // An en-passant square without a legal capture is dropped on output, as
    // python-chess writes it.
    let pos =
        Chess::from_fen("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1").unwrap();
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
}

#[test]
fn hostile_input_never_panics() {
    let long = "8/".repeat(100);
    let inputs = [
        "\u{0}",
        "/",
        "////////",
        "8/8/8/8/8/8/8/8",
        "é",
        "K",
        &long,
        "🀄 w - - 0 1",
        "8/8/8/8/8/8/8/8 w - - 0 1 ",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq a0 0 1",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 4294967295",
        "kkkkkkkk/kkkkkkkk/8/8/8/8/KKKKKKKK/KKKKKKKK w KQkq - 0 1",
    ];
    for input in inputs {
        let _ = Chess::from_fen(input);
    }
}
