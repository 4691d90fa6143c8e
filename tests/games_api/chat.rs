//! A game's chat over gRPC (the Lichess tests play it through HTTP), and
//! xiangqi moves with ranks from one.

use arbiter::api::proto::{self as pb, players_client::PlayersClient};
use tonic::Code;

use crate::common::{TestServer, bearing, code_and_reason, create_game, create_players, get_game};

#[tokio::test]
async fn chat_lines_are_checked_and_read_by_room() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice] = create_players(&mut players, ["alice"]).await;
    let id = create_game(&mut games, pb::Variant::Chess, None, "w", "b")
        .await
        .game
        .unwrap()
        .id;
    let line = |room: pb::ChatRoom, text: &str| pb::SendChatRequest {
        game_id: id.clone(),
        room: room as i32,
        text: text.into(),
    };
    let refused = |request| {
        let mut games = games.clone();
        async move { code_and_reason(&games.send_chat(request).await.unwrap_err()) }
    };
    assert_eq!(
        refused(tonic::Request::new(line(pb::ChatRoom::Spectator, "hi"))).await,
        (Code::Unauthenticated, "PLAYER_TOKEN_MISSING".into())
    );
    for (request, expected) in [
        (
            line(pb::ChatRoom::Unspecified, "hi"),
            (Code::InvalidArgument, "MISSING_FIELD"),
        ),
        (
            line(pb::ChatRoom::Spectator, "  "),
            (Code::InvalidArgument, "MISSING_FIELD"),
        ),
        (
            line(pb::ChatRoom::Spectator, "a\u{7}b"),
            (Code::InvalidArgument, "CONTROL_CHARACTER"),
        ),
        (
            line(pb::ChatRoom::Player, "hi"),
            (Code::PermissionDenied, "NOT_YOUR_SEAT"),
        ),
        (
            pb::SendChatRequest {
                game_id: "nosuchgame1".into(),
                ..line(pb::ChatRoom::Spectator, "hi")
            },
            (Code::NotFound, "GAME_NOT_FOUND"),
        ),
    ] {
        assert_eq!(
            refused(bearing(request, &alice)).await,
            (expected.0, expected.1.into())
        );
    }
    let said = games
        .send_chat(bearing(
            line(pb::ChatRoom::Spectator, " well played "),
            &alice,
        ))
        .await
        .unwrap()
        .into_inner()
        .line
        .unwrap();
    assert_eq!(
        (
            said.seq,
            said.room,
            said.username.as_str(),
            said.text.as_str()
        ),
        (1, pb::ChatRoom::Spectator as i32, "alice", "well played")
    );
    let read = games
        .list_chat(pb::ListChatRequest {
            game_id: id.clone(),
            after: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .lines;
    assert_eq!(read, [said]);
    let after = games
        .list_chat(pb::ListChatRequest {
            game_id: id,
            after: 1,
        })
        .await
        .unwrap()
        .into_inner()
        .lines;
    assert!(after.is_empty());
}

#[tokio::test]
async fn xiangqi_moves_may_number_ranks_from_one() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = create_game(&mut games, pb::Variant::Xiangqi, None, "r", "b").await;
    let id = created.game.unwrap().id;
    let request = |text: &str, ranks: i32| pb::MakeMoveRequest {
        game_id: id.clone(),
        seat_token: created.white_token.clone(),
        r#move: text.into(),
        ranks,
        ..Default::default()
    };
    let unknown = games.make_move(request("h3e3", 7)).await.unwrap_err();
    assert_eq!(
        code_and_reason(&unknown),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".into())
    );
    let off = games
        .make_move(request("h0e0", pb::MoveRanks::FromOne as i32))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&off),
        (Code::InvalidArgument, "UNPARSABLE_MOVE".into())
    );
    games
        .make_move(request("h3e3", pb::MoveRanks::FromOne as i32))
        .await
        .unwrap();
    let game = get_game(&mut games, &id).await;
    assert_eq!(game.moves[0].r#move.as_ref().unwrap().uci, "h2e2");
}
