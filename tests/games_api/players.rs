//! Players: accounts with bearer tokens, seats bound to them, a player
//! acting on their seats with their own credential, their games listed,
//! their tokens issued and revoked, and who may create them.

use crate::common::{self, SeatRequest, TestServer, bearing, code_and_reason, create_player};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient, players_client::PlayersClient},
    games::AdminToken,
    players::Enrolment,
    server::ServerConfig,
};
use tonic::{Code, Request, transport::Channel};

const ADMIN: &str = "c3f7e9a1b5d24680f1e3a5c7b9d0e2f4";

/// A game with White bound to the caller (`white_token`'s player) and Black
/// to player `black_id`.
async fn players_game(
    games: &mut GamesClient<Channel>,
    white_token: &str,
    black_id: &str,
) -> pb::CreateGameResponse {
    games
        .create_game(bearing(
            pb::CreateGameRequest {
                variant: pb::Variant::Chess as i32,
                white: Some(pb::SeatRequest {
                    caller: true,
                    ..Default::default()
                }),
                black: Some(pb::SeatRequest {
                    player_id: black_id.into(),
                    ..Default::default()
                }),
                ..Default::default()
            },
            white_token,
        ))
        .await
        .expect("created")
        .into_inner()
}

/// MakeMove of `text` without a seat token, by `token`'s player.
async fn move_as(
    games: &mut GamesClient<Channel>,
    id: &str,
    token: &str,
    text: &str,
) -> Result<pb::MakeMoveResponse, tonic::Status> {
    games
        .make_move(bearing(move_request(id, text), token))
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn players_are_created_found_and_unique_in_any_case() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let (alice, token) = create_player(&mut players, "Alice_1").await;
    assert_eq!(alice.id, "alice_1");
    assert_eq!(alice.username, "Alice_1");
    assert_eq!(alice.display_name, "Alice_1");
    assert!(alice.created_at.is_some());
    assert_eq!(token.len(), 64);
    for name in ["alice_1", "ALICE_1"] {
        let found = players
            .get_player(pb::GetPlayerRequest {
                player: name.into(),
            })
            .await
            .unwrap()
            .into_inner()
            .player
            .unwrap();
        assert_eq!(found, alice);
    }
    // Named by nobody, the player is the caller: "who am I".
    let me = players
        .get_player(bearing(pb::GetPlayerRequest::default(), &token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(me.player.unwrap(), alice);
    let anonymous = players
        .get_player(pb::GetPlayerRequest::default())
        .await
        .unwrap_err();
    assert_eq!(anonymous.code(), Code::Unauthenticated);
    let taken = players
        .create_player(pb::CreatePlayerRequest {
            username: "ALICE_1".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&taken),
        (Code::AlreadyExists, "USERNAME_TAKEN".into())
    );
    for bad in ["a", "-alice", "al ice", "ålice", "abcdefghijklmnopqrstu"] {
        let refused = players
            .create_player(pb::CreatePlayerRequest {
                username: bad.into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (Code::InvalidArgument, "INVALID_USERNAME".into()),
            "{bad}"
        );
    }
    let named = players
        .create_player(pb::CreatePlayerRequest {
            username: "bob".into(),
            display_name: "Bob the Builder".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(named.player.unwrap().display_name, "Bob the Builder");
    for unknown in ["nobody", "not a name!"] {
        let missing = players
            .get_player(pb::GetPlayerRequest {
                player: unknown.into(),
            })
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&missing),
            (Code::NotFound, "PLAYER_NOT_FOUND".into())
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn players_act_on_their_seats_with_their_own_tokens() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (alice, alice_token) = create_player(&mut players, "alice").await;
    let (bob, bob_token) = create_player(&mut players, "bob").await;
    let (_, carol_token) = create_player(&mut players, "carol").await;
    let created = players_game(&mut games, &alice_token, &bob.id).await;
    let game = created.game.unwrap();
    let (white, black) = (game.white.unwrap(), game.black.unwrap());
    assert_eq!(
        (white.player_id.as_str(), white.display_name.as_str()),
        ("alice", "alice")
    );
    assert_eq!(
        (black.player_id.as_str(), black.display_name.as_str()),
        ("bob", "bob")
    );
    let id = game.id;

    move_as(&mut games, &id, &alice_token, "e4")
        .await
        .expect("alice moves");
    // Out of turn, as a seat token would be.
    let early = move_as(&mut games, &id, &alice_token, "d4")
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&early),
        (Code::PermissionDenied, "NOT_YOUR_TURN".into())
    );
    let stranger = move_as(&mut games, &id, &carol_token, "e5")
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&stranger),
        (Code::PermissionDenied, "NOT_YOUR_SEAT".into())
    );
    let unknown = move_as(&mut games, &id, &"0".repeat(64), "e5")
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&unknown),
        (Code::Unauthenticated, "PLAYER_TOKEN_UNKNOWN".into())
    );
    let mut malformed = Request::new(pb::MakeMoveRequest {
        game_id: id.clone(),
        r#move: "e5".into(),
        ..Default::default()
    });
    malformed
        .metadata_mut()
        .insert("authorization", "Basic abc".parse().unwrap());
    let malformed = games.make_move(malformed).await.unwrap_err();
    assert_eq!(
        code_and_reason(&malformed),
        (Code::Unauthenticated, "AUTHORIZATION_MALFORMED".into())
    );
    // Anonymous and without a seat token: as before players.
    let anonymous = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            r#move: "e5".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&anonymous),
        (Code::Unauthenticated, "SEAT_TOKEN_MISSING".into())
    );
    // Bob's seat token is not handed to Alice, who bound his seat: only
    // Bob plays it. Alice's own seat token works, as any seat token does.
    assert!(created.black_token.is_empty());
    move_as(&mut games, &id, &bob_token, "e5")
        .await
        .expect("bob moves");
    common::play(&mut games, &id, &created.white_token, "Nf3").await;
    games
        .offer_draw(bearing(pb::OfferDrawRequest::by_seat(&id, ""), &bob_token))
        .await
        .expect("bob offers a draw");
    let drawn = games
        .respond_to_draw(bearing(
            pb::RespondToDrawRequest {
                game_id: id.clone(),
                accept: true,
                ..Default::default()
            },
            &alice_token,
        ))
        .await
        .expect("alice accepts")
        .into_inner()
        .game
        .unwrap();
    assert_eq!(
        drawn.outcome.unwrap().status,
        pb::OutcomeStatus::Drawn as i32
    );

    // The rematch binds the same players, colours swapped.
    games
        .offer_rematch(bearing(
            pb::OfferRematchRequest::by_seat(&id, ""),
            &alice_token,
        ))
        .await
        .expect("alice offers a rematch");
    let accepted = games
        .respond_to_rematch(bearing(
            pb::RespondToRematchRequest {
                game_id: id.clone(),
                accept: true,
                ..Default::default()
            },
            &bob_token,
        ))
        .await
        .expect("bob accepts")
        .into_inner();
    let rematch = accepted.rematch.unwrap();
    assert_eq!(rematch.white.unwrap().player_id, bob.id);
    assert_eq!(rematch.black.unwrap().player_id, alice.id);
    move_as(&mut games, &rematch.id, &bob_token, "d4")
        .await
        .expect("bob opens the rematch");
    server.stop().await;
}

