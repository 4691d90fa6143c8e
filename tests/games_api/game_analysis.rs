//! Engine.AnalyzeGame end to end: the stream's shape, a blunder judged as
//! one, an ended game's analysis kept once per setting and read back, the
//! PGN export's annotations, the caller's share of the engine, and bad
//! requests.

use crate::common;

use arbiter::api::proto::{self as pb, engine_client::EngineClient};
use common::{TestServer, code_and_reason};
use pb::analyze_game_request::{Game, Search};
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};
use tonic_types::StatusExt;

/// Black's 3...Nf6?? allows 4.Qxf7#.
const SCHOLARS_MATE: &str = "[Event \"Test\"]\n[Result \"1-0\"]\n\n\
    1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n";

fn request(game: Game, search: Option<Search>) -> pb::AnalyzeGameRequest {
    pb::AnalyzeGameRequest {
        game: Some(game),
        search,
        ..Default::default()
    }
}

/// The stream's moves and its summary, checking that the summary comes
/// last and once.
async fn analyze(
    engine: &mut EngineClient<Channel>,
    request: pb::AnalyzeGameRequest,
) -> Result<(Vec<pb::AnalyzedMove>, pb::GameAnalysisSummary), tonic::Status> {
    let mut stream = engine.analyze_game(request).await?.into_inner();
    let (mut moves, mut summary) = (Vec::new(), None);
    while let Some(message) = stream.next().await {
        assert!(summary.is_none(), "nothing follows the summary");
        match message?.item.expect("every message has an item") {
            pb::analyze_game_response::Item::Move(m) => moves.push(m),
            pb::analyze_game_response::Item::Summary(s) => summary = Some(s),
        }
    }
    Ok((moves, summary.expect("the stream ends with a summary")))
}

fn value(eval: Option<&pb::GameEvaluation>) -> pb::game_evaluation::Value {
    eval.and_then(|e| e.value).expect("an evaluation")
}

fn judgement(m: &pb::AnalyzedMove) -> pb::MoveJudgement {
    pb::MoveJudgement::try_from(m.judgement).unwrap()
}

async fn imported(server: &TestServer, pgn: &str) -> String {
    let mut games = server.games().await;
    common::import(&mut games, pgn.to_owned()).await.id
}

