//! Seeks and the pairing pool: compatible seeks paired into one game told
//! on both streams, seeks checked, limited, withdrawn (by the player, or by
//! closing a real-time seek's stream), listed and streamed in the lobby,
//! a player never paired with themselves, and every seek paired once when
//! its seekers are spread over three replicas.

use crate::common::{self, TestServer, bearing, code_and_reason};

use std::{collections::HashMap, time::Duration};

use arbiter::{
    api::proto::{self as pb, players_client::PlayersClient},
    server::ServerConfig,
};
use tokio_stream::StreamExt;
use tonic::{Code, Streaming, transport::Channel};

/// The pool pairs this often in these tests.
const PAIRING: Duration = Duration::from_millis(50);
/// Long enough for any pairing here.
const WITHIN: Duration = Duration::from_secs(20);

async fn server() -> TestServer {
    TestServer::start_with_config(|config| ServerConfig {
        pairing_interval: PAIRING,
        max_seeks_per_player: 3,
        ..config
    })
    .await
}

fn blitz(rated: bool) -> pb::SeekRequest {
    pb::SeekRequest {
        variant: pb::Variant::Chess as i32,
        time_control: Some(pb::TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
            ..Default::default()
        }),
        rated,
        ..Default::default()
    }
}

fn correspondence() -> pb::SeekRequest {
    pb::SeekRequest {
        variant: pb::Variant::Xiangqi as i32,
        time_control: Some(pb::TimeControl {
            days_per_move: 3,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Seeks as `request` says, with `token`: the seek and its stream.
async fn seek(
    players: &mut PlayersClient<Channel>,
    token: &str,
    request: pb::SeekRequest,
) -> Result<(pb::Seek, Streaming<pb::SeekResponse>), tonic::Status> {
    let mut stream = players.seek(bearing(request, token)).await?.into_inner();
    let first = stream.message().await?.expect("the seek first");
    Ok((first.seek.expect("a seek"), stream))
}

/// The game a seek's stream ends with.
async fn paired(stream: &mut Streaming<pb::SeekResponse>) -> pb::Game {
    let next = tokio::time::timeout(WITHIN, stream.message())
        .await
        .expect("paired in time")
        .expect("no error")
        .expect("a message");
    next.game.expect("the game")
}

async fn lobby(players: &mut PlayersClient<Channel>) -> Vec<String> {
    let listed = players
        .list_seeks(pb::ListSeeksRequest::default())
        .await
        .unwrap()
        .into_inner();
    listed.seeks.into_iter().map(|s| s.id).collect()
}

#[tokio::test]
async fn compatible_seeks_are_paired_into_one_game_told_on_both_streams() {
    let server = server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = common::create_players(&mut players, ["alice", "bob"]).await;
    let (made, mut alices) = seek(&mut players, &alice, blitz(true)).await.unwrap();
    assert_eq!(made.player_id, "alice");
    assert_eq!(made.rating, 1500, "the start rating before any rated game");
    assert!(made.rated);
    let mut events = players
        .watch_events(bearing(pb::WatchEventsRequest::default(), &bob))
        .await
        .unwrap()
        .into_inner();
    let (_, mut bobs) = seek(&mut players, &bob, blitz(true)).await.unwrap();
    let (game, other) = (paired(&mut alices).await, paired(&mut bobs).await);
    assert_eq!(game.id, other.id, "one game for both");
    assert!(game.rated);
    let mut seated = [game.white.unwrap().player_id, game.black.unwrap().player_id];
    seated.sort();
    assert_eq!(seated, ["alice", "bob"]);
    let started = tokio::time::timeout(WITHIN, events.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(started.kind, pb::PlayerEventKind::GameStarted as i32);
    assert_eq!(started.game.unwrap().id, game.id);
    assert!(alices.message().await.unwrap().is_none(), "the stream ends");
    assert!(
        lobby(&mut players).await.is_empty(),
        "paired seeks leave the lobby"
    );
    server.stop().await;
}

#[tokio::test]
async fn seeks_are_checked_limited_withdrawn_and_listed() {
    let server = server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = common::create_players(&mut players, ["alice", "bob"]).await;
    let refused = |result: Result<_, tonic::Status>| code_and_reason(&result.err().unwrap());
    let untimed = pb::SeekRequest {
        time_control: None,
        ..blitz(false)
    };
    assert_eq!(
        refused(seek(&mut players, &alice, untimed).await),
        (Code::InvalidArgument, "INVALID_SEEK".into())
    );
    let upside_down = pb::SeekRequest {
        rating_min: 1800,
        rating_max: 1200,
        ..blitz(false)
    };
    assert_eq!(
        refused(seek(&mut players, &alice, upside_down).await),
        (Code::InvalidArgument, "INVALID_SEEK".into())
    );
    let anonymous = players.seek(blitz(false)).await.map(|_| ());
    assert_eq!(anonymous.unwrap_err().code(), Code::Unauthenticated);

    // A correspondence seek persists after its stream, until withdrawn.
    let (lasting, mut stream) = seek(&mut players, &alice, correspondence()).await.unwrap();
    assert!(stream.message().await.unwrap().is_none());
    assert_eq!(lobby(&mut players).await, std::slice::from_ref(&lasting.id));
    // Seeks in other pools, or out of each other's range, are not paired.
    let narrow = pb::SeekRequest {
        rating_max: 1400,
        ..blitz(false)
    };
    let (_, _alices) = seek(&mut players, &alice, narrow).await.unwrap();
    let (_, _alices_too) = seek(&mut players, &alice, blitz(true)).await.unwrap();
    assert_eq!(
        refused(seek(&mut players, &alice, blitz(false)).await),
        (Code::ResourceExhausted, "TOO_MANY_SEEKS".into())
    );
    let (bobs, bobs_stream) = seek(&mut players, &bob, blitz(false)).await.unwrap();
    common::let_pass(PAIRING * 6).await;
    assert_eq!(lobby(&mut players).await.len(), 4, "nothing paired");
    // Closing a real-time seek's stream withdraws it.
    drop(bobs_stream);
    crate::wait_until!(
        WITHIN,
        !lobby(&mut players).await.contains(&bobs.id),
        "a closed stream's seek leaves the lobby"
    );
    // Only its player withdraws a seek, once.
    let cancel = |id: &str| pb::CancelSeekRequest { seek_id: id.into() };
    assert_eq!(
        code_and_reason(
            &players
                .cancel_seek(bearing(cancel(&lasting.id), &bob))
                .await
                .unwrap_err()
        ),
        (Code::NotFound, "SEEK_NOT_FOUND".into())
    );
    players
        .cancel_seek(bearing(cancel(&lasting.id), &alice))
        .await
        .unwrap();
    assert!(
        players
            .cancel_seek(bearing(cancel(&lasting.id), &alice))
            .await
            .is_err()
    );
    assert!(!lobby(&mut players).await.contains(&lasting.id));
    server.stop().await;
}

#[tokio::test]
async fn a_player_is_never_paired_with_themselves_and_plays_one_game_at_a_time() {
    let server = server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = common::create_players(&mut players, ["alice", "bob"]).await;
    let (_, mut first) = seek(&mut players, &alice, blitz(false)).await.unwrap();
    let (_, mut second) = seek(&mut players, &alice, blitz(false)).await.unwrap();
    common::let_pass(PAIRING * 6).await;
    assert_eq!(
        lobby(&mut players).await.len(),
        2,
        "alice is not paired with herself"
    );
    let (_, mut bobs) = seek(&mut players, &bob, blitz(false)).await.unwrap();
    let game = paired(&mut bobs).await;
    // One of alice's seeks gets the game; the other is withdrawn with it.
    let (a, b) = tokio::join!(first.message(), second.message());
    let (told, withdrawn) = match (a, b) {
        (Ok(Some(told)), Err(withdrawn)) | (Err(withdrawn), Ok(Some(told))) => (told, withdrawn),
        other => panic!("one game and one withdrawn seek, not {other:?}"),
    };
    assert_eq!(told.game.unwrap().id, game.id);
    assert_eq!(
        code_and_reason(&withdrawn),
        (Code::NotFound, "SEEK_NOT_FOUND".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_streams_seeks_as_they_come_and_go() {
    let server = server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = common::create_players(&mut players, ["alice", "bob"]).await;
    let (before, _) = seek(&mut players, &alice, correspondence()).await.unwrap();
    let mut chess_lobby = players
        .watch_lobby(pb::WatchLobbyRequest {
            variant: pb::Variant::Chess as i32,
        })
        .await
        .unwrap()
        .into_inner();
    let mut lobby = players
        .watch_lobby(pb::WatchLobbyRequest::default())
        .await
        .unwrap()
        .into_inner();
    let mut next = async || {
        tokio::time::timeout(WITHIN, lobby.message())
            .await
            .expect("in time")
            .unwrap()
            .unwrap()
    };
    assert_eq!(
        next().await.added.unwrap().id,
        before.id,
        "open seeks first"
    );
    let (later, _bobs) = seek(&mut players, &bob, blitz(false)).await.unwrap();
    assert_eq!(next().await.added.unwrap().id, later.id);
    let cancel = pb::CancelSeekRequest {
        seek_id: before.id.clone(),
    };
    players.cancel_seek(bearing(cancel, &alice)).await.unwrap();
    assert_eq!(next().await.removed, before.id);
    let chess = tokio::time::timeout(WITHIN, chess_lobby.message())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        chess.added.unwrap().id,
        later.id,
        "xiangqi seeks are left out"
    );
    server.stop().await;
}

#[tokio::test]
async fn seekers_spread_over_replicas_are_each_paired_once() {
    let server = server().await;
    let players = PlayersClient::new(server.channel().await);
    // On PostgreSQL, where replicas share a database, two more servers on
    // it: seeks are held by three, and paired by the one that leads.
    let servers = if common::database::backend_is_postgres() {
        2
    } else {
        0
    };
    let mut others = Vec::new();
    for _ in 0..servers {
        others.push(
            TestServer::start_on_configured(&server.db, |config| ServerConfig {
                pairing_interval: PAIRING,
                ..config
            })
            .await,
        );
    }
    let mut clients = vec![players.clone()];
    for other in &others {
        clients.push(PlayersClient::new(other.channel().await));
    }
    let names: Vec<String> = (0..12).map(|n| format!("seeker{n}")).collect();
    let mut streams = Vec::new();
    for (n, name) in names.iter().enumerate() {
        let count = clients.len();
        let client = &mut clients[n % count];
        let token = common::create_player(client, name).await.1;
        streams.push(seek(client, &token, blitz(true)).await.unwrap().1);
    }
    let mut games: HashMap<String, Vec<String>> = HashMap::new();
    for (name, stream) in names.iter().zip(&mut streams) {
        let game = paired(stream).await;
        games.entry(game.id).or_default().push(name.clone());
    }
    assert_eq!(games.len(), 6, "twelve seekers, six games: {games:?}");
    assert!(games.values().all(|seated| seated.len() == 2));
    for name in &names {
        let theirs = server
            .games()
            .await
            .list_games(pb::ListGamesRequest {
                player_id: name.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(theirs.games.len(), 1, "{name} plays one game");
    }
    for other in others {
        other.stop().await;
    }
    server.stop().await;
}