#[tokio::test]
async fn a_players_games_are_listed_by_their_id() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (_, alice_token) = create_player(&mut players, "alice").await;
    let (bob, _) = create_player(&mut players, "bob").await;
    let (carol, carol_token) = create_player(&mut players, "carol").await;
    let first = players_game(&mut games, &alice_token, &bob.id).await;
    common::new_chess_game(&mut games, None).await;
    let second = players_game(&mut games, &carol_token, &bob.id).await;
    let listed = |player_id: &str, page_token: &str| pb::ListGamesRequest {
        player_id: player_id.into(),
        page_size: 1,
        page_token: page_token.into(),
        ..Default::default()
    };
    let page = games
        .list_games(listed("BOB", ""))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.games[0].id, second.game.unwrap().id);
    let next = games
        .list_games(listed("bob", &page.next_page_token))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(next.games[0].id, first.game.unwrap().id);
    assert!(next.next_page_token.is_empty(), "two games in all");
    let carols = games
        .list_games(listed(&carol.id, ""))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(carols.games.len(), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_player_takes_an_open_seat_as_themselves() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (alice, alice_token) = create_player(&mut players, "alice").await;
    let (bob, bob_token) = create_player(&mut players, "bob").await;
    let open = |caller: bool| pb::CreateGameRequest {
        variant: pb::Variant::Chess as i32,
        white: Some(pb::SeatRequest {
            caller,
            display_name: if caller { String::new() } else { "Host".into() },
            ..Default::default()
        }),
        black: Some(pb::SeatRequest {
            open: true,
            ..Default::default()
        }),
        ..Default::default()
    };
    let join = |code: &str| pb::JoinGameRequest {
        join_code: code.into(),
        ..Default::default()
    };
    // An anonymous host; Bob joins with his credential.
    let hosted = games.create_game(open(false)).await.unwrap().into_inner();
    let joined = games
        .join_game(bearing(join(&hosted.join_code), &bob_token))
        .await
        .expect("bob joins")
        .into_inner();
    let black = joined.game.unwrap().black.unwrap();
    assert_eq!(
        (black.player_id.as_str(), black.display_name.as_str()),
        ("bob", "bob")
    );
    let id = hosted.game.unwrap().id;
    common::play(&mut games, &id, &hosted.white_token, "e4").await;
    move_as(&mut games, &id, &bob_token, "e5")
        .await
        .expect("bob plays his seat with his credential");
    let bobs = games
        .list_games(pb::ListGamesRequest {
            player_id: bob.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(bobs.games.len(), 1);
    // Alice hosts as herself: she cannot take her own game's other seat.
    let hosted = games
        .create_game(bearing(open(true), &alice_token))
        .await
        .unwrap()
        .into_inner();
    let twice = games
        .join_game(bearing(join(&hosted.join_code), &alice_token))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&twice),
        (Code::InvalidArgument, "INVALID_PLAYER_SEAT".into())
    );
    assert_eq!(hosted.game.unwrap().white.unwrap().player_id, alice.id);
    server.stop().await;
}

