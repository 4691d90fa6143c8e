//! The Rules service end to end through the real server.

use crate::common;

use arbiter::api::proto::{self as pb, rules_client::RulesClient};
use common::TestServer;
use tonic::{Code, transport::Channel};
use tonic_types::StatusExt;

fn position(variant: pb::Variant, fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant as i32,
        fen: fen.to_owned(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    })
}

fn chess(fen: &str, moves: &[&str]) -> Option<pb::Position> {
    position(pb::Variant::Chess, fen, moves)
}

/// The legal moves of `position` at `detail`; the call must succeed.
async fn legal_moves(
    rules: &mut RulesClient<Channel>,
    position: Option<pb::Position>,
    detail: pb::MoveDetail,
) -> pb::LegalMovesResponse {
    rules
        .legal_moves(pb::LegalMovesRequest {
            position,
            detail: detail as i32,
        })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn rules_answer_and_explain() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;

    let legal = legal_moves(&mut rules, chess("", &[]), pb::MoveDetail::Unspecified).await;
    assert_eq!(legal.moves.len(), 20);
    assert!(
        legal
            .moves
            .iter()
            .any(|m| m.uci == "g1f3" && m.san == "Nf3")
    );
    assert!(legal.uci_moves.is_empty());

    // Coordinates only: the same moves, in the same order.
    let compact = legal_moves(&mut rules, chess("", &[]), pb::MoveDetail::Uci).await;
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
    assert_eq!(
        common::code_and_reason(&status),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".to_owned())
    );

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
            ..Default::default()
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
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "INVALID_FEN".to_owned())
    );
    let details = err.get_error_details();
    let violations = &details
        .bad_request()
        .expect("bad request details")
        .field_violations;
    assert!(
        violations[0].description.contains("rank 3 has 9 squares"),
        "{violations:?}"
    );
    assert_eq!(violations[0].reason, "WRONG_RANK_LENGTH", "{violations:?}");

    let err = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess("", &[]),
            r#move: "hello".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "UNPARSABLE_MOVE".to_owned())
    );

    let err = rules
        .legal_moves(pb::LegalMovesRequest {
            position: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "MISSING_FIELD".to_owned())
    );
    let err = rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: 0,
                fen: String::new(),
                moves: vec![],
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::InvalidArgument, "MISSING_VARIANT".to_owned())
    );
    server.stop().await;
}

#[tokio::test]
async fn xiangqi_through_the_same_api() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let position = |moves: &[&str]| position(pb::Variant::Xiangqi, "", moves);
    let legal = legal_moves(&mut rules, position(&[]), pb::MoveDetail::Unspecified).await;
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

/// The three detail levels of LegalMoves list the same moves in the same
/// order, each in its own field, and nothing once the game is over.
#[tokio::test]
async fn every_detail_level_lists_the_same_moves() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let positions = [
        position(
            pb::Variant::Chess,
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            &["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"],
        ),
        // Promotions, castling both ways and en passant.
        position(
            pb::Variant::Chess,
            "r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1",
            &[],
        ),
        position(pb::Variant::Xiangqi, "", &["h2e2", "h9g7"]),
    ];
    for position in positions {
        let full = legal_moves(&mut rules, position.clone(), pb::MoveDetail::Full).await;
        let list = legal_moves(&mut rules, position.clone(), pb::MoveDetail::Uci).await;
        let text = legal_moves(&mut rules, position, pb::MoveDetail::UciText).await;
        let expected: Vec<&str> = full.moves.iter().map(|m| m.uci.as_str()).collect();
        assert!(expected.len() > 20, "{expected:?}");
        assert_eq!(list.uci_moves, expected);
        assert_eq!(text.uci_text.split(' ').collect::<Vec<_>>(), expected);
        assert!(full.uci_moves.is_empty() && full.uci_text.is_empty());
        assert!(list.moves.is_empty() && list.uci_text.is_empty());
        assert!(text.moves.is_empty() && text.uci_moves.is_empty());
        for other in [&list, &text] {
            assert_eq!(
                (&other.fen, other.turn, other.is_check, &other.outcome),
                (&full.fen, full.turn, full.is_check, &full.outcome)
            );
        }
    }

    let mated = legal_moves(
        &mut rules,
        chess("", &["f3", "e5", "g4", "Qh4"]),
        pb::MoveDetail::UciText,
    )
    .await;
    assert!(mated.uci_text.is_empty());
    assert_eq!(
        mated.outcome.unwrap().termination,
        pb::Termination::Checkmate as i32
    );
    server.stop().await;
}

