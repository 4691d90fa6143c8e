//! Challenges between players: made, listed, accepted (one game, whoever
//! races), declined, withdrawn, expired, open to anyone or to a list, and
//! to the engine.

use crate::common::{self, TestServer, bearing, code_and_reason};

use std::{sync::Arc, time::Duration};

use arbiter::{
    api::proto::{self as pb, players_client::PlayersClient},
    games::{ManualTime, TimeSource},
    server::ServerConfig,
};
use tonic::{Code, transport::Channel};

fn chess_challenge(destination: &str) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest {
        destination_id: destination.into(),
        variant: pb::Variant::Chess as i32,
        time_control: Some(pb::TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
            ..Default::default()
        }),
        color: pb::ChallengeColor::White as i32,
        ..Default::default()
    }
}

async fn challenge(
    players: &mut PlayersClient<Channel>,
    token: &str,
    request: pb::CreateChallengeRequest,
) -> Result<pb::Challenge, tonic::Status> {
    players
        .create_challenge(bearing(request, token))
        .await
        .map(|r| r.into_inner().challenge.expect("a challenge"))
}

async fn accept(
    players: &mut PlayersClient<Channel>,
    token: &str,
    id: &str,
) -> Result<pb::AcceptChallengeResponse, tonic::Status> {
    players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest {
                challenge_id: id.into(),
                ..Default::default()
            },
            token,
        ))
        .await
        .map(tonic::Response::into_inner)
}

async fn listed(players: &mut PlayersClient<Channel>, token: &str) -> pb::ListChallengesResponse {
    players
        .list_challenges(bearing(pb::ListChallengesRequest {}, token))
        .await
        .expect("listed")
        .into_inner()
}

