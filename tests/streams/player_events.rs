//! Players.WatchEvents: one stream of a player's games and challenges,
//! with the games that start after it opened, the challenges made to the
//! player, its bounds, and a second stream told what is going on.

use crate::common::{self, TestServer, bearing, code_and_reason, create_players};

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
    about(&message(stream).await)
}

/// Opens a WatchEvents stream as `token`'s player.
async fn open(
    players: &PlayersClient<Channel>,
    token: &str,
) -> Result<tonic::Response<Streaming<pb::WatchEventsResponse>>, tonic::Status> {
    players
        .clone()
        .watch_events(bearing(pb::WatchEventsRequest::default(), token))
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
            pb::AcceptChallengeRequest {
                challenge_id: id,
                ..Default::default()
            },
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
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let mut bobs = players
        .watch_events(bearing(pb::WatchEventsRequest::default(), &bob))
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
        .watch_events(bearing(pb::WatchEventsRequest::default(), &bob))
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
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let _first = open(&players, &alice).await.expect("one");
    let _second = open(&players, &alice).await.expect("two");
    let third = open(&players, &alice).await.unwrap_err();
    assert_eq!(
        code_and_reason(&third),
        (Code::ResourceExhausted, "TOO_MANY_WATCHERS".into())
    );
    let _bobs = open(&players, &bob).await.expect("another player's own");
    let anonymous = players
        .watch_events(pb::WatchEventsRequest::default())
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&anonymous),
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    server.stop().await;
}

/// The next event of `stream`, told well before the stream's next look
/// (every 5 s).
async fn soon(stream: &mut Streaming<pb::WatchEventsResponse>) -> (pb::PlayerEventKind, String) {
    tokio::time::timeout(Duration::from_millis(1500), next(stream))
        .await
        .expect("told through the change feed")
}

/// Replicas share a PostgreSQL database: a player's stream on one server
/// hears what another did, at once, and resumes on another.
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
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    // Another server on the same database, migrated by now.
    let there = TestServer::start_on(&here.db).await;
    let mut elsewhere = PlayersClient::new(there.channel().await);
    // Told at once through the change feed, not at the next look.
    let made = challenge(&mut elsewhere, &alice, "bob").await;
    assert_eq!(soon(&mut bobs).await, (Challenge, made.id.clone()));
    let game = accept(&mut elsewhere, &bob, made.id.clone()).await;
    let started = message(&mut bobs).await;
    assert_eq!(about(&started), (GameStarted, game.id.clone()));
    drop(bobs);
    // Resumed on the other server, from the same log.
    let second = challenge(&mut players, &alice, "bob").await.id;
    let mut resumed = resume(&elsewhere, &bob, &started.cursor)
        .await
        .unwrap()
        .into_inner();
    assert_eq!(next(&mut resumed).await, (Challenge, second));
    players
        .create_challenge(bearing(blitz_challenge("bob"), &alice))
        .await
        .unwrap();
    assert_eq!(soon(&mut resumed).await.0, Challenge);
    there.stop().await;
    here.stop().await;
}