#[tokio::test]
async fn a_players_ongoing_games_come_first() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (_, alice_token) = create_player(&mut players, "alice").await;
    create_player(&mut players, "bob").await;
    // Oldest to newest: ongoing, finished, ongoing, finished, finished.
    let mut ids = Vec::new();
    for finished in [false, true, false, true, true] {
        let created = players_game(&mut games, &alice_token, "bob").await;
        let id = created.game.unwrap().id;
        if finished {
            games
                .resign(bearing(pb::ResignRequest::by_seat(&id, ""), &alice_token))
                .await
                .expect("resigned");
        }
        ids.push(id);
    }
    let expected = [&ids[2], &ids[0], &ids[4], &ids[3], &ids[1]];
    for page_size in [1, 2, 3, 5] {
        let mut listed = Vec::new();
        let mut page_token = String::new();
        loop {
            let page = games
                .list_games(pb::ListGamesRequest {
                    player_id: "alice".into(),
                    page_size,
                    page_token: page_token.clone(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            assert!(
                !page.games.is_empty(),
                "page size {page_size}: an empty page"
            );
            listed.extend(page.games.into_iter().map(|g| g.id));
            if page.next_page_token.is_empty() {
                break;
            }
            page_token = page.next_page_token;
        }
        assert_eq!(
            listed.iter().collect::<Vec<_>>(),
            expected,
            "page size {page_size}"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn seats_bound_to_players_are_checked() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let (alice, _) = create_player(&mut players, "alice").await;
    let create = |white: pb::SeatRequest, black: pb::SeatRequest| pb::CreateGameRequest {
        variant: pb::Variant::Chess as i32,
        white: Some(white),
        black: Some(black),
        ..Default::default()
    };
    let bound = || pb::SeatRequest {
        player_id: alice.id.clone(),
        ..Default::default()
    };
    let cases = [
        (
            create(bound(), bound()),
            (Code::InvalidArgument, "INVALID_PLAYER_SEAT"),
        ),
        (
            create(
                pb::SeatRequest {
                    engine: Some(pb::EnginePlayer::default()),
                    ..bound()
                },
                pb::SeatRequest::default(),
            ),
            (Code::InvalidArgument, "INVALID_PLAYER_SEAT"),
        ),
        (
            create(
                pb::SeatRequest {
                    player_id: "nobody".into(),
                    ..Default::default()
                },
                pb::SeatRequest::default(),
            ),
            (Code::NotFound, "PLAYER_NOT_FOUND"),
        ),
        (
            create(
                pb::SeatRequest {
                    caller: true,
                    ..Default::default()
                },
                pb::SeatRequest::default(),
            ),
            (Code::Unauthenticated, "PLAYER_TOKEN_MISSING"),
        ),
    ];
    for (request, (code, reason)) in cases {
        let refused = games.create_game(request).await.unwrap_err();
        assert_eq!(code_and_reason(&refused), (code, reason.into()));
    }
    server.stop().await;
}

#[tokio::test]
async fn player_tokens_are_issued_up_to_a_limit_and_revoked() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_player_tokens: 3,
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let (_, first) = create_player(&mut players, "alice").await;
    let issue = |token: &str| bearing(pb::CreatePlayerTokenRequest {}, token);
    let second = players
        .create_player_token(issue(&first))
        .await
        .unwrap()
        .into_inner()
        .token;
    let third = players
        .create_player_token(issue(&second))
        .await
        .unwrap()
        .into_inner()
        .token;
    let full = players
        .create_player_token(issue(&third))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&full),
        (Code::ResourceExhausted, "TOO_MANY_PLAYER_TOKENS".into())
    );
    let anonymous = players
        .create_player_token(pb::CreatePlayerTokenRequest {})
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&anonymous),
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    let revoke = |token: &str, all: bool| bearing(pb::RevokePlayerTokenRequest { all }, token);
    let revoked = players
        .revoke_player_token(revoke(&first, false))
        .await
        .unwrap();
    assert_eq!(revoked.into_inner().revoked, 1);
    let gone = players
        .create_player_token(issue(&first))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&gone),
        (Code::Unauthenticated, "PLAYER_TOKEN_UNKNOWN".into())
    );
    let revoked = players
        .revoke_player_token(revoke(&second, true))
        .await
        .unwrap();
    assert_eq!(revoked.into_inner().revoked, 2);
    for token in [&second, &third] {
        let gone = players.create_player_token(issue(token)).await.unwrap_err();
        assert_eq!(gone.code(), Code::Unauthenticated);
    }
    server.stop().await;
}

