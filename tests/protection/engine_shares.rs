//! One caller cannot take what others need: engine seats have slots of
//! their own, a seat is not charged for the time it waits for one, each
//! caller runs at most its share of the Engine RPCs, the RPCs' slots are
//! shared in turns between callers (a long analysis lends its slot to
//! another caller's BestMove), and creating calls are rate-limited per
//! caller; ListGames' player filter folds case in Unicode.
//! Callers are told apart by their address, so a second caller connects
//! from 127.0.0.2.

use crate::common;

use std::{net::IpAddr, time::Duration};

use arbiter::api::proto::{
    self as pb, engine_client::EngineClient, games_client::GamesClient,
    positions_client::PositionsClient,
};
use arbiter::server::{ServerConfig, serve};
use common::code_and_reason;
use tokio::{net::TcpListener, sync::oneshot, task::JoinHandle};
use tokio_stream::StreamExt;
use tonic::{
    Code,
    transport::{Channel, Endpoint},
};
use tonic_types::StatusExt;

/// A server with `serve`'s defaults (`ServerConfig::new`), changed by
/// `configure`.
struct Server {
    addr: std::net::SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
    _dir: tempfile::TempDir,
}

impl Server {
    async fn start(configure: impl FnOnce(&mut ServerConfig)) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut config =
            ServerConfig::new(format!("sqlite://{}", dir.path().join("a.db").display()));
        configure(&mut config);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            serve(config, listener, async {
                let _ = stopped.await;
            })
            .await
            .expect("server runs");
        });
        Server {
            addr,
            stop,
            task,
            _dir: dir,
        }
    }

    /// A channel from the local address `from`.
    async fn channel_from(&self, from: &str) -> Channel {
        let from: IpAddr = from.parse().unwrap();
        let endpoint = Endpoint::from_shared(format!("http://{}", self.addr))
            .unwrap()
            .local_address(Some(from));
        crate::wait_for!(
            Duration::from_secs(2),
            endpoint.connect().await.ok(),
            "server did not come up"
        )
    }

    async fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

fn start(variant: pb::Variant) -> Option<pb::Position> {
    Some(pb::Position {
        variant: variant as i32,
        fen: String::new(),
        moves: Vec::new(),
        ..Default::default()
    })
}

fn movetime(ms: u32) -> Option<pb::SearchLimits> {
    Some(pb::SearchLimits {
        movetime_ms: ms,
        ..Default::default()
    })
}

/// A long Analyze of 16 lines, started (its first depth received).
async fn long_analysis(
    engine: &mut EngineClient<Channel>,
) -> tonic::Streaming<pb::AnalyzeResponse> {
    analysis_of(engine, 60_000).await.0
}

/// An Analyze of 16 lines for `ms`, and its first depth.
async fn analysis_of(
    engine: &mut EngineClient<Channel>,
    ms: u32,
) -> (tonic::Streaming<pb::AnalyzeResponse>, pb::AnalyzeResponse) {
    let mut stream = engine
        .analyze(pb::AnalyzeRequest {
            position: start(pb::Variant::Xiangqi),
            limits: movetime(ms),
            multipv: 16,
        })
        .await
        .expect("the analysis starts")
        .into_inner();
    let first = stream.next().await.expect("a first depth").unwrap();
    (stream, first)
}

/// A chess BestMove of `ms`.
async fn best_move(
    engine: &mut EngineClient<Channel>,
    ms: u32,
) -> Result<pb::BestMoveResponse, tonic::Status> {
    let request = pb::BestMoveRequest {
        position: start(pb::Variant::Chess),
        limits: movetime(ms),
    };
    engine
        .best_move(request)
        .await
        .map(tonic::Response::into_inner)
}

/// A chess game whose white seat the engine plays (`movetime_ms` a move)
/// against a human, timed by `clock` (`None`: untimed); its id and the
/// human's token.
async fn engine_game(
    games: &mut GamesClient<Channel>,
    movetime_ms: u32,
    clock: Option<pb::TimeControl>,
) -> (String, String) {
    let created = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            start: None,
            white: Some(pb::SeatRequest {
                display_name: String::new(),
                engine: Some(pb::EnginePlayer {
                    level: 10,
                    movetime_ms,
                }),
                ..Default::default()
            }),
            black: common::seat("Human"),
            engine_declines_takebacks: false,
            time_control: clock,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    (created.game.unwrap().id, created.black_token)
}