#[tokio::test]
async fn a_blunder_is_judged_and_the_analysis_is_kept_once() {
    use pb::game_evaluation::Value;
    let server = TestServer::start().await;
    let mut engine = server.engine().await;
    let id = imported(&server, SCHOLARS_MATE).await;
    let by_id = request(Game::GameId(id.clone()), Some(Search::Depth(3)));

    let (moves, summary) = analyze(&mut engine, by_id.clone()).await.unwrap();
    let played: Vec<_> = moves
        .iter()
        .map(|m| m.r#move.as_ref().unwrap().san.as_str())
        .collect();
    assert_eq!(played, ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]);
    for (ply, m) in moves.iter().enumerate() {
        assert_eq!(m.ply as usize, ply);
        let side = if ply % 2 == 0 {
            pb::Side::White
        } else {
            pb::Side::Black
        };
        assert_eq!(m.side, side as i32);
        assert!((0.0..=100.0).contains(&m.accuracy));
        // Each move's position after is the next one's before.
        if let Some(next) = moves.get(ply + 1) {
            assert_eq!(m.after, next.before);
        }
    }
    let blunder = &moves[5];
    assert_eq!(judgement(blunder), pb::MoveJudgement::Blunder);
    assert_eq!(value(blunder.after.as_ref()), Value::Mate(1));
    assert!(blunder.accuracy < 10.0, "{blunder:?}");
    // The mate: found before it was played, and not a mistake.
    let mate = &moves[6];
    assert_eq!(mate.pv[0].uci, "h5f7");
    assert_eq!(mate.depth, 3);
    assert_eq!(value(mate.before.as_ref()), Value::Mate(1));
    assert_eq!(
        value(mate.after.as_ref()),
        Value::Ended(pb::Side::White as i32)
    );
    assert_eq!(judgement(mate), pb::MoveJudgement::Unspecified);
    assert_eq!(mate.accuracy, 100.0);
    assert!(!summary.stored);
    assert_eq!(summary.black.unwrap().blunders, 1);
    let (white, black) = (
        summary.white_accuracy.unwrap(),
        summary.black_accuracy.unwrap(),
    );
    assert!(white > black, "{summary:?}");

    // The same setting again, after a restart: from the store, the same
    // answers.
    let db = server.stop().await;
    let server = TestServer::start_on(&db).await;
    let mut engine = server.engine().await;
    let (again, stored) = analyze(&mut engine, by_id).await.unwrap();
    assert!(stored.stored);
    assert_eq!(again, moves);
    assert_eq!(
        (stored.white_accuracy, stored.black_accuracy, stored.black),
        (
            summary.white_accuracy,
            summary.black_accuracy,
            summary.black
        )
    );
    // Another setting is another analysis.
    let (_, other) = analyze(
        &mut engine,
        request(Game::GameId(id.clone()), Some(Search::Depth(2))),
    )
    .await
    .unwrap();
    assert!(!other.stored);

    // The PGN export carries the analysis when asked.
    let mut games = server.games().await;
    let annotated = games
        .export_game(pb::ExportGameRequest {
            game_id: id.clone(),
            analysis: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .pgn;
    assert!(annotated.contains("Nf6 $4 {[%eval #1]}"), "{annotated}");
    assert!(annotated.contains("Qxf7# {"), "{annotated}");
    let plain = common::export(&mut games, &id, pb::PgnNotation::Standard).await;
    assert!(!plain.contains("%eval") && !plain.contains('$'), "{plain}");
}

#[tokio::test]
async fn pgn_games_and_games_in_play_are_analysed_but_not_kept() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;
    let by_pgn = request(Game::Pgn(SCHOLARS_MATE.to_owned()), Some(Search::Depth(2)));
    for _ in 0..2 {
        let (moves, summary) = analyze(&mut engine, by_pgn.clone()).await.unwrap();
        assert_eq!(moves.len(), 7);
        assert_eq!(judgement(&moves[5]), pb::MoveJudgement::Blunder);
        assert!(!summary.stored);
    }

    let mut games = server.games().await;
    let game = common::new_chess_game(&mut games, None).await;
    let id = game.game.unwrap().id;
    common::play(&mut games, &id, &game.white_token, "e4").await;
    let in_play = request(Game::GameId(id), Some(Search::MovetimeMs(20)));
    for _ in 0..2 {
        let (moves, summary) = analyze(&mut engine, in_play.clone()).await.unwrap();
        assert_eq!(moves.len(), 1);
        assert!(!summary.stored && summary.black_accuracy.is_none());
    }

    // Xiangqi, by id and inline.
    let xiangqi = "[Variant \"xiangqi\"]\n\n1. h2e2 h9g7 2. h0g2 *\n";
    let id = imported(&server, xiangqi).await;
    for game in [Game::GameId(id), Game::Pgn(xiangqi.to_owned())] {
        let (moves, summary) = analyze(&mut engine, request(game, Some(Search::Depth(2))))
            .await
            .unwrap();
        let played: Vec<_> = moves
            .iter()
            .map(|m| m.r#move.as_ref().unwrap().uci.as_str())
            .collect();
        assert_eq!(played, ["h2e2", "h9g7", "h0g2"]);
        assert!(moves.iter().all(|m| !m.pv.is_empty()));
        assert!(summary.white_accuracy.is_some() && summary.black_accuracy.is_some());
    }
}

#[tokio::test]
async fn an_analysis_is_one_of_the_callers_engine_calls() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;
    let long = request(
        Game::Pgn(SCHOLARS_MATE.to_owned()),
        Some(Search::MovetimeMs(5_000)),
    );
    let running = engine.analyze_game(long).await.unwrap();
    let refused = engine
        .best_move(pb::BestMoveRequest {
            position: Some(pb::Position {
                variant: pb::Variant::Chess as i32,
                ..Default::default()
            }),
            limits: None,
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::ResourceExhausted, "ANALYSIS_LIMIT".to_owned())
    );
    drop(running);
}

#[tokio::test]
async fn bad_requests_are_refused_with_their_reasons() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;
    let pgn = || Game::Pgn(SCHOLARS_MATE.to_owned());
    // 70 plies of knight moves: 71 positions of 10 s each are past the
    // 600 s an analysis may take.
    let long = format!("{} *\n", "Nf3 Nf6 Ng1 Ng8 ".repeat(17) + "Nf3 Nf6");
    let cases = [
        (
            pb::AnalyzeGameRequest::default(),
            (Code::InvalidArgument, "MISSING_FIELD"),
        ),
        (
            request(Game::GameId("nope".into()), None),
            (Code::NotFound, "GAME_NOT_FOUND"),
        ),
        (
            request(Game::Pgn("1. e4 Ke7 Kd9".into()), None),
            (Code::InvalidArgument, "INVALID_PGN"),
        ),
        (
            request(pgn(), Some(Search::Depth(65))),
            (Code::InvalidArgument, "VALUE_OUT_OF_RANGE"),
        ),
        (
            request(pgn(), Some(Search::MovetimeMs(5))),
            (Code::InvalidArgument, "VALUE_OUT_OF_RANGE"),
        ),
        (
            request(pgn(), Some(Search::MovetimeMs(10_001))),
            (Code::InvalidArgument, "VALUE_OUT_OF_RANGE"),
        ),
        (
            request(Game::Pgn(long.clone()), Some(Search::MovetimeMs(10_000))),
            (Code::InvalidArgument, "REVIEW_TOO_LONG"),
        ),
    ];
    for (request, (code, reason)) in cases {
        let error = analyze(&mut engine, request.clone()).await.unwrap_err();
        assert_eq!(
            code_and_reason(&error),
            (code, reason.to_owned()),
            "{request:?}: {error:?}"
        );
    }
    // The longest move time this game may have: 600 s over 71 positions.
    let error = analyze(
        &mut engine,
        request(Game::Pgn(long), Some(Search::MovetimeMs(8_451))),
    )
    .await
    .unwrap_err();
    let info = error.get_details_error_info().unwrap();
    assert_eq!(info.metadata["limit_ms"], "8450");
}
