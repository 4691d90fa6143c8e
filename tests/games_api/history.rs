//! Game history through gRPC: PGN export in every notation for both games,
//! the seats of an import without players, and ListGames filters (player,
//! termination, dates) with stable paging.

use crate::common::{self, SeatRequest};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use common::TestServer;
use tonic::{Code, transport::Channel};

use common::{create_game as create, export};

async fn play(games: &mut GamesClient<Channel>, created: &pb::CreateGameResponse, moves: &[&str]) {
    let game = created.game.as_ref().unwrap();
    let mut white = game.turn == pb::Side::White as i32;
    for m in moves {
        let token = if white {
            &created.white_token
        } else {
            &created.black_token
        };
        common::play(games, &game.id, token, m).await;
        white = !white;
    }
}

#[tokio::test]
async fn pgn_export_in_every_notation() {
    let server = TestServer::start().await;
    let mut games = server.games().await;

    let chess = create(&mut games, pb::Variant::Chess, None, "Alice \"A\"", "Bob").await;
    play(
        &mut games,
        &chess,
        &["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"],
    )
    .await;
    let id = chess.game.as_ref().unwrap().id.clone();
    let pgn = export(&mut games, &id, pb::PgnNotation::Unspecified).await;
    for tag in [
        "[Event \"Arbiter game\"]",
        "[Site \"Arbiter\"]",
        "[Round \"-\"]",
        "[White \"Alice \\\"A\\\"\"]",
        "[Black \"Bob\"]",
        "[Result \"*\"]",
        "[Termination \"unterminated\"]",
        "[PlyCount \"7\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} missing:\n{pgn}");
    }
    assert!(pgn.contains(&format!("[GameId \"{id}\"]")));
    assert!(!pgn.contains("[FEN"), "{pgn}");
    assert!(
        pgn.ends_with("\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O *\n"),
        "{pgn}"
    );
    let uci = export(&mut games, &id, pb::PgnNotation::Coordinates).await;
    assert!(
        uci.contains("1. e2e4 e7e5 2. g1f3 b8c6 3. f1b5 a7a6 4. e1g1 *"),
        "{uci}"
    );
    let status = games
        .export_game(pb::ExportGameRequest {
            game_id: id.clone(),
            notation: pb::PgnNotation::Chinese as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::InvalidArgument, "VARIANT_MISMATCH".to_owned())
    );
    let status = games
        .export_game(pb::ExportGameRequest {
            game_id: "nope".into(),
            notation: 0,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&status),
        (Code::NotFound, "GAME_NOT_FOUND".to_owned())
    );

    // A custom start with Black to move, finished by resignation.
    let fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40";
    let custom = create(&mut games, pb::Variant::Chess, Some(fen), "C", "D").await;
    play(&mut games, &custom, &["Kd7", "e4"]).await;
    let custom_id = custom.game.as_ref().unwrap().id.clone();
    games
        .resign(pb::ResignRequest::by_seat(
            custom_id.clone(),
            custom.black_token.clone(),
        ))
        .await
        .unwrap();
    let pgn = export(&mut games, &custom_id, pb::PgnNotation::Standard).await;
    assert!(
        pgn.contains("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 b - - 0 40\"]"),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"1-0\"]") && pgn.contains("[Termination \"normal\"]"));
    assert!(
        pgn.contains("40... Kd7 41. e4 {white won by resignation} 1-0"),
        "{pgn}"
    );

    let xiangqi = create(&mut games, pb::Variant::Xiangqi, None, "Red", "Black").await;
    play(&mut games, &xiangqi, &["h2e2", "h9g7", "h0g2"]).await;
    let xid = xiangqi.game.as_ref().unwrap().id.clone();
    let wxf = export(&mut games, &xid, pb::PgnNotation::Standard).await;
    assert!(
        wxf.contains("[Variant \"xiangqi\"]\n[Game \"Chinese Chess\"]"),
        "{wxf}"
    );
    assert!(wxf.contains("1. C2.5 H8+7 2. H2+3 *"), "{wxf}");
    let iccs = export(&mut games, &xid, pb::PgnNotation::Coordinates).await;
    assert!(iccs.contains("1. h2e2 h9g7 2. h0g2 *"), "{iccs}");
    let chinese = export(&mut games, &xid, pb::PgnNotation::Chinese).await;
    assert!(
        chinese.contains("1. 炮二平五 马8进7 2. 马二进三 *"),
        "{chinese}"
    );
    server.stop().await;
}