fn clock(initial_ms: u64, grace_ms: u64) -> Option<pb::TimeControl> {
    Some(pb::TimeControl {
        initial_ms,
        first_move_grace_ms: grace_ms,
        ..Default::default()
    })
}

/// The game once its ply has reached `ply` or it has ended (within 20 s).
async fn game_at(games: &mut GamesClient<Channel>, id: &str, ply: u32) -> pb::Game {
    common::game_once(games, id, Duration::from_secs(20), |game| {
        game.ply >= ply || common::is_over(game)
    })
    .await
}

fn assert_ongoing_at(game: &pb::Game, ply: u32) {
    let outcome = game.outcome.as_ref().unwrap();
    assert_eq!(
        (outcome.status, game.ply),
        (pb::OutcomeStatus::Ongoing as i32, ply),
        "{}",
        outcome.description
    );
}

#[tokio::test]
async fn an_analysis_does_not_starve_an_engine_seat() {
    let server = Server::start(|_| {}).await;
    let mut engine = EngineClient::new(server.channel_from("127.0.0.1").await);
    let analysis = long_analysis(&mut engine).await;

    // Another caller's BestMove runs or is told the engine is busy.
    let mut other = EngineClient::new(server.channel_from("127.0.0.2").await);
    match other
        .best_move(pb::BestMoveRequest {
            position: start(pb::Variant::Chess),
            limits: movetime(50),
        })
        .await
    {
        Ok(answer) => assert!(answer.into_inner().r#move.is_some()),
        Err(status) => assert_eq!(
            code_and_reason(&status),
            (Code::ResourceExhausted, "ENGINE_BUSY".to_owned())
        ),
    }

    // An engine seat still moves, well within a first-move grace of 5 s.
    let mut games = GamesClient::new(server.channel_from("127.0.0.2").await);
    let (id, _) = engine_game(&mut games, 100, clock(60_000, 5_000)).await;
    assert_ongoing_at(&game_at(&mut games, &id, 1).await, 1);
    drop(analysis);
    server.stop().await;
}

#[tokio::test]
async fn a_long_analysis_lends_the_only_slot_to_another_callers_best_moves() {
    let server = Server::start(|config| config.engine_slots = 1).await;
    let mut engine = EngineClient::new(server.channel_from("127.0.0.1").await);
    let (mut analysis, first) = analysis_of(&mut engine, 3_000).await;

    // Each of another caller's BestMove calls waits for its turn and
    // answers with a move.
    let mut other = EngineClient::new(server.channel_from("127.0.0.2").await);
    for n in 0..5 {
        let answer = best_move(&mut other, 100)
            .await
            .unwrap_or_else(|status| panic!("BestMove {n}: {status:?}"));
        assert!(answer.r#move.is_some() && answer.depth >= 1, "{answer:?}");
    }

    // The analysis went on meanwhile and ends as usual.
    let mut last = first.clone();
    while let Some(message) = analysis.next().await {
        last = message.expect("the analysis goes on");
        assert!(last.depth >= first.depth);
    }
    assert!(last.r#final, "the stream ended without its final message");
    assert_eq!(last.lines.len(), 16);
    server.stop().await;
}

#[tokio::test]
async fn a_full_engine_queue_refuses_and_a_cancelled_wait_leaves_it() {
    let server = Server::start(|config| {
        config.engine_slots = 1;
        config.engine_queue = 1;
        // A caller's own second call waits for its first to end.
        config.max_analyses_per_peer = 0;
    })
    .await;
    let mut engine = EngineClient::new(server.channel_from("127.0.0.1").await);
    let analysis = long_analysis(&mut engine).await;
    let mut second = engine.clone();
    let waiting = tokio::spawn(async move { best_move(&mut second, 100).await });
    common::let_pass(Duration::from_millis(500)).await;
    assert!(!waiting.is_finished(), "the second call waits its turn");

    // The one place in the queue is taken.
    let mut other = EngineClient::new(server.channel_from("127.0.0.3").await);
    let status = best_move(&mut other, 100).await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::ResourceExhausted, "ENGINE_BUSY".to_owned())
    );
    assert!(status.message().contains("queue"), "{}", status.message());

    // The waiting call is cancelled: its place is free for another caller,
    // who gets a turn with the analysis.
    waiting.abort();
    let answer = crate::wait_for!(
        Duration::from_secs(10),
        match best_move(&mut other, 100).await {
            Ok(answer) => Some(answer),
            Err(status) => {
                assert_eq!(
                    code_and_reason(&status),
                    (Code::ResourceExhausted, "ENGINE_BUSY".to_owned())
                );
                None
            }
        },
        "the cancelled call still holds its place"
    );
    assert!(answer.r#move.is_some());
    drop(analysis);
    server.stop().await;
}

#[tokio::test]
async fn a_second_analysis_from_one_caller_is_refused() {
    let server = Server::start(|_| {}).await;
    let mut engine = EngineClient::new(server.channel_from("127.0.0.1").await);
    let analysis = long_analysis(&mut engine).await;
    let status = engine
        .analyze(pb::AnalyzeRequest {
            position: start(pb::Variant::Chess),
            limits: movetime(1_000),
            multipv: 1,
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::ResourceExhausted, "ANALYSIS_LIMIT".to_owned())
    );
    let info = status.get_details_error_info().unwrap();
    assert_eq!(info.metadata.get("limit").map(String::as_str), Some("1"));
    drop(analysis);
    server.stop().await;
}

#[tokio::test]
async fn a_seat_waiting_for_a_slot_is_not_charged() {
    let server = Server::start(|_| {}).await;
    let mut games = GamesClient::new(server.channel_from("127.0.0.1").await);
    // A game whose engine has made its first move, with 3 s on the clock.
    let (timed, token) = engine_game(&mut games, 50, clock(3_000, 60_000)).await;
    assert_ongoing_at(&game_at(&mut games, &timed, 1).await, 1);
    // Another engine takes the only seat slot for 5 s...
    let (long, _) = engine_game(&mut games, 5_000, None).await;
    common::let_pass(Duration::from_millis(300)).await;
    // ...so a new game's engine waits, with a first-move grace of 1.5 s,
    let (graced, _) = engine_game(&mut games, 50, clock(60_000, 1_500)).await;
    // and so does the first engine, once its opponent has moved.
    games
        .make_move(pb::MakeMoveRequest {
            game_id: timed.clone(),
            seat_token: token,
            r#move: "e5".into(),
            expected_ply: Some(1),
            ..Default::default()
        })
        .await
        .unwrap();
    common::let_pass(Duration::from_millis(500)).await;
    // While they wait their clocks are stopped: nothing can run out.
    for id in [&graced, &timed] {
        let game = game_at(&mut games, id, 0).await;
        let clock = game.clock.unwrap();
        assert_eq!(
            (clock.running, clock.deadline),
            (pb::Side::Unspecified as i32, None),
            "{id} at ply {}",
            game.ply
        );
    }
    // Each moves in its turn, in time, charged only from its search's start.
    assert_ongoing_at(&game_at(&mut games, &graced, 1).await, 1);
    let timed = game_at(&mut games, &timed, 3).await;
    assert_ongoing_at(&timed, 3);
    let white_ms = timed.clock.unwrap().white_ms;
    assert!(
        white_ms > 2_000,
        "white was charged for the wait: {white_ms} ms left"
    );
    assert_ongoing_at(&game_at(&mut games, &long, 1).await, 1);
    server.stop().await;
}

/// Creates a game from `games`' address: its status on refusal.
async fn create(games: &mut GamesClient<Channel>) -> Result<(), tonic::Status> {
    let request = pb::CreateGameRequest {
        variant: pb::Variant::Chess as i32,
        white: common::seat("A"),
        black: common::seat("B"),
        ..Default::default()
    };
    games.create_game(request).await.map(drop)
}

fn retry_after(status: &tonic::Status) -> Duration {
    assert_eq!(
        code_and_reason(status),
        (Code::ResourceExhausted, "RATE_LIMITED".to_owned()),
        "{status:?}"
    );
    let info = status.get_details_error_info().unwrap();
    assert_eq!(info.metadata["limit"], "2/s, burst 3");
    let ms: u64 = info.metadata["retry_after_ms"].parse().unwrap();
    assert!((1..=500).contains(&ms), "retry after {ms} ms");
    Duration::from_millis(ms)
}

#[tokio::test]
async fn creating_calls_are_rate_limited_per_caller() {
    let server = Server::start(|config| {
        config.create_rate = 2;
        config.create_burst = 3;
    })
    .await;
    let channel = server.channel_from("127.0.0.1").await;
    let mut games = GamesClient::new(channel.clone());
    let mut positions = PositionsClient::new(channel);
    // A burst of three, shared by the three creating calls...
    create(&mut games).await.unwrap();
    games
        .import_game(pb::ImportGameRequest {
            pgn: "1. e4 e5 *".into(),
            variant: 0,
            ..Default::default()
        })
        .await
        .unwrap();
    let position = pb::CreatePositionRequest {
        variant: pb::Variant::Chess as i32,
        source: Some(pb::create_position_request::Source::Fen(
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1".into(),
        )),
        name: "rook".into(),
        tags: Vec::new(),
    };
    positions.create_position(position.clone()).await.unwrap();
    // ...then each is refused, with when to come back.
    retry_after(&create(&mut games).await.unwrap_err());
    let status = positions.create_position(position).await.unwrap_err();
    let wait = retry_after(&status);
    // Reading is not limited, and another caller has its own bucket.
    games
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap();
    create(&mut GamesClient::new(
        server.channel_from("127.0.0.2").await,
    ))
    .await
    .unwrap();
    // Once the bucket has refilled, the caller may create again.
    common::let_pass(wait).await;
    create(&mut games).await.unwrap();
    server.stop().await;

    // A rate of 0 turns the limit off.
    let server = Server::start(|config| {
        config.create_rate = 0;
        config.create_burst = 1;
    })
    .await;
    let mut games = GamesClient::new(server.channel_from("127.0.0.1").await);
    for _ in 0..5 {
        create(&mut games).await.unwrap();
    }
    server.stop().await;
}

#[tokio::test]
async fn the_player_filter_folds_unicode_case() {
    let server = Server::start(|_| {}).await;
    let mut games = GamesClient::new(server.channel_from("127.0.0.1").await);
    let mut ids = Vec::new();
    for (white, black) in [("Élodie", "Bob"), ("Ann", "élodie"), ("ΟΔΥΣΣΕΥΣ", "Zoë")] {
        let request = pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat(white),
            black: common::seat(black),
            ..Default::default()
        };
        let created = games.create_game(request).await.unwrap().into_inner();
        ids.push(created.game.unwrap().id);
    }
    let list = |player: &str, page_token: String| {
        let request = pb::ListGamesRequest {
            player: player.into(),
            page_size: 1,
            page_token,
            ..Default::default()
        };
        let mut games = games.clone();
        async move {
            let page = games.list_games(request).await.unwrap().into_inner();
            let ids: Vec<String> = page.games.into_iter().map(|g| g.id).collect();
            (ids, page.next_page_token)
        }
    };
    // Newest first, one a page, in either seat, whatever the case.
    for player in ["élodie", "ÉLODIE", "Élodie", "LODI"] {
        let (first, next) = list(player, String::new()).await;
        assert_eq!(first, [ids[1].clone()], "{player}");
        let (second, last) = list(player, next).await;
        assert_eq!(second, [ids[0].clone()], "{player}");
        assert_eq!(last, "", "{player}: one page too many");
    }
    assert_eq!(list("οδυσσευς", String::new()).await.0, [ids[2].clone()]);
    assert_eq!(list("ZOË", String::new()).await.0, [ids[2].clone()]);
    // Shorter than three characters: found without the trigram index.
    assert_eq!(list("Ë", String::new()).await.0, [ids[2].clone()]);
    assert_eq!(list("éL", String::new()).await.0, [ids[1].clone()]);
    // Search syntax is just text.
    for text in ["\"", "a OR b", "NEAR(x y)", "*"] {
        assert_eq!(
            list(text, String::new()).await.0,
            Vec::<String>::new(),
            "{text}"
        );
    }
    server.stop().await;
}
