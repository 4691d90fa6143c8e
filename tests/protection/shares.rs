//! Fair shares between addresses: one address cannot take every connection,
//! every watcher place of a game or every player stream, cannot make games
//! faster than CreateGame allows through rematches, and cannot guess tokens
//! at the server's speed, while another address (127.0.0.2 here) is served
//! as ever.

use crate::common::{self, SeatRequest};

use std::{net::IpAddr, time::Duration};

use arbiter::api::proto as pb;
use arbiter::server::ServerConfig;
use common::{
    TestServer, binary::Serve, code_and_reason, create_engine_game, new_chess_game, offer_rematch,
    resign, respond_to_rematch,
};
use tonic::{
    Code,
    transport::{Channel, Endpoint},
};
use tonic_types::StatusExt;

type Games = pb::games_client::GamesClient<Channel>;

/// A new connection to `url` from loopback address `source`.
async fn channel_from(url: &str, source: &str) -> Channel {
    let source: IpAddr = source.parse().unwrap();
    let endpoint = Endpoint::from_shared(url.to_owned())
        .unwrap()
        .local_address(Some(source));
    crate::wait_for!(
        Duration::from_secs(2),
        endpoint.connect().await.ok(),
        "no connection to {url} from {source}"
    )
}

fn limit(status: &tonic::Status) -> String {
    status
        .get_details_error_info()
        .and_then(|info| info.metadata.get("limit").cloned())
        .unwrap_or_default()
}

async fn get_game(games: &mut Games, id: &str) -> Result<pb::Game, tonic::Status> {
    games
        .get_game(pb::GetGameRequest {
            game_id: id.into(),
            ..Default::default()
        })
        .await
        .map(|answer| answer.into_inner().game.unwrap())
}

fn watch_request(id: &str, seat_token: &str) -> pb::WatchGameRequest {
    pb::WatchGameRequest::by_seat(id, seat_token)
}

/// Connections holding a WatchGame stream are never idle; one address
/// holding its whole share is refused more, with a reason, and another
/// address still gets in.
#[tokio::test]
async fn one_address_holding_its_connections_locks_no_other_out() {
    let server = Serve::fresh()
        .args([
            "--max-connections",
            "30",
            "--max-connections-per-peer",
            "10",
        ])
        .start()
        .await;
    let url = server.url();
    // Not 127.0.0.1, which the check that the server is up connects from:
    // that connection may not have closed yet.
    const HOLDER: &str = "127.0.0.4";
    let mut other = Games::new(channel_from(&url, "127.0.0.2").await);
    let game = new_chess_game(&mut other, None).await;
    let id = game.game.unwrap().id;

    let mut held = Vec::new();
    for _ in 0..10 {
        let mut games = Games::new(channel_from(&url, HOLDER).await);
        let mut stream = games
            .watch_game(watch_request(&id, ""))
            .await
            .expect("a connection within the share")
            .into_inner();
        stream.message().await.unwrap().expect("the snapshot");
        held.push((games, stream));
    }
    for _ in 0..5 {
        let mut games = Games::new(channel_from(&url, HOLDER).await);
        let refused = get_game(&mut games, &id).await.unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (Code::ResourceExhausted, "TOO_MANY_CONNECTIONS".into()),
            "{refused:?}"
        );
        assert_eq!(limit(&refused), "10");
    }
    for _ in 0..20 {
        get_game(&mut other, &id).await.expect("another address");
    }
    let mut third = Games::new(channel_from(&url, "127.0.0.3").await);
    get_game(&mut third, &id).await.expect("a third address");

    // The share comes back as the connections close.
    drop(held);
    crate::wait_until!(
        Duration::from_secs(10),
        get_game(&mut Games::new(channel_from(&url, HOLDER).await), &id)
            .await
            .is_ok(),
        "the address's share never came back"
    );
}

fn rate_limited(status: &tonic::Status) -> bool {
    code_and_reason(status) == (Code::ResourceExhausted, "RATE_LIMITED".into())
}

