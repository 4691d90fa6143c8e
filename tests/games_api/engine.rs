//! The Engine service and engine seats, end to end through gRPC: best moves
//! and analysis in both games, every error class, the busy limit (which must
//! not stall the Rules RPCs), deadlines, and games against the engine played
//! with nothing but MakeMove and WatchGame, across a restart.

use crate::common;

use std::{
    collections::HashSet,
    time::{Duration, Instant},
};

use arbiter::api::proto::{self as pb, engine_client::EngineClient, games_client::GamesClient};
use arbiter::server::ServerConfig;
use common::TestServer;
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};

fn position(variant: pb::Variant, fen: &str, moves: &[&str]) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant as i32,
        fen: fen.into(),
        moves: moves.iter().map(|m| (*m).to_owned()).collect(),
        ..Default::default()
    })
}

fn limits(depth: u32, movetime_ms: u32, level: u32) -> Option<pb::SearchLimits> {
    Some(pb::SearchLimits {
        depth,
        nodes: 0,
        movetime_ms,
        level,
    })
}

fn best_move(
    position: Option<pb::Position>,
    limits: Option<pb::SearchLimits>,
) -> pb::BestMoveRequest {
    pb::BestMoveRequest { position, limits }
}

#[tokio::test]
async fn best_moves_mates_and_errors_in_both_games() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;

    let mate = engine
        .best_move(best_move(
            position(
                pb::Variant::Chess,
                "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
                &[],
            ),
            limits(0, 2000, 0),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(mate.r#move.as_ref().unwrap().san, "Ra8#");
    assert_eq!(mate.pv[0].uci, "a1a8");
    assert_eq!(mate.score.unwrap().value, Some(pb::score::Value::Mate(1)));
    assert!(mate.depth >= 1 && mate.nodes > 0);

    // Xiangqi, in a position reached by moves: a legal move in every notation.
    let xiangqi = engine
        .best_move(best_move(
            position(pb::Variant::Xiangqi, "", &["h2e2", "h9g7"]),
            limits(4, 0, 0),
        ))
        .await
        .unwrap()
        .into_inner();
    let m = xiangqi.r#move.unwrap();
    assert!(!m.uci.is_empty() && !m.san.is_empty() && !m.chinese.is_empty());
    assert_eq!(xiangqi.depth, 4);

    // Red mates with the chariot, the flying general guarding the e-file.
    let red_mates = engine
        .best_move(best_move(
            position(
                pb::Variant::Xiangqi,
                "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1",
                &[],
            ),
            limits(6, 0, 0),
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(red_mates.r#move.unwrap().uci, "e1d1");
    assert_eq!(
        red_mates.score.unwrap().value,
        Some(pb::score::Value::Mate(1))
    );

    let cases: Vec<(pb::BestMoveRequest, Code, &str, &str)> = vec![
        (
            best_move(None, None),
            Code::InvalidArgument,
            "MISSING_FIELD",
            "position",
        ),
        (
            best_move(position(pb::Variant::Unspecified, "", &[]), None),
            Code::InvalidArgument,
            "MISSING_VARIANT",
            "variant",
        ),
        (
            best_move(position(pb::Variant::Chess, "8/8/8 w - - 0 1", &[]), None),
            Code::InvalidArgument,
            "INVALID_FEN",
            "ranks",
        ),
        (
            best_move(position(pb::Variant::Chess, "", &["e2e5"]), None),
            Code::InvalidArgument,
            "INVALID_MOVES",
            "move 1",
        ),
        (
            best_move(position(pb::Variant::Chess, "", &[]), limits(0, 0, 11)),
            Code::InvalidArgument,
            "VALUE_OUT_OF_RANGE",
            "level",
        ),
        (
            best_move(position(pb::Variant::Chess, "", &[]), limits(0, 600_000, 0)),
            Code::InvalidArgument,
            "VALUE_OUT_OF_RANGE",
            "movetime_ms",
        ),
        (
            best_move(position(pb::Variant::Chess, "", &[]), limits(65, 0, 0)),
            Code::InvalidArgument,
            "VALUE_OUT_OF_RANGE",
            "depth",
        ),
        (
            best_move(
                position(pb::Variant::Chess, "", &["f3", "e5", "g4", "Qh4#"]),
                None,
            ),
            Code::FailedPrecondition,
            "GAME_OVER",
            "over",
        ),
    ];
    for (request, code, reason, needle) in cases {
        let status = engine.best_move(request.clone()).await.unwrap_err();
        assert_eq!(
            common::code_and_reason(&status),
            (code, reason.to_owned()),
            "{request:?}: {status:?}"
        );
        assert!(status.message().contains(needle), "{}", status.message());
    }
    server.stop().await;
}

#[tokio::test]
async fn analysis_streams_every_depth_and_a_full_engine_says_busy() {
    // The test server runs one search at a time, and here lets no call wait
    // for it.
    let server = TestServer::start_with_config(|config| ServerConfig {
        engine_queue: 0,
        ..config
    })
    .await;
    let mut engine = server.engine().await;
    let mut rules = server.rules().await;

    let mut stream = engine
        .analyze(pb::AnalyzeRequest {
            position: position(pb::Variant::Chess, "", &["e4"]),
            limits: limits(5, 0, 0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut depths = Vec::new();
    while let Some(info) = stream.next().await {
        let info = info.unwrap();
        assert!(!info.pv.is_empty());
        depths.push((info.depth, info.r#final));
    }
    assert_eq!(depths.last(), Some(&(5, true)));
    assert_eq!(
        depths
            .iter()
            .filter(|(_, last)| !last)
            .map(|(d, _)| *d)
            .collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );

    // A long analysis holds the only slot, so another caller (from another
    // address: one caller runs one search at a time) is told it is busy...
    let long = engine
        .analyze(pb::AnalyzeRequest {
            position: position(pb::Variant::Xiangqi, "", &[]),
            limits: limits(0, 60_000, 0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let other = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .local_address(Some([127, 0, 0, 2].into()))
        .connect()
        .await
        .unwrap();
    let status = EngineClient::new(other)
        .best_move(best_move(
            position(pb::Variant::Chess, "", &[]),
            limits(1, 0, 0),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::ResourceExhausted, "ENGINE_BUSY".to_owned())
    );
    assert!(status.message().contains("busy"), "{}", status.message());
    // ...while the rules still answer.
    for _ in 0..20 {
        rules
            .legal_moves(pb::LegalMovesRequest {
                position: position(pb::Variant::Chess, "", &[]),
                ..Default::default()
            })
            .await
            .unwrap();
    }
    // Leaving stops the search and frees the slot.
    drop(long);
    crate::wait_for!(
        Duration::from_secs(10),
        match engine
            .best_move(best_move(
                position(pb::Variant::Chess, "", &[]),
                limits(1, 0, 0),
            ))
            .await
        {
            Ok(_) => Some(()),
            Err(s) if s.code() == Code::ResourceExhausted => None,
            Err(s) => panic!("the slot was not freed: {s:?}"),
        },
        "the slot was not freed"
    );
    server.stop().await;
}

/// The last message of an analysis of `position` with `multipv` lines.
async fn final_lines(
    engine: &mut EngineClient<Channel>,
    position: Option<pb::Position>,
    depth: u32,
    multipv: u32,
) -> Result<pb::AnalyzeResponse, tonic::Status> {
    let mut stream = engine
        .analyze(pb::AnalyzeRequest {
            position,
            limits: limits(depth, 0, 0),
            multipv,
        })
        .await?
        .into_inner();
    let mut last = None;
    while let Some(info) = stream.next().await {
        last = Some(info?);
    }
    Ok(last.expect("an analysis ends with a final message"))
}

fn first_moves(info: &pb::AnalyzeResponse) -> Vec<String> {
    info.lines
        .iter()
        .map(|l| l.pv[0].san.clone())
        .collect::<Vec<_>>()
}

#[tokio::test]
async fn analysis_reports_several_lines_best_first() {
    let server = TestServer::start().await;
    let mut engine = server.engine().await;

    // The mate comes first, then two other moves, all different.
    let mate = position(
        pb::Variant::Chess,
        "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
        &[],
    );
    let info = final_lines(&mut engine, mate, 4, 3).await.unwrap();
    assert!(info.r#final);
    let firsts = first_moves(&info);
    assert_eq!(firsts.len(), 3);
    assert_eq!(firsts[0], "Ra8#");
    assert_eq!(firsts.iter().collect::<HashSet<_>>().len(), 3, "{firsts:?}");
    assert_eq!(info.lines[0].pv, info.pv);
    assert_eq!(info.lines[0].score, info.score);
    assert_eq!(
        info.lines[0].score.unwrap().value,
        Some(pb::score::Value::Mate(1))
    );
    // Centipawn lines come best first.
    let start = position(pb::Variant::Xiangqi, "", &[]);
    let info = final_lines(&mut engine, start, 4, 4).await.unwrap();
    let scores: Vec<i32> = info
        .lines
        .iter()
        .map(|l| match l.score.unwrap().value {
            Some(pb::score::Value::Centipawns(cp)) => cp,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(scores.len(), 4);
    assert!(scores.is_sorted_by(|a, b| a >= b), "{scores:?}");
    // No more lines than legal moves (Kb1, Kb2, a3, a4).
    let few = position(pb::Variant::Chess, "7k/8/8/8/8/8/P7/K7 w - - 0 1", &[]);
    let info = final_lines(&mut engine, few, 3, 10).await.unwrap();
    assert_eq!(info.lines.len(), 4);
    // One line unless asked.
    let info = final_lines(&mut engine, position(pb::Variant::Chess, "", &[]), 2, 0)
        .await
        .unwrap();
    assert_eq!(info.lines.len(), 1);
    // Too many lines is a clear error.
    let status = final_lines(&mut engine, position(pb::Variant::Chess, "", &[]), 2, 17)
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::InvalidArgument, "VALUE_OUT_OF_RANGE".to_owned())
    );
    assert!(status.message().contains("multipv"), "{}", status.message());
    server.stop().await;
}

#[tokio::test]
async fn a_search_answers_before_the_grpc_deadline() {
    let server = TestServer::start().await;
    // Timed from a server that serves (its start-up, e.g. a PostgreSQL
    // database's migrations, is not the search's).
    let channel = server.channel().await;
    common::wait_health(
        &channel,
        tonic_health::pb::health_check_response::ServingStatus::Serving,
        Duration::from_secs(10),
    )
    .await;
    let mut engine = server.engine().await;
    let mut request = tonic::Request::new(best_move(
        position(pb::Variant::Xiangqi, "", &[]),
        limits(0, 20_000, 0),
    ));
    // The search stops a tenth of the deadline early (300 ms), which leaves
    // room for a loaded machine.
    request.set_timeout(Duration::from_millis(3000));
    let started = Instant::now();
    let answer = engine.best_move(request).await.unwrap().into_inner();
    assert!(answer.r#move.is_some());
    assert!(started.elapsed() < Duration::from_secs(6));
    server.stop().await;
}

fn seat(name: &str, engine: Option<(u32, u32)>) -> Option<pb::SeatRequest> {
    Some(pb::SeatRequest {
        display_name: name.into(),
        engine: engine.map(|(level, movetime_ms)| pb::EnginePlayer { level, movetime_ms }),
        ..Default::default()
    })
}

async fn create(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    fen: Option<&str>,
    white: Option<pb::SeatRequest>,
    black: Option<pb::SeatRequest>,
) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: variant as i32,
            start: fen.map(|f| pb::create_game_request::Start::Fen(f.into())),
            white,
            black,
            engine_declines_takebacks: false,
            time_control: None,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

/// Reads the watch stream until a move at `ply` arrives; returns it.
async fn next_move(
    stream: &mut tonic::Streaming<pb::WatchGameResponse>,
    ply: u32,
) -> pb::WatchGameResponse {
    let wait = async {
        while let Some(event) = stream.next().await {
            let event = event.unwrap();
            if event.kind == pb::GameEventKind::Move as i32
                && event.game.as_ref().unwrap().ply == ply + 1
            {
                return event;
            }
        }
        panic!("the stream ended before ply {ply}");
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("the engine moved in time")
}

#[tokio::test]
async fn a_human_plays_the_engine_with_make_move_and_watch_game() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = create(
        &mut games,
        pb::Variant::Chess,
        None,
        seat("Human", None),
        seat("", Some((3, 100))),
    )
    .await;
    let game = created.game.unwrap();
    assert_eq!(created.black_token, "", "no token for an engine seat");
    let black = game.black.unwrap();
    assert_eq!(black.display_name, "Arbiter (level 3)");
    assert_eq!(
        black.engine,
        Some(pb::EnginePlayer {
            level: 3,
            movetime_ms: 100
        })
    );
    assert_eq!(game.white.unwrap().engine, None);

    let mut watch = common::watch(&mut games, &game.id).await;
    for ply in [0, 2, 4] {
        let text = ["e4", "Nf3", "Bc4"][ply as usize / 2];
        let human = games
            .make_move(pb::MakeMoveRequest {
                game_id: game.id.clone(),
                seat_token: created.white_token.clone(),
                r#move: text.into(),
                expected_ply: Some(ply),
                ..Default::default()
            })
            .await;
        if human.is_err() {
            // The engine's reply may have made the scripted move illegal.
            break;
        }
        let reply = next_move(&mut watch, ply + 1).await;
        assert_eq!(reply.r#move.unwrap().ply, ply + 1);
    }
    let state = games
        .get_game(pb::GetGameRequest {
            game_id: game.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert!(state.ply >= 2 && state.ply % 2 == 0, "ply {}", state.ply);
    assert_eq!(state.turn, pb::Side::White as i32);

    // Bad engine settings are refused.
    let status = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            start: None,
            white: seat("a", Some((12, 0))),
            black: seat("b", None),
            engine_declines_takebacks: false,
            time_control: None,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::InvalidArgument, "VALUE_OUT_OF_RANGE".to_owned())
    );
    assert!(
        status.message().contains("white.engine.level"),
        "{}",
        status.message()
    );
    server.stop().await;
}

#[tokio::test]
async fn engines_play_each_other_to_the_end_and_resume_after_a_restart() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    // Red's engine mates at once.
    let created = create(
        &mut games,
        pb::Variant::Xiangqi,
        Some("3k5/9/9/9/9/9/9/9/4R4/4K4 w - - 0 1"),
        seat("", Some((10, 200))),
        seat("", Some((10, 200))),
    )
    .await;
    let id = created.game.unwrap().id;
    let finished =
        common::game_once(&mut games, &id, Duration::from_secs(30), common::is_over).await;
    let outcome = finished.outcome.unwrap();
    assert_eq!(outcome.winner, pb::Side::White as i32, "{outcome:?}");

    // An engine to move when the server stops moves after the restart.
    let created = create(
        &mut games,
        pb::Variant::Chess,
        None,
        seat("", Some((10, 1500))),
        seat("Human", None),
    )
    .await;
    let id = created.game.unwrap().id;
    let db = server.db.clone();
    let dir = server.stop().await;
    let server = TestServer::start_on(&db).await;
    let mut games = server.games().await;
    let mut watch = common::watch(&mut games, &id).await;
    let snapshot = watch.next().await.unwrap().unwrap();
    if snapshot.game.unwrap().ply == 0 {
        next_move(&mut watch, 0).await;
    }
    server.stop().await;
    drop(dir);
}

/// A game's external engine that fails answers `UNAVAILABLE`
/// `ENGINE_FAILED`; the other game keeps Arbiter's own engine.
#[tokio::test]
async fn an_external_engine_that_hangs_fails_with_engine_failed() {
    use std::os::unix::fs::PermissionsExt;

    use arbiter::analysis::external::{UciEngine, UciEngines};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("engine.sh");
    // Answers the handshake, never a search.
    let script = "#!/bin/sh\nwhile read -r line; do\n  case \"$line\" in\n    uci) echo uciok \
                  ;;\n    isready) echo readyok ;;\n  esac\ndone\n";
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    let server = TestServer::start_with_config(|config| ServerConfig {
        uci_engines: UciEngines {
            chess: Some(UciEngine {
                path,
                options: Vec::new(),
                ranks: None,
            }),
            ..config.uci_engines
        },
        ..config
    })
    .await;
    let mut engine = server.engine().await;
    let status = engine
        .best_move(best_move(
            position(pb::Variant::Chess, "", &["e4"]),
            limits(0, 100, 0),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::Unavailable, "ENGINE_FAILED".to_owned())
    );
    assert!(
        status.message().contains("bestmove"),
        "{}",
        status.message()
    );
    let xiangqi = engine
        .best_move(best_move(
            position(pb::Variant::Xiangqi, "", &[]),
            limits(2, 0, 0),
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(xiangqi.r#move.is_some());
    server.stop().await;
}
