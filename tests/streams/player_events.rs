//! Players.WatchEvents: one stream of a player's games and challenges,
//! with the games that start after it opened, the challenges made to the
//! player, its bounds, and a second stream told what is going on.

use crate::common::{self, TestServer, bearing, code_and_reason, create_player};

use std::time::Duration;

use arbiter::{
    api::{
        PlayerLimits,
        proto::{self as pb, players_client::PlayersClient},
    },
    server::ServerConfig,
};
use tonic::{Code, Streaming, transport::Channel};

/// The next event of `stream`: its kind, and the game's or challenge's id.
async fn next(stream: &mut Streaming<pb::WatchEventsResponse>) -> (pb::PlayerEventKind, String) {
    let message = tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event in time")
        .expect("no error")
        .expect("the stream goes on");
    let kind = pb::PlayerEventKind::try_from(message.kind).expect("a known kind");
    let id = match (message.game, message.challenge) {
        (Some(game), _) => game.id,
        (None, Some(challenge)) => challenge.id,
        (None, None) => panic!("an event about nothing"),
    };
    (kind, id)
}

/// Opens a WatchEvents stream as `token`'s player.
async fn open(
    players: &PlayersClient<Channel>,
    token: &str,
) -> Result<tonic::Response<Streaming<pb::WatchEventsResponse>>, tonic::Status> {
    players
        .clone()
        .watch_events(bearing(pb::WatchEventsRequest {}, token))
        .await
}

fn blitz_challenge(to: &str) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest {
        destination_id: to.into(),
        variant: pb::Variant::Chess as i32,
        color: pb::ChallengeColor::White as i32,
        time_control: Some(pb::TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `challenger`'s blitz challenge to `to`, made through `players`.
async fn challenge(
    players: &mut PlayersClient<Channel>,
    challenger: &str,
    to: &str,
) -> pb::Challenge {
    players
        .create_challenge(bearing(blitz_challenge(to), challenger))
        .await
        .unwrap()
        .into_inner()
        .challenge
        .unwrap()
}

/// The game `acceptor` starts by accepting challenge `id`.
async fn accept(players: &mut PlayersClient<Channel>, acceptor: &str, id: String) -> pb::Game {
    players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest { challenge_id: id },
            acceptor,
        ))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
}

#[tokio::test]
async fn a_players_stream_tells_their_challenges_and_games_as_they_come() {
    use pb::PlayerEventKind::{Challenge, GameEnded, GameStarted, YourTurn};
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (_, alice) = create_player(&mut players, "alice").await;
    let (_, bob) = create_player(&mut players, "bob").await;
    let mut bobs = players
        .watch_events(bearing(pb::WatchEventsRequest {}, &bob))
        .await
        .expect("bob watches")
        .into_inner();

    let made = challenge(&mut players, &alice, "bob").await;
    assert_eq!(next(&mut bobs).await, (Challenge, made.id.clone()));
    let game = accept(&mut players, &bob, made.id).await;
    assert_eq!(next(&mut bobs).await, (GameStarted, game.id.clone()));
    games
        .make_move(bearing(
            pb::MakeMoveRequest {
                game_id: game.id.clone(),
                r#move: "e4".into(),
                ..Default::default()
            },
            &alice,
        ))
        .await
        .unwrap();
    assert_eq!(next(&mut bobs).await, (YourTurn, game.id.clone()));

    // A second device is told what is going on when it opens.
    let mut second = players
        .watch_events(bearing(pb::WatchEventsRequest {}, &bob))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(next(&mut second).await, (GameStarted, game.id.clone()));
    assert_eq!(next(&mut second).await, (YourTurn, game.id.clone()));

    games
        .resign(bearing(
            pb::ResignRequest {
                game_id: game.id.clone(),
                ..Default::default()
            },
            &alice,
        ))
        .await
        .unwrap();
    assert_eq!(next(&mut bobs).await, (GameEnded, game.id.clone()));
    assert_eq!(next(&mut second).await, (GameEnded, game.id));
    server.stop().await;
}

#[tokio::test]
async fn a_players_streams_are_bounded_and_need_a_player() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        player_streams: PlayerLimits {
            max_per_player: 2,
            ..config.player_streams
        },
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let (_, alice) = create_player(&mut players, "alice").await;
    let (_, bob) = create_player(&mut players, "bob").await;
    let _first = open(&players, &alice).await.expect("one");
    let _second = open(&players, &alice).await.expect("two");
    let third = open(&players, &alice).await.unwrap_err();
    assert_eq!(
        code_and_reason(&third),
        (Code::ResourceExhausted, "TOO_MANY_WATCHERS".into())
    );
    let _bobs = open(&players, &bob).await.expect("another player's own");
    let anonymous = players
        .watch_events(pb::WatchEventsRequest {})
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&anonymous),
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    server.stop().await;
}

/// Replicas share a PostgreSQL database: a player's stream on one server
/// hears what another did.
#[tokio::test]
async fn a_players_stream_hears_what_another_server_did() {
    use pb::PlayerEventKind::{Challenge, GameStarted};
    let Some(db) =
        common::database::postgres_or_skip("a_players_stream_hears_what_another_server_did").await
    else {
        return;
    };
    let here = TestServer::start_on(&db).await;
    let mut players = PlayersClient::new(here.channel().await);
    let (_, alice) = create_player(&mut players, "alice").await;
    let (_, bob) = create_player(&mut players, "bob").await;
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    // Another server on the same database, migrated by now.
    let there = TestServer::start_on(&here.db).await;
    let mut elsewhere = PlayersClient::new(there.channel().await);
    let made = challenge(&mut elsewhere, &alice, "bob").await;
    assert_eq!(next(&mut bobs).await, (Challenge, made.id.clone()));
    let game = accept(&mut elsewhere, &bob, made.id).await;
    assert_eq!(next(&mut bobs).await, (GameStarted, game.id));
    there.stop().await;
    here.stop().await;
}

#[tokio::test]
async fn withdrawn_and_declined_challenges_are_told_to_the_other_side() {
    use pb::PlayerEventKind::{Challenge, ChallengeCanceled, ChallengeDeclined};
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let (_, alice) = create_player(&mut players, "alice").await;
    let (_, bob) = create_player(&mut players, "bob").await;
    let mut alices = open(&players, &alice).await.unwrap().into_inner();
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    let first = challenge(&mut players, &alice, "bob").await.id;
    let second = challenge(&mut players, &alice, "bob").await.id;
    assert_eq!(next(&mut bobs).await, (Challenge, first.clone()));
    assert_eq!(next(&mut bobs).await, (Challenge, second.clone()));
    players
        .cancel_challenge(bearing(
            pb::CancelChallengeRequest {
                challenge_id: first.clone(),
            },
            &alice,
        ))
        .await
        .unwrap();
    assert_eq!(next(&mut bobs).await, (ChallengeCanceled, first));
    // Alice's stream, told Bob's challenge, has looked since hers were made.
    let third = challenge(&mut players, &bob, "alice").await.id;
    assert_eq!(next(&mut alices).await, (Challenge, third));
    players
        .decline_challenge(bearing(
            pb::DeclineChallengeRequest {
                challenge_id: second.clone(),
                reason: pb::DeclineReason::Later as i32,
            },
            &bob,
        ))
        .await
        .unwrap();
    assert_eq!(next(&mut alices).await, (ChallengeDeclined, second));
    server.stop().await;
}
