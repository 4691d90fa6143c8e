//! The openings dataset against Arbiter's chess rules: every named line,
//! replayed here, reaches the position python-chess wrote for it
//! (`tools/gen_openings.py`), and is named by it.

use arbiter::rules::{
    Game, Record,
    chess::{Chess, openings},
};

#[test]
fn every_named_line_reaches_its_position_and_is_named_by_it() {
    let mut failures = Vec::new();
    let mut lines = 0;
    for (position, opening) in openings::all() {
        lines += 1;
        let record = match Record::replay(Chess::start(), opening.uci.split_whitespace()) {
            Ok(record) => record,
            Err(error) => {
                failures.push(format!("{}: {error:?}", opening.name));
                continue;
            }
        };
        let fens: Vec<String> = record.positions()[1..].iter().map(Game::fen).collect();
        let reached = openings::position_key(fens.last().expect("a move"));
        if reached != position {
            failures.push(format!("{}: {reached} is not {position}", opening.name));
            continue;
        }
        let named = openings::opening_of(fens.iter().map(String::as_str));
        if named.map(|o| openings::named(&reached) == Some(o)) != Some(true) {
            failures.push(format!("{} is named {named:?}", opening.name));
        }
    }
    assert!(lines > 3000, "the dataset has {lines} lines");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_transposition_is_named_as_the_line() {
    let name = |moves: &[&str]| {
        let record = Record::replay(Chess::start(), moves.iter().copied()).unwrap();
        let fens: Vec<String> = record.positions()[1..].iter().map(Game::fen).collect();
        openings::opening_of(fens.iter().map(String::as_str)).map(|o| (o.eco, o.name))
    };
    let queens_gambit = name(&["d4", "d5", "c4", "e6", "Nc3"]);
    assert_eq!(queens_gambit, name(&["c4", "e6", "Nc3", "d5", "d4"]));
    assert_eq!(
        queens_gambit.map(|(eco, _)| &eco[..1]),
        Some("D"),
        "{queens_gambit:?}"
    );
    assert_eq!(
        name(&["a3", "a6", "h3", "h6", "Ra2", "Ra7"]).map(|o| o.0),
        Some("A00")
    );
}