/// Resign, offer, accept, a new game: the chain spends the same budget as
/// CreateGame, between humans and against an engine seat.
#[tokio::test]
async fn rematches_spend_the_creating_calls_budget() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        create_rate: 1,
        create_burst: 6,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let created = new_chess_game(&mut games, None).await;
    let (mut id, mut white, mut black) = (
        created.game.unwrap().id,
        created.white_token,
        created.black_token,
    );
    let mut made = 1;
    let mut refused = None;
    for _ in 0..50 {
        resign(&mut games, &id, &white).await;
        if let Err(status) = offer_rematch(&mut games, &id, &white).await {
            refused = Some(status);
            break;
        }
        match respond_to_rematch(&mut games, &id, &black, true).await {
            Ok(answer) => {
                made += 1;
                let rematch = answer.rematch.expect("the rematch");
                // Colours swap: the acceptor had Black, now has White.
                let offerer = offer_rematch(&mut games, &id, &white).await;
                let offerer = match offerer {
                    Ok(answer) => answer.seat_token,
                    Err(status) => {
                        refused = Some(status);
                        break;
                    }
                };
                id = rematch.id;
                (white, black) = (answer.seat_token, offerer);
            }
            Err(status) => {
                refused = Some(status);
                break;
            }
        }
    }
    let refused = refused.expect("the chain was never refused");
    assert!(rate_limited(&refused), "{refused:?}");
    // The burst (6, CreateGame's included), and what a second or two refills.
    assert!(made <= 6, "{made} games made");

    // Against an engine seat, an offer creates the rematch at once.
    let engine_server = TestServer::start_with_config(|config| ServerConfig {
        create_rate: 1,
        create_burst: 4,
        ..config
    })
    .await;
    let mut games = engine_server.games().await;
    let created = create_engine_game(&mut games, 1, 1).await;
    let (mut id, mut token) = (created.game.unwrap().id, created.white_token);
    let mut made = 1;
    let refused = loop {
        resign(&mut games, &id, &token).await;
        match offer_rematch(&mut games, &id, &token).await {
            Ok(answer) => {
                made += 1;
                id = answer.rematch.expect("created at once").id;
                token = answer.seat_token;
            }
            Err(status) => break status,
        }
        assert!(made < 20, "rematches against the engine were never limited");
    };
    assert!(rate_limited(&refused), "{refused:?}");
    assert!(made <= 5, "{made} games made");
}

async fn watch_player(
    games: &mut Games,
    id: &str,
    token: &str,
) -> Result<tonic::Streaming<pb::WatchPlayerResponse>, tonic::Status> {
    common::watch_player(games, &[(id, token)]).await
}

/// Spectators filling a game's places leave its players their streams;
/// one address takes only its share of streams, the player streams
/// included.
#[tokio::test]
async fn spectators_crowd_no_player_out_and_streams_are_shared() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_watchers_per_game: 4,
        max_streams_per_peer: 8,
        ..config
    })
    .await;
    let url = format!("http://{}", server.addr);
    let mut squatter = Games::new(channel_from(&url, "127.0.0.1").await);
    let mut player = Games::new(channel_from(&url, "127.0.0.2").await);
    let created = new_chess_game(&mut player, None).await;
    let id = created.game.unwrap().id;

    let mut spectators = Vec::new();
    for _ in 0..4 {
        let stream = squatter.watch_game(watch_request(&id, "")).await;
        spectators.push(stream.expect("a spectator's place").into_inner());
    }
    let full = squatter
        .watch_game(watch_request(&id, ""))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&full),
        (Code::ResourceExhausted, "TOO_MANY_WATCHERS".into())
    );
    // The players still watch their game, with WatchGame and WatchPlayer.
    let mut white = player
        .watch_game(watch_request(&id, &created.white_token))
        .await
        .expect("a player's stream")
        .into_inner();
    white.message().await.unwrap().expect("the snapshot");
    let _black = watch_player(&mut player, &id, &created.black_token)
        .await
        .expect("a player stream");
    // A token of neither seat is no player's.
    let wrong = player
        .watch_game(watch_request(&id, "not-a-seat-token"))
        .await
        .unwrap_err();
    assert_eq!(wrong.code(), Code::Unauthenticated);

    // The squatter's address holds 4 streams; 4 player streams more fill
    // its share of 8 across connections, and the next is refused.
    let mut second = Games::new(channel_from(&url, "127.0.0.1").await);
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(
            watch_player(&mut second, &id, &created.white_token)
                .await
                .expect("within the share"),
        );
    }
    let over = watch_player(&mut second, &id, &created.white_token)
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&over),
        (Code::ResourceExhausted, "TOO_MANY_WATCHERS".into())
    );
    let metadata = over.get_details_error_info().unwrap().metadata;
    assert_eq!(metadata.get("cap").map(String::as_str), Some("peer"));
    assert_eq!(metadata.get("limit").map(String::as_str), Some("8"));
    // Another address is not held back by it.
    let _other = watch_player(&mut player, &id, &created.white_token)
        .await
        .expect("another address's stream");
}