#[tokio::test]
async fn an_accepted_challenge_starts_one_game_between_its_players() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let [alice, bob, carol] = common::create_players(&mut players, ["alice", "bob", "carol"]).await;
    let made = challenge(&mut players, &alice, chess_challenge("Bob"))
        .await
        .unwrap();
    assert_eq!(made.status, pb::ChallengeStatus::Open as i32);
    assert_eq!(
        (made.challenger_id.as_str(), made.destination_id.as_str()),
        ("alice", "bob")
    );
    assert!(made.expires_at.unwrap().seconds > made.created_at.unwrap().seconds);
    let bobs = listed(&mut players, &bob).await;
    assert_eq!(bobs.incoming.len(), 1);
    assert_eq!(listed(&mut players, &alice).await.outgoing[0].id, made.id);
    assert!(listed(&mut players, &carol).await.incoming.is_empty());

    let stranger = accept(&mut players, &carol, &made.id).await.unwrap_err();
    assert_eq!(
        code_and_reason(&stranger),
        (Code::PermissionDenied, "NOT_YOUR_CHALLENGE".into())
    );
    let accepted = accept(&mut players, &bob, &made.id).await.unwrap();
    let game = accepted.game.unwrap();
    assert_eq!(
        accepted.challenge.unwrap().status,
        pb::ChallengeStatus::Accepted as i32
    );
    assert_eq!(game.white.as_ref().unwrap().player_id, "alice");
    assert_eq!(game.black.as_ref().unwrap().player_id, "bob");
    assert_eq!(game.clock.unwrap().control.unwrap().initial_ms, 180_000);
    // Accepting again answers the same game; nobody else can.
    let again = accept(&mut players, &bob, &made.id).await.unwrap();
    assert_eq!(again.game.unwrap().id, game.id);
    let late = players
        .cancel_challenge(bearing(
            pb::CancelChallengeRequest {
                challenge_id: made.id.clone(),
            },
            &alice,
        ))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&late),
        (Code::FailedPrecondition, "CHALLENGE_ANSWERED".into())
    );
    // The players play it with their own tokens.
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
        .expect("alice moves");
    assert!(listed(&mut players, &bob).await.incoming.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn racing_acceptances_of_an_open_challenge_start_one_game() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let names = ["host", "p1", "p2", "p3", "p4", "p5", "p6"];
    let tokens = common::create_players(&mut players, names).await;
    let made = challenge(&mut players, &tokens[0], chess_challenge(""))
        .await
        .unwrap();
    assert_eq!(made.destination_id, "");
    // On PostgreSQL, where replicas share a database, two more servers on
    // it (migrated by now): the acceptances race across three. On SQLite
    // they race on one server.
    let servers = if common::database::backend_is_postgres() {
        2
    } else {
        0
    };
    let mut others = Vec::new();
    for _ in 0..servers {
        others.push(TestServer::start_on(&server.db).await);
    }
    let mut clients = vec![players.clone()];
    for other in &others {
        clients.push(PlayersClient::new(other.channel().await));
    }
    let races: Vec<_> = tokens[1..]
        .iter()
        .enumerate()
        .map(|(n, token)| {
            let mut players = clients[n % clients.len()].clone();
            let (token, id) = (token.clone(), made.id.clone());
            tokio::spawn(async move { accept(&mut players, &token, &id).await })
        })
        .collect();
    let mut games = Vec::new();
    for race in races {
        match race.await.unwrap() {
            Ok(accepted) => games.push(accepted.game.unwrap().id),
            Err(status) => assert_eq!(
                code_and_reason(&status),
                (Code::FailedPrecondition, "CHALLENGE_ANSWERED".into())
            ),
        }
    }
    assert_eq!(games.len(), 1, "one acceptance wins");
    let hosts = server
        .games()
        .await
        .list_games(pb::ListGamesRequest {
            player_id: "host".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(hosts.games.len(), 1, "one game was created");
    for other in others {
        other.stop().await;
    }
    server.stop().await;
}

/// A challenge accepted while its maker cancels it (or its player
/// declines it), on two servers of one database on PostgreSQL: one of the
/// two wins, and a game exists exactly when the acceptance did.
#[tokio::test]
async fn an_acceptance_racing_a_cancel_or_a_decline_settles_one_way() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_challenges_per_player: 100,
        ..config
    })
    .await;
    let other = if common::database::backend_is_postgres() {
        Some(TestServer::start_on(&server.db).await)
    } else {
        None
    };
    let mut players = PlayersClient::new(server.channel().await);
    let tokens = common::create_players(&mut players, ["host", "guest"]).await;
    let mut across = match &other {
        Some(other) => PlayersClient::new(other.channel().await),
        None => players.clone(),
    };
    let mut accepted = 0;
    for round in 0..12 {
        let made = challenge(&mut players, &tokens[0], chess_challenge("guest"))
            .await
            .unwrap();
        let (mut acceptor, id, guest) = (players.clone(), made.id.clone(), tokens[1].clone());
        let accepting = tokio::spawn(async move { accept(&mut acceptor, &guest, &id).await });
        let withdrawn =
            common::withdraw_challenge(&mut across, &made.id, [&tokens[0], &tokens[1]], round)
                .await;
        let acceptance = accepting.await.unwrap();
        common::assert_one_won(&acceptance, &withdrawn, round);
        accepted += usize::from(acceptance.is_ok());
    }
    let hosts = server
        .games()
        .await
        .list_games(pb::ListGamesRequest {
            player_id: "host".into(),
            page_size: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(hosts.games.len(), accepted, "a game for each acceptance");
    if let Some(other) = other {
        other.stop().await;
    }
    server.stop().await;
}

#[tokio::test]
async fn challenges_are_declined_withdrawn_limited_and_checked() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_challenges_per_player: 2,
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob, carol] = common::create_players(&mut players, ["alice", "bob", "carol"]).await;
    let first = challenge(&mut players, &alice, chess_challenge("bob"))
        .await
        .unwrap();
    let not_bobs = players
        .decline_challenge(bearing(
            pb::DeclineChallengeRequest {
                challenge_id: first.id.clone(),
                reason: pb::DeclineReason::Later as i32,
            },
            &carol,
        ))
        .await
        .unwrap_err();
    assert_eq!(not_bobs.code(), Code::PermissionDenied);
    let declined = players
        .decline_challenge(bearing(
            pb::DeclineChallengeRequest {
                challenge_id: first.id.clone(),
                reason: pb::DeclineReason::TooFast as i32,
            },
            &bob,
        ))
        .await
        .unwrap()
        .into_inner()
        .challenge
        .unwrap();
    assert_eq!(declined.status, pb::ChallengeStatus::Declined as i32);
    assert_eq!(declined.decline_reason, pb::DeclineReason::TooFast as i32);
    let after = accept(&mut players, &bob, &first.id).await.unwrap_err();
    assert_eq!(
        code_and_reason(&after),
        (Code::FailedPrecondition, "CHALLENGE_ANSWERED".into())
    );

    let second = challenge(&mut players, &alice, chess_challenge("bob"))
        .await
        .unwrap();
    challenge(&mut players, &alice, chess_challenge("carol"))
        .await
        .unwrap();
    let third = challenge(&mut players, &alice, chess_challenge("carol"))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&third),
        (Code::ResourceExhausted, "TOO_MANY_CHALLENGES".into())
    );
    let withdrawn = players
        .cancel_challenge(bearing(
            pb::CancelChallengeRequest {
                challenge_id: second.id.clone(),
            },
            &alice,
        ))
        .await
        .unwrap()
        .into_inner()
        .challenge
        .unwrap();
    assert_eq!(withdrawn.status, pb::ChallengeStatus::Canceled as i32);
    challenge(&mut players, &alice, chess_challenge("carol"))
        .await
        .expect("room again");

    let cases = [
        (
            chess_challenge("Bob"),
            (Code::InvalidArgument, "INVALID_CHALLENGE"),
        ),
        (
            chess_challenge("nobody"),
            (Code::NotFound, "PLAYER_NOT_FOUND"),
        ),
        (
            pb::CreateChallengeRequest {
                fen: "not a fen".into(),
                ..chess_challenge("carol")
            },
            (Code::InvalidArgument, "INVALID_FEN"),
        ),
        (
            pb::CreateChallengeRequest {
                open_to: vec!["carol".into()],
                ..chess_challenge("carol")
            },
            (Code::InvalidArgument, "INVALID_CHALLENGE"),
        ),
    ];
    for (request, (code, reason)) in cases {
        let refused = challenge(&mut players, &bob, request).await.unwrap_err();
        assert_eq!(code_and_reason(&refused), (code, reason.into()));
    }
    let anonymous = players
        .create_challenge(chess_challenge("bob"))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&anonymous),
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    let unknown = accept(&mut players, &bob, "nosuchchallenge")
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&unknown),
        (Code::NotFound, "CHALLENGE_NOT_FOUND".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn challenges_expire_and_open_ones_go_to_their_list() {
    let time = ManualTime::new(1_000_000);
    let server = TestServer::start_with_config({
        let time = time.clone();
        move |config| ServerConfig {
            time: time as Arc<dyn TimeSource>,
            challenge_expiry: Duration::from_secs(60),
            ..config
        }
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob, carol] = common::create_players(&mut players, ["alice", "bob", "carol"]).await;
    let made = challenge(&mut players, &alice, chess_challenge("bob"))
        .await
        .unwrap();
    let listed_open = challenge(
        &mut players,
        &alice,
        pb::CreateChallengeRequest {
            open_to: vec!["Carol".into()],
            ..chess_challenge("")
        },
    )
    .await
    .unwrap();
    assert_eq!(listed_open.open_to, ["carol"]);
    assert_eq!(
        listed(&mut players, &carol).await.incoming[0].id,
        listed_open.id
    );
    assert_eq!(
        listed(&mut players, &bob).await.incoming.len(),
        1,
        "bob is not on the list"
    );
    let not_listed = accept(&mut players, &bob, &listed_open.id)
        .await
        .unwrap_err();
    assert_eq!(not_listed.code(), Code::PermissionDenied);

    time.advance(Duration::from_secs(61));
    assert!(listed(&mut players, &bob).await.incoming.is_empty());
    assert!(listed(&mut players, &alice).await.outgoing.is_empty());
    let expired = accept(&mut players, &bob, &made.id).await.unwrap_err();
    assert_eq!(
        code_and_reason(&expired),
        (Code::FailedPrecondition, "CHALLENGE_ANSWERED".into())
    );
    assert!(
        expired.message().contains("expired"),
        "{}",
        expired.message()
    );
    server.stop().await;
}

#[tokio::test]
async fn a_challenge_to_the_engine_starts_at_once() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice] = common::create_players(&mut players, ["alice"]).await;
    let answer = players
        .create_challenge(bearing(
            pb::CreateChallengeRequest {
                engine: Some(pb::EnginePlayer {
                    level: 1,
                    movetime_ms: 50,
                }),
                variant: pb::Variant::Xiangqi as i32,
                color: pb::ChallengeColor::Black as i32,
                ..Default::default()
            },
            &alice,
        ))
        .await
        .expect("challenged")
        .into_inner();
    let made = answer.challenge.unwrap();
    assert_eq!(made.status, pb::ChallengeStatus::Accepted as i32);
    let game = answer.game.unwrap();
    assert_eq!(made.game_id, game.id);
    assert!(game.white.unwrap().engine.is_some());
    assert_eq!(game.black.unwrap().player_id, "alice");
    server.stop().await;
}

