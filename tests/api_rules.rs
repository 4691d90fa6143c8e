//! The Rules service end to end through the real server.

mod common;

use arbiter::api::proto::{self as pb};
use common::TestServer;
use tonic::Code;
use tonic_types::StatusExt;

fn chess(fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: pb::Variant::Chess as i32,
        fen: fen.to_owned(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
    })
}

#[tokio::test]
async fn rules_answer_and_explain() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;

    let legal = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess("", &[]),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(legal.moves.len(), 20);
    assert!(
        legal
            .moves
            .iter()
            .any(|m| m.uci == "g1f3" && m.san == "Nf3")
    );
    assert!(legal.uci_moves.is_empty());

    // Coordinates only: the same moves, in the same order.
    let compact = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess("", &[]),
            detail: pb::MoveDetail::Uci as i32,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(compact.moves.is_empty());
    let full: Vec<&str> = legal.moves.iter().map(|m| m.uci.as_str()).collect();
    assert_eq!(compact.uci_moves, full);
    assert_eq!((compact.fen, compact.turn), (legal.fen, legal.turn));
    let status = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess("", &[]),
            detail: 99,
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument);

    let v = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1", &[]),
            r#move: "Nc3".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!v.legal);
    assert_eq!(v.reason, pb::IllegalReason::OwnKingInCheck as i32);
    assert!(v.message.contains("black rook on e7"), "{}", v.message);

    let v = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess("", &["f3", "e5", "g4"]),
            r#move: "Qh4".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(v.legal);
    let outcome = v.outcome_after.unwrap();
    assert_eq!(outcome.termination, pb::Termination::Checkmate as i32);
    assert_eq!(outcome.winner, pb::Side::Black as i32);
    assert_eq!(v.r#move.unwrap().san, "Qh4#");

    let o = rules
        .get_outcome(pb::GetOutcomeRequest {
            position: chess(
                "",
                &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"],
            ),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(o.repetitions, 3);
    assert_eq!(
        o.outcome.unwrap().claimable_draws,
        [pb::DrawClaim::ThreefoldRepetition as i32]
    );

    let bad = rules
        .validate_position(pb::ValidatePositionRequest {
            position: chess("8/8/8/8/8/8/8/8 w - - 0 1", &[]),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!bad.valid);
    assert_eq!(bad.problems[0].code, "MISSING_KING");

    let err = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess(
                "rnbqkbnr/pppppppp/8/8/8/ppp6/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                &[],
            ),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let details = err.get_error_details();
    let violations = &details
        .bad_request()
        .expect("bad request details")
        .field_violations;
    assert!(
        violations[0].description.contains("rank 3 has 9 squares"),
        "{violations:?}"
    );

    let err = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess("", &[]),
            r#move: "hello".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);

    let err = rules
        .legal_moves(pb::LegalMovesRequest {
            position: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    let err = rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: 0,
                fen: String::new(),
                moves: vec![],
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    server.stop().await;
}

#[tokio::test]
async fn xiangqi_through_the_same_api() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let position = |moves: &[&str]| {
        Some(pb::Position {
            variant: pb::Variant::Xiangqi as i32,
            fen: String::new(),
            moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        })
    };
    let legal = rules
        .legal_moves(pb::LegalMovesRequest {
            position: position(&[]),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(legal.moves.len(), 44);
    let cannon = legal
        .moves
        .iter()
        .find(|m| m.uci == "h2e2")
        .expect("central cannon");
    assert_eq!(
        (cannon.san.as_str(), cannon.chinese.as_str()),
        ("C2.5", "炮二平五")
    );

    // ICCS, WXF and Chinese are all accepted as history and as the move.
    let v = rules
        .validate_move(pb::ValidateMoveRequest {
            position: position(&["炮二平五", "h9g7"]),
            r#move: "H2+3".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(v.legal, "{}", v.message);
    assert_eq!(v.r#move.unwrap().uci, "h0g2");

    let v = rules
        .validate_move(pb::ValidateMoveRequest {
            position: position(&[]),
            r#move: "c3b3".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!v.legal);
    assert_eq!(
        v.reason,
        pb::IllegalReason::SoldierCannotMoveThatWay as i32,
        "{}",
        v.message
    );
    server.stop().await;
}