/// Requests over the size limit (64 KiB) or the history limit (2,000 moves)
/// are refused with a status that says so: on LegalMoves, which has its own
/// route, as on the generated methods.
#[tokio::test]
async fn requests_over_the_limits_are_refused() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let huge = "x".repeat(arbiter::server::DEFAULT_MAX_REQUEST_BYTES + 1);
    let status = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess(&huge, &[]),
            detail: pb::MoveDetail::Full as i32,
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::ResourceExhausted, "REQUEST_TOO_LARGE".to_owned())
    );
    assert!(
        status.message().contains("at most 65536 bytes"),
        "{status:?}"
    );
    let generated = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess(&huge, &[]),
            r#move: "e4".to_owned(),
        })
        .await
        .unwrap_err();
    assert_eq!(generated.code(), status.code(), "{generated:?}");

    let long: Vec<&str> = ["Nf3", "Nf6", "Ng1", "Ng8"].repeat(501);
    let status = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess("", &long),
            detail: pb::MoveDetail::Full as i32,
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::InvalidArgument, "TOO_LONG".to_owned())
    );
    assert!(
        status.message().contains("at most 2000 moves"),
        "{status:?}"
    );
    // The connection still serves.
    let legal = legal_moves(&mut rules, chess("", &long[..4]), pb::MoveDetail::Full).await;
    assert_eq!(legal.moves.len(), 20);
    server.stop().await;
}

/// Clients that compress their requests with gzip are served, on
/// `LegalMoves`' own route as on the generated methods.
#[tokio::test]
async fn gzip_compressed_requests_are_served() {
    let server = TestServer::start().await;
    let mut rules = RulesClient::new(server.channel().await)
        .send_compressed(tonic::codec::CompressionEncoding::Gzip);
    let legal = legal_moves(&mut rules, chess("", &["e4"]), pb::MoveDetail::Full).await;
    assert_eq!(legal.moves.len(), 20);
    let valid = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess("", &[]),
            r#move: "e4".to_owned(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(valid.legal);
    server.stop().await;
}

/// Knights out and back four times: the start position a fifth time, which
/// ends a chess game.
const FIVEFOLD: [&str; 16] = [
    "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "Nf3",
    "Nf6", "Ng1", "Ng8",
];

