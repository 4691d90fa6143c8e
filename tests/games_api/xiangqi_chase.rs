//! Perpetual chase through the API: GetOutcome, a played game and its PGN
//! report it with the chasing and the chased piece; the rule sets
//! (`XiangqiRules`) of requests, games and imports are followed.

use crate::common;

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::{TestServer, code_and_reason, create_game, export, get_game, play, seat};
use tonic::{Code, transport::Channel};

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
                ..Default::default()
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

/// The chase's position after `plies` of its moves, under `rules`.
fn chase_position(plies: usize, rules: pb::XiangqiRules) -> Option<pb::Position> {
    Some(pb::Position {
        variant: pb::Variant::Xiangqi as i32,
        fen: FEN.into(),
        moves: MOVES[..plies].iter().map(|m| (*m).to_owned()).collect(),
        xiangqi_rules: rules as i32,
    })
}

/// A xiangqi game from the chase's start under `rules`, with both seat
/// tokens.
async fn chase_game(
    games: &mut GamesClient<Channel>,
    rules: pb::XiangqiRules,
) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Xiangqi as i32,
            start: Some(pb::create_game_request::Start::Fen(FEN.into())),
            white: seat("Red"),
            black: seat("Black"),
            xiangqi_rules: rules as i32,
            ..Default::default()
        })
        .await
        .expect("game created")
        .into_inner()
}

/// Plays the chase's first `plies` moves in the game.
async fn play_chase(
    games: &mut GamesClient<Channel>,
    created: &pb::CreateGameResponse,
    plies: usize,
) {
    let id = &created.game.as_ref().unwrap().id;
    for (ply, m) in MOVES[..plies].iter().enumerate() {
        let token = if ply % 2 == 0 {
            &created.white_token
        } else {
            &created.black_token
        };
        play(games, id, token, m).await;
    }
}

/// The legal moves listed at every detail, each as coordinates.
async fn listed(
    rules: &mut pb::rules_client::RulesClient<Channel>,
    position: Option<pb::Position>,
) -> [Vec<String>; 3] {
    let answer = |detail: pb::MoveDetail| {
        let request = pb::LegalMovesRequest {
            position: position.clone(),
            detail: detail as i32,
        };
        let mut rules = rules.clone();
        async move { rules.legal_moves(request).await.unwrap().into_inner() }
    };
    let full = answer(pb::MoveDetail::Full).await;
    let uci = answer(pb::MoveDetail::Uci).await;
    let text = answer(pb::MoveDetail::UciText).await;
    [
        full.moves.into_iter().map(|m| m.uci).collect(),
        uci.uci_moves,
        text.uci_text.split(' ').map(str::to_owned).collect(),
    ]
}

