//! Xiangqi game ends against Fairy-Stockfish's own test cases
//! (tests/fixtures/xiangqi/*_fsf.json, copied from the shared reference data).

use arbiter::rules::{Game, GameEnd, Record, Side, Termination, xiangqi::Xiangqi};
use serde::Deserialize;

#[derive(Deserialize)]
struct Cases<T> {
    cases: Vec<T>,
}

#[derive(Deserialize)]
struct Repetition {
    src_line: u32,
    comment: String,
    fen: String,
    moves: Vec<String>,
    expected_end: bool,
    expected_value_side_to_move: Option<String>,
}

#[derive(Deserialize)]
struct Material {
    fen: String,
    comment: String,
    expected_insufficient_red_black: [bool; 2],
}

/// Fairy-Stockfish coordinates (ranks 1-10) to ICCS (ranks 0-9).
fn iccs(fsf: &str) -> String {
    let (file, rest) = fsf.split_at(1);
    let split = rest.find(|c: char| c.is_ascii_alphabetic()).unwrap();
    let (from_rank, rest) = rest.split_at(split);
    let (to_file, to_rank) = rest.split_at(1);
    let rank = |r: &str| r.parse::<u8>().unwrap() - 1;
    format!("{file}{}{to_file}{}", rank(from_rank), rank(to_rank))
}

/// Perpetual-chase cases (Fairy-Stockfish test.py source lines) whose
/// expected winner depends on the chase rule, which is not implemented yet:
/// no side checks on every move there, so we judge them drawn. (Several are
/// labelled "Perpetual check by soldier" in test.py but contain no check:
/// the label covers a block of lines.) The chase cases expected to be drawn
/// (1166, 1170, 1184-1187, 1191, 1207, 1211, 1215) do run: they pass today
/// only because no chase is detected, and guard a future chase rule against
/// false positives.
const CHASE_NOT_HANDLED: &[u32] = &[
    1160, 1162, 1164, 1168, 1175, 1176, 1177, 1178, 1179, 1180, 1181, 1193, 1195, 1197, 1199, 1201,
    1203, 1205, 1209, 1213,
];

#[test]
fn repetition_rules_match_fairy_stockfish() {
    let text = include_str!("fixtures/xiangqi/repetition_rules_fsf.json");
    let cases: Cases<Repetition> = serde_json::from_str(text).unwrap();
    let (mut checked, mut skipped) = (0, 0);
    for case in cases.cases {
        if CHASE_NOT_HANDLED.contains(&case.src_line) {
            skipped += 1;
            continue;
        }
        // Fairy-Stockfish writes an empty holdings suffix on some FENs.
        let fen = case.fen.replace("[]", "");
        let start = Xiangqi::from_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        let moves: Vec<String> = case.moves.iter().map(|m| iccs(m)).collect();
        let record = Record::replay(start, &moves).unwrap();
        let end = record.verdict().end;
        let turn = record.current().turn();
        let expected = match case.expected_value_side_to_move.as_deref() {
            Some("MATE") => Some(turn),
            Some("-MATE") => Some(!turn),
            _ => None,
        };
        let label = format!("line {} ({})", case.src_line, case.comment);
        assert!(case.expected_end, "{label}");
        let end = end.unwrap_or_else(|| panic!("{label}: game not over"));
        assert_eq!(end.winner, expected, "{label}: {end}");
        let repetition = [
            Termination::PerpetualCheck,
            Termination::ThreefoldRepetition,
        ];
        assert!(repetition.contains(&end.termination), "{label}: {end}");
        checked += 1;
    }
    assert_eq!((checked, skipped), (13, 20));
}

#[test]
fn insufficient_material_matches_fairy_stockfish() {
    let text = include_str!("fixtures/xiangqi/insufficient_material_fsf.json");
    let cases: Cases<Material> = serde_json::from_str(text).unwrap();
    for case in cases.cases {
        let pos = match Xiangqi::from_fen(&case.fen) {
            Ok(pos) => pos,
            Err(e) => {
                // "K vs K" has the generals facing each other: not a legal
                // position, so the strict reader refuses it.
                assert_eq!(case.comment, "K vs K", "{e}");
                continue;
            }
        };
        let got = [
            pos.has_insufficient_material(Side::White),
            pos.has_insufficient_material(Side::Black),
        ];
        assert_eq!(
            got, case.expected_insufficient_red_black,
            "{}",
            case.comment
        );
    }
}

fn end_of(fen: &str, moves: &[&str]) -> Option<GameEnd> {
    Record::replay(Xiangqi::from_fen(fen).unwrap(), moves)
        .unwrap()
        .verdict()
        .end
}

#[test]
fn mate_and_stalemate_lose() {
    // Red chariot mates on the back rank, supported by the flying general.
    assert_eq!(
        end_of("3k5/1R7/9/9/9/9/9/9/R8/4K4 w - - 0 1", &["a1a9"]),
        Some(GameEnd::win(Side::White, Termination::Checkmate))
    );
    // Black has no legal move and is not in check: Black loses.
    let stalemate = "3k5/2P6/9/9/9/9/9/9/9/4K4 b - - 0 1";
    let pos = Xiangqi::from_fen(stalemate).unwrap();
    assert!(pos.legal_moves().is_empty() && !pos.is_check());
    assert_eq!(
        end_of(stalemate, &[]),
        Some(GameEnd::win(Side::White, Termination::Stalemate))
    );
}

#[test]
fn move_limit_and_bare_generals_draw() {
    let fen = "3k5/9/9/9/9/9/9/9/9/R3K4 w - - 119 80";
    assert_eq!(end_of(fen, &[]), None);
    assert_eq!(
        end_of(fen, &["a0a1"]),
        Some(GameEnd::draw(Termination::MoveLimit))
    );
    let options = arbiter::rules::xiangqi::XiangqiOptions {
        move_limit_plies: 100,
    };
    let record = Record::with_options(
        Xiangqi::from_fen("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 100 80").unwrap(),
        options,
    );
    assert_eq!(
        record.verdict().end,
        Some(GameEnd::draw(Termination::MoveLimit))
    );
    assert_eq!(
        end_of("3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1", &[]),
        Some(GameEnd::draw(Termination::InsufficientMaterial))
    );
}