/// Positions the rules have ended list their moves, at every detail, with
/// the outcome beside them; playing one stays refused, in Rules as in a
/// game.
#[tokio::test]
async fn legal_moves_of_positions_the_rules_have_ended() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let cases = [
        (
            chess("8/8/4k3/8/8/3K4/8/8 w - - 0 1", &[]),
            8,
            pb::Termination::InsufficientMaterial,
        ),
        (
            chess("", &FIVEFOLD),
            20,
            pb::Termination::FivefoldRepetition,
        ),
        (
            position(
                pb::Variant::Xiangqi,
                "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1",
                &[],
            ),
            2,
            pb::Termination::InsufficientMaterial,
        ),
        // A mate has no moves to list.
        (
            chess("", &["f3", "e5", "g4", "Qh4"]),
            0,
            pb::Termination::Checkmate,
        ),
    ];
    for (position, count, termination) in cases {
        let full = legal_moves(&mut rules, position.clone(), pb::MoveDetail::Full).await;
        let list = legal_moves(&mut rules, position.clone(), pb::MoveDetail::Uci).await;
        let text = legal_moves(&mut rules, position.clone(), pb::MoveDetail::UciText).await;
        let outcome = full.outcome.as_ref().unwrap();
        assert_eq!(outcome.termination, termination as i32, "{position:?}");
        assert_ne!(outcome.status, pb::OutcomeStatus::Ongoing as i32);
        let uci: Vec<&str> = full.moves.iter().map(|m| m.uci.as_str()).collect();
        assert_eq!(uci.len(), count, "{position:?}: {uci:?}");
        assert_eq!(list.uci_moves, uci);
        assert_eq!(text.uci_text.split_terminator(' ').collect::<Vec<_>>(), uci);
        for other in [&list, &text] {
            assert_eq!(other.outcome, full.outcome);
        }
        // The rules refuse to play on: ValidateMove says why, a history
        // cannot go past the end.
        let Some(first) = uci.first() else { continue };
        let v = rules
            .validate_move(pb::ValidateMoveRequest {
                position: position.clone(),
                r#move: (*first).to_owned(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(
            (v.legal, v.reason),
            (false, pb::IllegalReason::GameOver as i32)
        );
        let mut past = position.clone().unwrap();
        past.moves.push((*first).to_owned());
        let err = rules
            .legal_moves(pb::LegalMovesRequest {
                position: Some(past),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::InvalidArgument);
    }

    // A game ended by the fivefold repetition refuses the moves listed.
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    for (ply, text) in FIVEFOLD.into_iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(&mut games, &id, token, text).await;
    }
    let err = games
        .make_move(pb::MakeMoveRequest {
            game_id: id,
            seat_token: created.white_token.clone(),
            r#move: "e4".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::FailedPrecondition, "GAME_OVER".to_owned())
    );
    server.stop().await;
}

/// GetOutcome with a move judges the position after it as ClaimDraw with
/// that move does: of Black's moves after 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6
/// 4. Ng1, only Ng8 (the start a third time) lets a draw be claimed.
#[tokio::test]
async fn get_outcome_with_a_move_judges_as_claim_draw() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let history = &FIVEFOLD[..7];
    let outcome_with = |m: &str| pb::GetOutcomeRequest {
        position: chess("", history),
        r#move: m.to_owned(),
    };
    let legal = legal_moves(&mut rules, chess("", history), pb::MoveDetail::Uci).await;
    let mut claimable = Vec::new();
    for m in &legal.uci_moves {
        let o = rules
            .get_outcome(outcome_with(m))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(o.r#move.as_ref().unwrap().uci, *m);
        if !o.outcome.unwrap().claimable_draws.is_empty() {
            claimable.push(m.clone());
        }
    }
    assert_eq!(claimable, ["f6g8"]);
    let o = rules
        .get_outcome(outcome_with("Ng8"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(o.repetitions, 3);
    assert_eq!(
        o.fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5"
    );
    assert_eq!(o.r#move.unwrap().san, "Ng8");
    // Without a move: the position as it stands, no move in the answer.
    let now = rules
        .get_outcome(outcome_with(""))
        .await
        .unwrap()
        .into_inner();
    assert!(now.r#move.is_none() && now.outcome.unwrap().claimable_draws.is_empty());

    // Moves the position refuses come with their reason, whose code says
    // whether the text or the position is at fault.
    for (history, m, code, reason) in [
        (
            history,
            "e8e7",
            Code::FailedPrecondition,
            "OWN_PIECE_ON_DESTINATION",
        ),
        (history, "hello", Code::InvalidArgument, "UNPARSABLE_MOVE"),
        (&FIVEFOLD[..], "e4", Code::FailedPrecondition, "GAME_OVER"),
    ] {
        let err = rules
            .get_outcome(pb::GetOutcomeRequest {
                position: chess("", history),
                r#move: m.to_owned(),
            })
            .await
            .unwrap_err();
        assert_eq!(
            common::code_and_reason(&err),
            (code, reason.to_owned()),
            "{m}: {err:?}"
        );
    }

    // The game agrees: Nc6 founds no claim, Ng8 does and is played.
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    for (ply, text) in history.iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(&mut games, &id, token, text).await;
    }
    let claim = |m: &str| pb::ClaimDrawRequest {
        game_id: id.clone(),
        seat_token: created.black_token.clone(),
        r#move: m.to_owned(),
        ..Default::default()
    };
    let err = games.claim_draw(claim("Nc6")).await.unwrap_err();
    assert_eq!(
        common::code_and_reason(&err),
        (Code::FailedPrecondition, "NO_DRAW_TO_CLAIM".to_owned())
    );
    let drawn = games.claim_draw(claim("Ng8")).await.unwrap().into_inner();
    let game = drawn.game.unwrap();
    assert_eq!(drawn.r#move.unwrap().r#move.unwrap().san, "Ng8");
    assert_eq!((game.ply, game.moves.len()), (8, 0), "a basic answer");
    assert_eq!(game.fen, o.fen);
    assert_eq!(
        game.outcome.unwrap().termination,
        pb::Termination::ThreefoldRepetition as i32
    );
    server.stop().await;
}

/// Every described move has its game-neutral notation names, the same text
/// as the older ones: coordinates (UCI / ICCS) and standard (SAN / WXF),
/// in LegalMoves as in a played move.
#[tokio::test]
async fn moves_carry_game_neutral_notation_names() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let mut games = server.games().await;
    for (variant, first) in [(pb::Variant::Chess, "e4"), (pb::Variant::Xiangqi, "C2.5")] {
        let legal = legal_moves(
            &mut rules,
            position(variant, "", &[]),
            pb::MoveDetail::Unspecified,
        )
        .await;
        assert!(!legal.moves.is_empty());
        for m in &legal.moves {
            assert!(!m.coordinates.is_empty() && !m.standard.is_empty(), "{m:?}");
            assert_eq!((&m.coordinates, &m.standard), (&m.uci, &m.san));
        }
        let created = common::create_game(&mut games, variant, None, "", "").await;
        let answer = games
            .make_move(pb::MakeMoveRequest {
                game_id: created.game.unwrap().id,
                seat_token: created.white_token,
                r#move: first.into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let played = answer.r#move.unwrap().r#move.unwrap();
        assert_eq!(played.standard, first);
        let expected = if variant == pb::Variant::Chess {
            "e2e4"
        } else {
            "h2e2"
        };
        assert_eq!(
            (played.coordinates.as_str(), played.uci.as_str()),
            (expected, expected)
        );
        assert_eq!(played.san, first);
    }
    server.stop().await;
}
