//! Strict xiangqi FEN: accepted forms, and the reason code of each rejection.

use arbiter::rules::{FenProblem, Game, xiangqi::Xiangqi};

const START: &str = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1";

fn codes(fen: &str) -> Vec<&'static str> {
    match Xiangqi::from_fen(fen) {
        Ok(_) => Vec::new(),
        Err(e) => e.problems.iter().map(FenProblem::code).collect(),
    }
}

#[test]
fn accepted_forms_are_written_in_standard_form() {
    for fen in [
        START,
        "rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r - - 0 1",
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w",
        "  rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 ",
    ] {
        let pos = Xiangqi::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(pos.fen(), START, "{fen}");
    }
}

#[test]
fn rejections_have_stable_codes() {
    let table: &[(&str, &[&str])] = &[
        ("", &["EMPTY"]),
        (&"9/".repeat(100), &["TOO_LONG"]),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1[]",
            &["BAD_CHARACTER"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR_w_-_-_0_1",
            &["BAD_SEPARATOR"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR  w - - 0 1",
            &["BAD_SEPARATOR"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0",
            &["WRONG_FIELD_COUNT"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1",
            &["WRONG_RANK_COUNT"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1",
            &["WRONG_RANK_LENGTH"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/8/RNBAKABNR w - - 0 1",
            &["WRONG_RANK_LENGTH"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/45/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
            &["CONSECUTIVE_DIGITS"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNQ w - - 0 1",
            &["BAD_PIECE_LETTER"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1",
            &["BAD_TURN"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w KQ - 0 1",
            &["BAD_CASTLING"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - e3 0 1",
            &["BAD_EN_PASSANT"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - -1 1",
            &["BAD_HALFMOVE_CLOCK"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 0",
            &["BAD_FULLMOVE_NUMBER"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 99999",
            &["BAD_FULLMOVE_NUMBER"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 5 2",
            &["HALFMOVE_CLOCK_TOO_HIGH"],
        ),
        (
            "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1",
            &["MISSING_GENERAL"],
        ),
        ("3kk4/9/9/9/9/9/9/9/9/3K5 w - - 0 1", &["TOO_MANY_GENERALS"]),
        (
            "9/9/9/9/9/9/9/9/9/9 w - - 0 1",
            &["MISSING_GENERAL", "MISSING_GENERAL"],
        ),
        (
            "3k5/9/9/9/9/9/9/9/9/2K6 w - - 0 1",
            &["GENERAL_OUTSIDE_PALACE"],
        ),
        (
            "3k5/9/9/9/9/9/9/4A4/9/4K4 w - - 0 1",
            &["ADVISOR_UNREACHABLE_POINT"],
        ),
        (
            "3k5/9/9/9/9/9/9/9/4A4/3AKA3 w - - 0 1",
            &["TOO_MANY_PIECES"],
        ),
        (
            "3k5/9/9/9/9/4B4/9/9/9/4K4 w - - 0 1",
            &["ELEPHANT_UNREACHABLE_POINT"],
        ),
        (
            "3k5/9/9/9/2B6/9/9/9/9/4K4 w - - 0 1",
            &["ELEPHANT_UNREACHABLE_POINT"],
        ),
        (
            "3k5/9/9/9/9/9/1P7/9/9/4K4 w - - 0 1",
            &["SOLDIER_UNREACHABLE_POINT"],
        ),
        (
            "3k5/9/9/9/9/9/9/P8/9/4K4 w - - 0 1",
            &["SOLDIER_UNREACHABLE_POINT"],
        ),
        ("3k5/9/9/9/1P7/9/9/9/9/4K4 w - - 0 1", &[]),
        (
            "3k5/9/9/9/9/9/PPPPPP3/9/9/4K4 w - - 0 1",
            &[
                "TOO_MANY_PIECES",
                "SOLDIER_UNREACHABLE_POINT",
                "SOLDIER_UNREACHABLE_POINT",
                "SOLDIER_UNREACHABLE_POINT",
            ],
        ),
        ("3k5/9/9/9/9/9/9/9/9/RRR1K4 w - - 0 1", &["TOO_MANY_PIECES"]),
        ("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &["GENERALS_FACING"]),
        ("4k4/9/9/9/9/9/9/9/9/4RK3 b - - 0 1", &[]),
        ("3k5/9/9/9/9/9/9/9/9/3RK4 b - - 0 1", &[]),
        ("3k5/9/9/9/9/9/9/9/9/3RK4 w - - 0 1", &["OPPOSITE_CHECK"]),
        (
            "4k4/9/9/9/9/9/9/9/9/2K1AA1A1 w - - 0 1",
            &[
                "GENERAL_OUTSIDE_PALACE",
                "TOO_MANY_PIECES",
                "ADVISOR_UNREACHABLE_POINT",
                "ADVISOR_UNREACHABLE_POINT",
            ],
        ),
    ];
    for (fen, expected) in table {
        assert_eq!(codes(fen), *expected, "{fen}");
    }
}

#[test]
fn every_problem_is_explained() {
    let err = Xiangqi::from_fen("4k4/9/9/9/9/9/9/9/9/2K1AA1A1 w - - 0 1").unwrap_err();
    let text = err.to_string();
    assert!(text.contains("the red general on c0"), "{text}");
    assert!(text.contains("red has 3 advisors"), "{text}");
}
