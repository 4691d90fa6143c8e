//! Perpetual chase through the API: GetOutcome, a played game and its PGN
//! report it with the chasing and the chased piece.

mod common;

use arbiter::api::proto as pb;
use common::{TestServer, create_game, export, get_game, play};

/// Black's chariot chases the horse its general cannot protect.
const FEN: &str = "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1";
const MOVES: [&str; 8] = [
    "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
];
const DESCRIPTION: &str =
    "red won by perpetual chase: Black's chariot chased the unprotected horse on d0";

#[tokio::test]
async fn a_perpetual_chase_ends_the_game_and_is_reported() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let outcome = rules
        .get_outcome(pb::GetOutcomeRequest {
            position: Some(pb::Position {
                variant: pb::Variant::Xiangqi as i32,
                fen: FEN.into(),
                moves: MOVES.iter().map(|m| (*m).to_owned()).collect(),
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .outcome
        .unwrap();
    assert_eq!(outcome.termination, pb::Termination::PerpetualChase as i32);
    assert_eq!(outcome.winner, pb::Side::White as i32);
    assert_eq!(outcome.description, DESCRIPTION);

    let mut games = server.games().await;
    let created = create_game(&mut games, pb::Variant::Xiangqi, Some(FEN), "Red", "Black").await;
    let id = created.game.unwrap().id;
    for (ply, m) in MOVES.iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        play(&mut games, &id, token, m).await;
    }
    let game = get_game(&mut games, &id).await;
    let outcome = game.outcome.unwrap();
    assert_eq!(outcome.status, pb::OutcomeStatus::Decisive as i32);
    assert_eq!(outcome.termination, pb::Termination::PerpetualChase as i32);
    assert_eq!(outcome.description, DESCRIPTION);

    let pgn = export(&mut games, &id, pb::PgnNotation::Unspecified).await;
    assert!(pgn.contains("1-0"), "{pgn}");
    assert!(pgn.contains(DESCRIPTION), "{pgn}");
    server.stop().await;
}