#[tokio::test]
async fn withdrawn_and_declined_challenges_are_told_to_the_other_side() {
    use pb::PlayerEventKind::{Challenge, ChallengeCanceled, ChallengeDeclined};
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
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

/// The next message of `stream`, in time.
async fn message(stream: &mut Streaming<pb::WatchEventsResponse>) -> pb::WatchEventsResponse {
    tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("an event in time")
        .expect("no error")
        .expect("the stream goes on")
}

/// The kind of `message`, and the game's or challenge's id.
fn about(message: &pb::WatchEventsResponse) -> (pb::PlayerEventKind, String) {
    let kind = pb::PlayerEventKind::try_from(message.kind).expect("a known kind");
    let id = match (&message.game, &message.challenge) {
        (Some(game), _) => game.id.clone(),
        (None, Some(challenge)) => challenge.id.clone(),
        (None, None) => panic!("an event about nothing"),
    };
    (kind, id)
}

/// Opens a WatchEvents stream as `token`'s player after `cursor`.
async fn resume(
    players: &PlayersClient<Channel>,
    token: &str,
    cursor: &str,
) -> Result<tonic::Response<Streaming<pb::WatchEventsResponse>>, tonic::Status> {
    let request = pb::WatchEventsRequest {
        after: cursor.into(),
    };
    players.clone().watch_events(bearing(request, token)).await
}

/// Nothing more comes on `stream` for a moment.
async fn quiet(stream: &mut Streaming<pb::WatchEventsResponse>) {
    let more = tokio::time::timeout(Duration::from_millis(300), stream.message()).await;
    assert!(more.is_err(), "nothing more: {more:?}");
}

async fn cancel(players: &mut PlayersClient<Channel>, challenger: &str, id: &str) {
    let request = pb::CancelChallengeRequest {
        challenge_id: id.into(),
    };
    players
        .cancel_challenge(bearing(request, challenger))
        .await
        .unwrap();
}

/// A stream opened again after the last message received tells what
/// happened meanwhile, in order and once, then goes on live; resumed from
/// an earlier message, it tells again only what came after that one.
#[tokio::test]
async fn a_resumed_stream_tells_what_happened_meanwhile_once() {
    use pb::PlayerEventKind::{
        Challenge, ChallengeCanceled, ChallengeDeclined, GameEnded, GameStarted,
    };
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    let first = challenge(&mut players, &alice, "bob").await.id;
    let told = message(&mut bobs).await;
    assert_eq!(about(&told), (Challenge, first.clone()));
    assert!(!told.cursor.is_empty(), "a cursor");
    drop(bobs);

    // Meanwhile: another challenge, withdrawn; the first accepted and its
    // game resigned; bob's own challenge declined.
    let second = challenge(&mut players, &alice, "bob").await.id;
    let game = accept(&mut players, &bob, first).await;
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
    cancel(&mut players, &alice, &second).await;
    let bobs_own = challenge(&mut players, &bob, "alice").await.id;
    players
        .decline_challenge(bearing(
            pb::DeclineChallengeRequest {
                challenge_id: bobs_own.clone(),
                reason: pb::DeclineReason::Later as i32,
            },
            &alice,
        ))
        .await
        .unwrap();

    let mut again = resume(&players, &bob, &told.cursor)
        .await
        .unwrap()
        .into_inner();
    let meanwhile = [
        (Challenge, second.clone()),
        (GameStarted, game.id.clone()),
        (GameEnded, game.id.clone()),
        (ChallengeCanceled, second),
        (ChallengeDeclined, bobs_own),
    ];
    let mut cursors = Vec::new();
    for expected in &meanwhile {
        let told = message(&mut again).await;
        assert_eq!(&about(&told), expected);
        cursors.push(told.cursor);
    }
    quiet(&mut again).await;
    // Live from there, with nothing told twice at the seam.
    let third = challenge(&mut players, &alice, "bob").await.id;
    assert_eq!(next(&mut again).await, (Challenge, third.clone()));
    quiet(&mut again).await;
    drop(again);

    // From the game's start: what came after it, once each.
    let mut later = resume(&players, &bob, &cursors[1])
        .await
        .unwrap()
        .into_inner();
    for expected in meanwhile[2..].iter().cloned().chain([(Challenge, third)]) {
        assert_eq!(next(&mut later).await, expected);
    }
    quiet(&mut later).await;
    server.stop().await;
}

/// A resumed stream tells each ongoing game's turn and offers as they
/// stand (its start was told before), then follows the game.
#[tokio::test]
async fn a_resumed_stream_tells_the_ongoing_games_as_they_stand() {
    use pb::PlayerEventKind::{Challenge, GameStarted, YourTurn};
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    let made = challenge(&mut players, &alice, "bob").await;
    assert_eq!(next(&mut bobs).await, (Challenge, made.id.clone()));
    // Alice plays White.
    let game = accept(&mut players, &bob, made.id).await;
    let started = message(&mut bobs).await;
    assert_eq!(about(&started), (GameStarted, game.id.clone()));
    drop(bobs);

    let play = |text: &str, token: &str| {
        bearing(
            pb::MakeMoveRequest {
                game_id: game.id.clone(),
                r#move: text.into(),
                ..Default::default()
            },
            token,
        )
    };
    games.make_move(play("e4", &alice)).await.unwrap();
    let mut again = resume(&players, &bob, &started.cursor)
        .await
        .unwrap()
        .into_inner();
    let turn = message(&mut again).await;
    assert_eq!(about(&turn), (YourTurn, game.id.clone()));
    assert_eq!(turn.game.unwrap().ply, 1);
    assert_eq!(turn.cursor, started.cursor, "nothing logged since");
    quiet(&mut again).await;
    games.make_move(play("e5", &bob)).await.unwrap();
    games.make_move(play("Nf3", &alice)).await.unwrap();
    assert_eq!(next(&mut again).await, (YourTurn, game.id));
    server.stop().await;
}

/// A cursor some of whose events are no longer kept, one past the
/// player's events, or no cursor at all, is refused; a stream resumed
/// from the last event kept is not.
#[tokio::test]
async fn a_cursor_whose_events_are_gone_is_refused() {
    use pb::PlayerEventKind::Challenge;
    use sqlx::Connection;
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = create_players(&mut players, ["alice", "bob"]).await;
    let mut bobs = open(&players, &bob).await.unwrap().into_inner();
    challenge(&mut players, &alice, "bob").await;
    let first = message(&mut bobs).await;
    let second = challenge(&mut players, &alice, "bob").await.id;
    let last = message(&mut bobs).await;
    assert_eq!(about(&last), (Challenge, second));
    drop(bobs);

    // As pruning past the retention would.
    sqlx::any::install_default_drivers();
    let mut db = sqlx::AnyConnection::connect(&server.db.url())
        .await
        .unwrap();
    sqlx::query("DELETE FROM player_events")
        .execute(&mut db)
        .await
        .unwrap();
    db.close().await.unwrap();

    for cursor in [first.cursor.as_str(), "99", "-1", "not a cursor"] {
        let refused = resume(&players, &bob, cursor).await.unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (Code::OutOfRange, "EVENTS_EXPIRED".into()),
            "{cursor}"
        );
    }
    let mut again = resume(&players, &bob, &last.cursor)
        .await
        .unwrap()
        .into_inner();
    let third = challenge(&mut players, &alice, "bob").await.id;
    assert_eq!(next(&mut again).await, (Challenge, third));
    server.stop().await;
}