#[tokio::test]
async fn repetition_draws_rules_call_the_chase_a_draw() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let outcome = rules
        .get_outcome(pb::GetOutcomeRequest {
            position: chase_position(MOVES.len(), pb::XiangqiRules::RepetitionDraws),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .outcome
        .unwrap();
    assert_eq!(outcome.status, pb::OutcomeStatus::Drawn as i32);
    assert_eq!(
        outcome.termination,
        pb::Termination::ThreefoldRepetition as i32
    );

    let mut games = server.games().await;
    let created = chase_game(&mut games, pb::XiangqiRules::RepetitionDraws).await;
    let game = created.game.as_ref().unwrap();
    assert_eq!(game.xiangqi_rules, pb::XiangqiRules::RepetitionDraws as i32);
    play_chase(&mut games, &created, MOVES.len()).await;
    let game = get_game(&mut games, &game.id).await;
    assert_eq!(game.xiangqi_rules, pb::XiangqiRules::RepetitionDraws as i32);
    let outcome = game.outcome.unwrap();
    assert_eq!(outcome.status, pb::OutcomeStatus::Drawn as i32);
    assert_eq!(
        outcome.termination,
        pb::Termination::ThreefoldRepetition as i32
    );
    let pgn = export(&mut games, &game.id, pb::PgnNotation::Unspecified).await;
    assert!(pgn.contains("1/2-1/2"), "{pgn}");
    server.stop().await;
}

#[tokio::test]
async fn refusing_rules_refuse_the_move_that_completes_the_chase() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let completing = MOVES[MOVES.len() - 1];
    let before = MOVES.len() - 1;

    // Under Asian rules the move is legal, and loses.
    for moves in listed(
        &mut rules,
        chase_position(before, pb::XiangqiRules::Unspecified),
    )
    .await
    {
        assert!(moves.iter().any(|m| m == completing), "{moves:?}");
    }
    let asian = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chase_position(before, pb::XiangqiRules::Asian),
            r#move: completing.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(asian.legal);
    assert_eq!(
        asian.outcome_after.unwrap().termination,
        pb::Termination::PerpetualChase as i32
    );

    // Refusing, it is neither listed nor valid, and the other moves are.
    let refusing = chase_position(before, pb::XiangqiRules::AsianRefusing);
    let [full, uci, text] = listed(&mut rules, refusing.clone()).await;
    assert!(!full.iter().any(|m| m == completing), "{full:?}");
    assert!(!full.is_empty());
    assert_eq!(uci, full);
    assert_eq!(text, full);
    let answer = rules
        .validate_move(pb::ValidateMoveRequest {
            position: refusing.clone(),
            r#move: completing.into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!answer.legal);
    assert_eq!(answer.reason, pb::IllegalReason::PerpetualChase as i32);
    assert!(
        answer.message.contains("perpetual chase") && answer.message.contains("horse"),
        "{}",
        answer.message
    );
    let other = rules
        .validate_move(pb::ValidateMoveRequest {
            position: refusing,
            r#move: full[0].clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(other.legal, "{other:?}");

    // A history that plays the refused move is no position under them.
    let status = rules
        .get_outcome(pb::GetOutcomeRequest {
            position: chase_position(MOVES.len(), pb::XiangqiRules::AsianRefusing),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "INVALID_MOVES".to_owned())
    );

    // A game under them refuses it too, and goes on.
    let mut games = server.games().await;
    let created = chase_game(&mut games, pb::XiangqiRules::AsianRefusing).await;
    let id = created.game.as_ref().unwrap().id.clone();
    play_chase(&mut games, &created, before).await;
    let status = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: created.black_token.clone(),
            r#move: completing.into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::FailedPrecondition, "PERPETUAL_CHASE".to_owned())
    );
    let game = get_game(&mut games, &id).await;
    assert_eq!(game.xiangqi_rules, pb::XiangqiRules::AsianRefusing as i32);
    assert_eq!(game.ply as usize, before);
    assert_eq!(
        game.outcome.unwrap().status,
        pb::OutcomeStatus::Ongoing as i32
    );
    play(&mut games, &id, &created.black_token, &full[0]).await;
    server.stop().await;
}

#[tokio::test]
async fn games_show_their_rules_and_imports_follow_theirs() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let xiangqi = create_game(&mut games, pb::Variant::Xiangqi, None, "Red", "Black").await;
    assert_eq!(
        xiangqi.game.unwrap().xiangqi_rules,
        pb::XiangqiRules::Asian as i32
    );
    let chess = create_game(&mut games, pb::Variant::Chess, None, "White", "Black").await;
    assert_eq!(
        chess.game.unwrap().xiangqi_rules,
        pb::XiangqiRules::Unspecified as i32
    );

    // An unfinished record of the chase: its end follows the rules asked.
    let pgn = format!(
        "[Variant \"xiangqi\"]\n[SetUp \"1\"]\n[FEN \"{FEN}\"]\n\n{} *",
        MOVES.join(" ")
    );
    for (rules, termination) in [
        (
            pb::XiangqiRules::Unspecified,
            pb::Termination::PerpetualChase,
        ),
        (
            pb::XiangqiRules::RepetitionDraws,
            pb::Termination::ThreefoldRepetition,
        ),
    ] {
        let game = games
            .import_game(pb::ImportGameRequest {
                pgn: pgn.clone(),
                xiangqi_rules: rules as i32,
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap();
        let shown = match rules {
            pb::XiangqiRules::Unspecified => pb::XiangqiRules::Asian,
            rules => rules,
        };
        assert_eq!(game.xiangqi_rules, shown as i32);
        assert_eq!(game.outcome.unwrap().termination, termination as i32);
        let stored = get_game(&mut games, &game.id).await;
        assert_eq!(stored.xiangqi_rules, shown as i32);
    }
    // A record that plays on past the chase is imported whole: the ending
    // had to be applied by someone, and play went on.
    let played_on = format!(
        "[Variant \"xiangqi\"]\n[SetUp \"1\"]\n[FEN \"{FEN}\"]\n\n{} e0e1 *",
        MOVES.join(" ")
    );
    let game = common::import(&mut games, played_on).await;
    assert_eq!(game.ply, MOVES.len() as u32 + 1);
    assert_eq!(
        game.outcome.unwrap().status,
        pb::OutcomeStatus::Ongoing as i32
    );
    // The export names the rules, and its import follows them.
    let created = chase_game(&mut games, pb::XiangqiRules::RepetitionDraws).await;
    let id = created.game.unwrap().id;
    let exported = export(&mut games, &id, pb::PgnNotation::Unspecified).await;
    assert!(
        exported.contains("[XiangqiRules \"repetition_draws\"]"),
        "{exported}"
    );
    let again = common::import(&mut games, exported.clone()).await;
    assert_eq!(
        again.xiangqi_rules,
        pb::XiangqiRules::RepetitionDraws as i32
    );
    let status = games
        .import_game(pb::ImportGameRequest {
            pgn: exported.replace("repetition_draws", "chinese_club"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "INVALID_PGN".to_owned())
    );
    let status = games
        .import_game(pb::ImportGameRequest {
            pgn: "1. e4 *".into(),
            xiangqi_rules: pb::XiangqiRules::RepetitionDraws as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "VARIANT_MISMATCH".to_owned())
    );
    server.stop().await;
}

#[tokio::test]
async fn xiangqi_rules_are_refused_for_chess_and_when_unknown() {
    let server = TestServer::start().await;
    let mut rules = server.rules().await;
    let chess = Some(pb::Position {
        variant: pb::Variant::Chess as i32,
        xiangqi_rules: pb::XiangqiRules::Asian as i32,
        ..Default::default()
    });
    let status = rules
        .legal_moves(pb::LegalMovesRequest {
            position: chess.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "VARIANT_MISMATCH".to_owned())
    );
    let status = rules
        .validate_move(pb::ValidateMoveRequest {
            position: chess,
            r#move: "e4".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "VARIANT_MISMATCH".to_owned())
    );
    let unknown = Some(pb::Position {
        variant: pb::Variant::Xiangqi as i32,
        xiangqi_rules: 99,
        ..Default::default()
    });
    let status = rules
        .validate_position(pb::ValidatePositionRequest { position: unknown })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".to_owned())
    );

    let mut games = server.games().await;
    for (variant, value, reason) in [
        (
            pb::Variant::Chess,
            pb::XiangqiRules::RepetitionDraws as i32,
            "VARIANT_MISMATCH",
        ),
        (pb::Variant::Xiangqi, 99, "UNKNOWN_ENUM_VALUE"),
    ] {
        let status = games
            .create_game(pb::CreateGameRequest {
                variant: variant as i32,
                xiangqi_rules: value,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&status),
            (Code::InvalidArgument, reason.to_owned())
        );
    }
    server.stop().await;
}

/// The Engine searches under the request's rules: the same history is lost,
/// drawn or not even playable, and the refused move is never suggested.
#[tokio::test]
async fn the_engine_searches_under_the_positions_rules() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;
    let best_move = |position| pb::BestMoveRequest {
        position,
        limits: Some(pb::SearchLimits {
            movetime_ms: 200,
            ..Default::default()
        }),
    };
    let cases = [
        (
            pb::XiangqiRules::Asian,
            Code::FailedPrecondition,
            "GAME_OVER",
            "perpetual chase",
        ),
        (
            pb::XiangqiRules::RepetitionDraws,
            Code::FailedPrecondition,
            "GAME_OVER",
            "repetition",
        ),
        (
            pb::XiangqiRules::AsianRefusing,
            Code::InvalidArgument,
            "INVALID_MOVES",
            "",
        ),
    ];
    for (rules, code, reason, words) in cases {
        let refused = engine
            .best_move(best_move(chase_position(MOVES.len(), rules)))
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (code, reason.to_owned()),
            "{rules:?}"
        );
        assert!(
            refused.message().contains(words),
            "{rules:?}: {}",
            refused.message()
        );
    }
    let answer = engine
        .best_move(best_move(chase_position(
            MOVES.len() - 1,
            pb::XiangqiRules::AsianRefusing,
        )))
        .await
        .unwrap()
        .into_inner();
    let suggested = answer.r#move.unwrap().uci;
    assert_ne!(
        suggested,
        MOVES[MOVES.len() - 1],
        "the refused move was suggested"
    );
    server.stop().await;
}
