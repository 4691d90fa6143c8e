//! A player leaves: their games in play end, their tokens, ratings, seeks
//! and challenges go, their stored games and exports name them "Deleted
//! player" and stay whole for their opponents, and their username stays
//! taken; only they, or the operator, delete them.

use crate::{
    common::{self, TestServer, bearing, code_and_reason},
    ratings::{create, play, rated_game, resign},
};

use arbiter::{
    api::proto::{self as pb, players_client::PlayersClient},
    games::AdminToken,
    server::ServerConfig,
};
use tonic::Code;

const ADMIN: &str = "5e2b8d4f1a7c9e3b6d0f2a4c8e1b3d5f";

#[tokio::test]
async fn a_deleted_player_leaves_their_games_whole_for_their_opponents() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        admin_token: Some(AdminToken::new(ADMIN).unwrap()),
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let [alice, bob, carol] = common::create_players(&mut players, ["alice", "bob", "carol"]).await;
    // A rated game bob resigned, one in play past both first moves, and
    // one nobody moved in yet.
    let rated = create(&mut games, rated_game()).await;
    play(&mut games, &rated, &alice, "e4").await;
    play(&mut games, &rated, &bob, "e5").await;
    resign(&mut games, &rated, &bob).await;
    let in_play = create(&mut games, rated_game()).await;
    play(&mut games, &in_play, &alice, "d4").await;
    play(&mut games, &in_play, &bob, "d5").await;
    let unmoved = create(
        &mut games,
        pb::CreateGameRequest {
            black: Some(pb::SeatRequest {
                player_id: "carol".into(),
                ..Default::default()
            }),
            rated: false,
            ..rated_game()
        },
    )
    .await;
    let seek = pb::SeekRequest {
        variant: pb::Variant::Chess as i32,
        time_control: Some(pb::TimeControl {
            days_per_move: 2,
            ..Default::default()
        }),
        ..Default::default()
    };
    players.seek(bearing(seek, &alice)).await.unwrap();
    let challenge = pb::CreateChallengeRequest {
        destination_id: "carol".into(),
        variant: pb::Variant::Chess as i32,
        ..Default::default()
    };
    players
        .create_challenge(bearing(challenge, &alice))
        .await
        .unwrap();

    // Another player is the operator's to delete.
    let others = pb::DeletePlayerRequest {
        player: "alice".into(),
        ..Default::default()
    };
    let refused = players
        .delete_player(bearing(others.clone(), &bob))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::PermissionDenied, "OPERATOR_ONLY".into())
    );
    let deleted = players
        .delete_player(bearing(pb::DeletePlayerRequest::default(), &alice))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(deleted.games_ended, 2);

    let gone = players
        .create_player_token(bearing(pb::CreatePlayerTokenRequest {}, &alice))
        .await
        .unwrap_err();
    assert_eq!(gone.code(), Code::Unauthenticated, "her tokens are revoked");
    let found = players
        .get_player(pb::GetPlayerRequest {
            player: "alice".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&found),
        (Code::NotFound, "PLAYER_NOT_FOUND".into())
    );
    let again = players
        .create_player(pb::CreatePlayerRequest {
            username: "ALICE".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&again).1,
        "USERNAME_TAKEN",
        "her name stays taken"
    );

    let game = common::get_game(&mut games, &in_play).await;
    assert_eq!(
        game.outcome.unwrap().winner,
        pb::Side::Black as i32,
        "resigned: bob wins"
    );
    let game = common::get_game(&mut games, &unmoved).await;
    assert_eq!(
        game.outcome.unwrap().status,
        pb::OutcomeStatus::Aborted as i32
    );
    let game = common::get_game(&mut games, &rated).await;
    let (white, black) = (game.white.unwrap(), game.black.unwrap());
    assert_eq!(
        (white.display_name.as_str(), white.player_id.as_str()),
        ("Deleted player", "")
    );
    assert_eq!(
        (black.display_name.as_str(), black.player_id.as_str()),
        ("bob", "bob")
    );
    assert_eq!(game.ply, 2, "the game is whole");
    let pgn = common::export(&mut games, &rated, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[White \"Deleted player\"]"), "{pgn}");
    assert!(!pgn.to_lowercase().contains("alice"), "{pgn}");
    let listed = |player: &str| pb::ListGamesRequest {
        player_id: player.into(),
        ..Default::default()
    };
    let bobs = games.list_games(listed("bob")).await.unwrap().into_inner();
    assert_eq!(bobs.games.len(), 2, "bob keeps his games");
    let found = games.list_games(listed("alice")).await;
    assert!(found.map_or(true, |r| r.into_inner().games.is_empty()));
    let history = players
        .get_rating_history(pb::GetRatingHistoryRequest {
            player: "bob".into(),
            perf: "chess_blitz".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        history.points.len(),
        2,
        "bob keeps his rating, and wins the game she left"
    );
    let seeks = players.list_seeks(pb::ListSeeksRequest::default()).await;
    assert!(seeks.unwrap().into_inner().seeks.is_empty());
    let carols = players
        .list_challenges(bearing(pb::ListChallengesRequest {}, &carol))
        .await
        .unwrap()
        .into_inner();
    assert!(carols.incoming.is_empty(), "her challenges are withdrawn");

    // The operator deletes anyone.
    let by_operator = pb::DeletePlayerRequest {
        player: "carol".into(),
        admin_token: ADMIN.into(),
    };
    players.delete_player(by_operator).await.unwrap();
    let game = common::get_game(&mut games, &unmoved).await;
    assert_eq!(game.black.unwrap().display_name, "Deleted player");
    server.stop().await;
}