pub(crate) const SERVICE: &str = "5e8b1d4a7c0f2e6b9d3a8c1f4e7b0d2a";

/// A server whose players only the operator creates, with the operator
/// credential `ADMIN` and the service credential `SERVICE`.
async fn operator_server() -> TestServer {
    TestServer::start_with_config(|config| ServerConfig {
        admin_token: Some(AdminToken::new(ADMIN).unwrap()),
        service_credential: Some(AdminToken::new(SERVICE).unwrap()),
        enrolment: Enrolment::Operator,
        ..config
    })
    .await
}

#[tokio::test]
async fn only_the_operator_creates_players_when_the_server_says_so() {
    let server = operator_server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let refused = players
        .create_player(pb::CreatePlayerRequest {
            username: "alice".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::PermissionDenied, "OPERATOR_ONLY".into())
    );
    let by_operator = |username: &str| pb::CreatePlayerRequest {
        username: username.into(),
        admin_token: ADMIN.into(),
        ..Default::default()
    };
    let alice = players
        .create_player(by_operator("alice"))
        .await
        .unwrap()
        .into_inner();
    players.create_player(by_operator("bob")).await.unwrap();
    let created = players_game(&mut games, &alice.token, "bob").await;
    let id = created.game.unwrap().id;
    move_as(&mut games, &id, &alice.token, "e4").await.unwrap();
    // A backend acts for Bob with the operator credential.
    let played = games
        .make_move(acting_for(move_request(&id, "e5"), ADMIN, "bob"))
        .await
        .expect("the backend moves for bob");
    assert_eq!(played.into_inner().game.unwrap().ply, 2);
    server.stop().await;
}