/// A PGN without player tags names its seats as CreateGame does: "Red"
/// and "Black" for xiangqi, "White" and "Black" for chess.
#[tokio::test]
async fn an_import_without_players_names_the_seats_by_their_sides() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let seats = |game: pb::Game| {
        [
            game.white.unwrap().display_name,
            game.black.unwrap().display_name,
        ]
    };
    let xiangqi =
        common::import(&mut games, "[Variant \"xiangqi\"]\n\n1. h2e2 h9g7 *".into()).await;
    assert_eq!(seats(xiangqi), ["Red", "Black"]);
    let unknown = common::import(
        &mut games,
        "[Variant \"xiangqi\"]\n[White \"?\"]\n[Black \"Li\"]\n\n1. h2e2 *".into(),
    )
    .await;
    assert_eq!(seats(unknown), ["Red", "Li"]);
    let chess = common::import(&mut games, "1. e4 e5 *".into()).await;
    assert_eq!(seats(chess), ["White", "Black"]);
    server.stop().await;
}

#[tokio::test]
async fn list_games_filters() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let a = create(&mut games, pb::Variant::Chess, None, "Magnus", "Hikaru").await;
    let b = create(&mut games, pb::Variant::Xiangqi, None, "Wang", "magnusson").await;
    let c = create(&mut games, pb::Variant::Chess, None, "Ding", "Ian").await;
    play(&mut games, &c, &["f3", "e5", "g4", "Qh4#"]).await;
    games
        .resign(pb::ResignRequest::by_seat(
            a.game.as_ref().unwrap().id.clone(),
            a.white_token.clone(),
        ))
        .await
        .unwrap();
    let lister = games.clone();
    let list = |request: pb::ListGamesRequest| {
        let mut games = lister.clone();
        async move {
            games.list_games(request).await.map(|r| {
                r.into_inner()
                    .games
                    .into_iter()
                    .map(|g| g.id)
                    .collect::<Vec<_>>()
            })
        }
    };
    let id = |g: &pb::CreateGameResponse| g.game.as_ref().unwrap().id.clone();

    // Player names match in either seat, case-insensitively; newest first.
    let by_player = list(pb::ListGamesRequest {
        player: "MAGNUS".into(),
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(by_player, vec![id(&b), id(&a)]);
    let mated = list(pb::ListGamesRequest {
        termination: pb::Termination::Checkmate as i32,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(mated, vec![id(&c)]);
    let resigned_chess = list(pb::ListGamesRequest {
        termination: pb::Termination::Resignation as i32,
        variant: pb::Variant::Chess as i32,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(resigned_chess, vec![id(&a)]);
    let created_at = c.game.as_ref().unwrap().created_at.unwrap();
    let later = list(pb::ListGamesRequest {
        created_after: Some(prost_types::Timestamp {
            seconds: created_at.seconds + 3600,
            nanos: 0,
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    assert!(later.is_empty());
    let earlier = list(pb::ListGamesRequest {
        created_before: Some(prost_types::Timestamp {
            seconds: created_at.seconds + 3600,
            nanos: 0,
        }),
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(earlier.len(), 3);

    // Paging is stable while games are created between pages.
    let first = games
        .list_games(pb::ListGamesRequest {
            page_size: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    create(&mut games, pb::Variant::Chess, None, "New", "Comer").await;
    let second = games
        .list_games(pb::ListGamesRequest {
            page_size: 2,
            page_token: first.next_page_token.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let ids: Vec<String> = first
        .games
        .iter()
        .chain(&second.games)
        .map(|g| g.id.clone())
        .collect();
    assert_eq!(ids, vec![id(&c), id(&b), id(&a)]);

    // Oldest first, a page at a time, the trigram search too.
    let oldest = games
        .list_games(pb::ListGamesRequest {
            page_size: 2,
            oldest_first: true,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let rest = list(pb::ListGamesRequest {
        page_token: oldest.next_page_token,
        oldest_first: true,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(oldest.games[0].id, id(&a));
    assert_eq!(
        [oldest.games[1].id.clone(), rest[0].clone()],
        [id(&b), id(&c)]
    );
    assert_eq!(rest.len(), 2, "and the game created since");
    let by_player = list(pb::ListGamesRequest {
        player: "magnus".into(),
        oldest_first: true,
        ..Default::default()
    })
    .await
    .unwrap();
    assert_eq!(by_player, vec![id(&a), id(&b)]);

    for (bad, reason) in [
        (
            pb::ListGamesRequest {
                termination: 99,
                ..Default::default()
            },
            "UNKNOWN_ENUM_VALUE",
        ),
        (
            pb::ListGamesRequest {
                created_after: Some(prost_types::Timestamp {
                    seconds: 0,
                    nanos: -1,
                }),
                ..Default::default()
            },
            "VALUE_OUT_OF_RANGE",
        ),
        (
            pb::ListGamesRequest {
                player: "x".repeat(101),
                ..Default::default()
            },
            "TOO_LONG",
        ),
    ] {
        assert_eq!(
            common::code_and_reason(&list(bad).await.unwrap_err()),
            (Code::InvalidArgument, reason.to_owned())
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn export_games_streams_a_collection_and_resumes_after_any_game() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let mut ids = Vec::new();
    for n in 0..5 {
        let created = create(&mut games, pb::Variant::Chess, None, &format!("w{n}"), "b").await;
        play(&mut games, &created, &["e4", "e5"]).await;
        ids.push(created.game.unwrap().id);
    }
    let xiangqi = create(&mut games, pb::Variant::Xiangqi, None, "r", "b").await;
    let export_all = |filter: pb::ListGamesRequest, max_games: u32| {
        let mut games = games.clone();
        async move {
            let mut stream = games
                .export_games(pb::ExportGamesRequest {
                    filter: Some(filter),
                    max_games,
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner();
            let mut got = Vec::new();
            while let Some(exported) = stream.message().await.unwrap() {
                got.push(exported);
            }
            got
        }
    };
    let chess = pb::ListGamesRequest {
        variant: pb::Variant::Chess as i32,
        page_size: 2,
        ..Default::default()
    };
    let all = export_all(chess.clone(), 0).await;
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    let exported: Vec<String> = all.iter().map(|e| e.game_id.clone()).collect();
    assert_eq!(exported, newest_first, "pages of 2 read on to the last");
    assert!(all[0].pgn.contains("1. e4 e5 *"), "{}", all[0].pgn);
    let first_two = export_all(chess.clone(), 2).await;
    assert_eq!(first_two.len(), 2);
    let rest = export_all(
        pb::ListGamesRequest {
            page_token: first_two[1].resume_token.clone(),
            ..chess
        },
        0,
    )
    .await;
    let rest: Vec<String> = rest.iter().map(|e| e.game_id.clone()).collect();
    assert_eq!(rest, newest_first[2..], "resumed after the second game");
    let xiangqi_only = export_all(
        pb::ListGamesRequest {
            variant: pb::Variant::Xiangqi as i32,
            ..Default::default()
        },
        0,
    )
    .await;
    assert_eq!(xiangqi_only.len(), 1);
    assert_eq!(xiangqi_only[0].game_id, xiangqi.game.unwrap().id);
    assert!(xiangqi_only[0].pgn.contains("[Variant \"xiangqi\"]"));

    let refused = games
        .export_games(pb::ExportGamesRequest {
            notation: 9,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        common::code_and_reason(&refused),
        (Code::InvalidArgument, "UNKNOWN_ENUM_VALUE".into())
    );
}