async fn make_move(games: &mut Games, id: &str, token: &str) -> Result<(), tonic::Status> {
    games
        .make_move(pb::MakeMoveRequest {
            game_id: id.into(),
            seat_token: token.into(),
            r#move: "e2e4".into(),
            ..Default::default()
        })
        .await
        .map(drop)
}

/// Guessing tokens from one address is held to a few failures a second:
/// past its burst, its Games calls are refused before any token is
/// checked, while its rules calls and another address are served.
#[tokio::test]
async fn failed_credential_checks_are_limited_per_address() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        auth_failure_rate: 2,
        auth_failure_burst: 5,
        ..config
    })
    .await;
    let url = format!("http://{}", server.addr);
    let mut guesser = Games::new(channel_from(&url, "127.0.0.1").await);
    let mut player = Games::new(channel_from(&url, "127.0.0.2").await);
    let created = new_chess_game(&mut player, None).await;
    let id = created.game.unwrap().id;

    let mut unauthenticated = 0;
    let mut limited = None;
    for n in 0..40 {
        let guess = format!("guess-{n:012}");
        match make_move(&mut guesser, &id, &guess).await {
            Err(status) if status.code() == Code::Unauthenticated => unauthenticated += 1,
            Err(status) => {
                limited = Some(status);
                break;
            }
            Ok(()) => panic!("a guess was taken"),
        }
    }
    let limited = limited.expect("never limited");
    assert_eq!(
        code_and_reason(&limited),
        (Code::ResourceExhausted, "CREDENTIAL_CHECKS_LIMITED".into()),
        "{limited:?}"
    );
    assert_eq!(unauthenticated, 5, "the burst's checks");
    // Even the right token is not looked at meanwhile.
    let barred = make_move(&mut guesser, &id, &created.white_token)
        .await
        .unwrap_err();
    assert_eq!(barred.code(), Code::ResourceExhausted);
    let mut rules = pb::rules_client::RulesClient::new(channel_from(&url, "127.0.0.1").await);
    rules
        .legal_moves(pb::LegalMovesRequest {
            position: Some(pb::Position {
                variant: pb::Variant::Chess as i32,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("rules calls are served");
    make_move(&mut player, &id, &created.white_token)
        .await
        .expect("another address plays");
    // Once the next check is due, the address is served again.
    common::let_pass(Duration::from_millis(600)).await;
    let answer = make_move(&mut guesser, &id, "still-a-guess")
        .await
        .unwrap_err();
    assert_eq!(answer.code(), Code::Unauthenticated);
    // Guessing on at full speed, the address gets the rate's checks and no
    // more: 2 a second.
    let started = std::time::Instant::now();
    let mut checked = 0;
    while started.elapsed() < Duration::from_millis(1500) {
        let answer = make_move(&mut guesser, &id, "guess-again")
            .await
            .unwrap_err();
        checked += usize::from(answer.code() == Code::Unauthenticated);
    }
    assert!(checked <= 4, "{checked} checks in 1.5 s at 2 a second");
}