/// `message` sent by a backend holding `credential`, acting for `player`.
pub(crate) fn acting_for<T>(message: T, credential: &str, player: &str) -> Request<T> {
    let mut request = bearing(message, credential);
    request
        .metadata_mut()
        .insert("arbiter-player", player.parse().unwrap());
    request
}

fn move_request(id: &str, text: &str) -> pb::MakeMoveRequest {
    pb::MakeMoveRequest {
        game_id: id.into(),
        r#move: text.into(),
        ..Default::default()
    }
}

/// The service credential acts for players, as the operator's does, and
/// for nothing else: what only the operator may do is refused to it.
#[tokio::test]
async fn the_service_credential_acts_for_players_only() {
    let server = operator_server().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let operator_only = (Code::PermissionDenied, "OPERATOR_ONLY".to_owned());
    let create = |username: &str, admin_token: &str| pb::CreatePlayerRequest {
        username: username.into(),
        admin_token: admin_token.into(),
        ..Default::default()
    };
    let refused = players
        .create_player(create("alice", SERVICE))
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&refused), operator_only);
    let alice = players
        .create_player(create("alice", ADMIN))
        .await
        .unwrap()
        .into_inner();
    players.create_player(create("bob", ADMIN)).await.unwrap();
    let id = players_game(&mut games, &alice.token, "bob")
        .await
        .game
        .unwrap()
        .id;
    move_as(&mut games, &id, &alice.token, "e4").await.unwrap();

    // A wrong credential is no one's; the right one needs a player named.
    let wrong = format!("{}0", &SERVICE[..SERVICE.len() - 1]);
    let unknown = games
        .make_move(acting_for(move_request(&id, "e5"), &wrong, "bob"))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&unknown),
        (Code::Unauthenticated, "PLAYER_TOKEN_UNKNOWN".into())
    );
    let nobody = games
        .make_move(bearing(move_request(&id, "e5"), SERVICE))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&nobody),
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    let played = games
        .make_move(acting_for(move_request(&id, "e5"), SERVICE, "bob"))
        .await
        .expect("the service moves for bob");
    assert_eq!(played.into_inner().game.unwrap().ply, 2);

    // Deleting another player is the operator's, whoever it acts for.
    let delete = |admin_token: &str| pb::DeletePlayerRequest {
        player: "alice".into(),
        admin_token: admin_token.into(),
    };
    for refused in [
        players.delete_player(delete(SERVICE)).await.unwrap_err(),
        players
            .delete_player(acting_for(delete(""), SERVICE, "bob"))
            .await
            .unwrap_err(),
    ] {
        assert_eq!(code_and_reason(&refused), operator_only);
    }
    players.delete_player(delete(ADMIN)).await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn guessing_player_tokens_is_limited_per_address() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        auth_failure_rate: 1,
        auth_failure_burst: 3,
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let (_, token) = create_player(&mut players, "alice").await;
    let guess = |n: usize| bearing(pb::CreatePlayerTokenRequest {}, &format!("{n:064x}"));
    let mut limited = None;
    for n in 0..10 {
        let refused = players.create_player_token(guess(n)).await.unwrap_err();
        if refused.code() == Code::ResourceExhausted {
            limited = Some(refused);
            break;
        }
        assert_eq!(
            code_and_reason(&refused),
            (Code::Unauthenticated, "PLAYER_TOKEN_UNKNOWN".into())
        );
    }
    let limited = limited.expect("the guesses are cut short");
    assert_eq!(
        code_and_reason(&limited),
        (Code::ResourceExhausted, "CREDENTIAL_CHECKS_LIMITED".into())
    );
    // Barred, the address cannot use even a good token for a while.
    let barred = players
        .create_player_token(bearing(pb::CreatePlayerTokenRequest {}, &token))
        .await
        .unwrap_err();
    assert_eq!(barred.code(), Code::ResourceExhausted);
    server.stop().await;
}