/// A Chess960 challenge shows its start before anyone accepts: the one
/// numbered, or one drawn when it is made; a rated one starts there and is
/// rated; a start number for chess, or beside a FEN, is refused.
#[tokio::test]
async fn a_chess960_challenge_shows_its_start_and_plays_it_rated() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = common::create_players(&mut players, ["alice", "bob"]).await;
    let chess960 = |start: Option<u32>| pb::CreateChallengeRequest {
        variant: pb::Variant::Chess960 as i32,
        chess960_start: start,
        rated: true,
        ..chess_challenge("bob")
    };
    let made = challenge(&mut players, &alice, chess960(Some(7)))
        .await
        .unwrap();
    assert_eq!(made.chess960_start, Some(7));
    assert_eq!(
        made.fen,
        "qnbnrkrb/pppppppp/8/8/8/8/PPPPPPPP/QNBNRKRB w KQkq - 0 1"
    );
    let game = accept(&mut players, &bob, &made.id)
        .await
        .unwrap()
        .game
        .unwrap();
    assert_eq!(
        (game.start_fen.as_str(), game.chess960_start),
        (made.fen.as_str(), Some(7))
    );
    assert!(game.rated);

    let drawn = challenge(&mut players, &alice, chess960(None))
        .await
        .unwrap();
    let number = drawn.chess960_start.expect("a start drawn when made");
    assert!(number < 960, "{number}");
    assert!(!drawn.fen.is_empty());

    let mut chess = chess960(Some(7));
    chess.variant = pb::Variant::Chess as i32;
    let refused = challenge(&mut players, &alice, chess).await.unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::InvalidArgument, "VARIANT_MISMATCH".into())
    );
    let both = pb::CreateChallengeRequest {
        fen: made.fen.clone(),
        rated: false,
        ..chess960(Some(7))
    };
    let refused = challenge(&mut players, &alice, both).await.unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::InvalidArgument, "INVALID_CHALLENGE".into())
    );
}
