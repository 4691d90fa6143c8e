//! The Lichess Bot and Board API: accounts, the event stream, challenges,
//! game streams and actions, through HTTP against a real server.

use arbiter::api::proto::players_client::PlayersClient;
use hyper::StatusCode;
use serde_json::Value;

use arbiter::server::ServerConfig;

use crate::common::{self, TestServer, create_players, lichess::Lichess};

async fn two_players(server: &TestServer) -> (Lichess, Lichess) {
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob] = create_players(&mut players, ["Alice", "bob"]).await;
    (
        Lichess::new(server.addr, &alice),
        Lichess::new(server.addr, &bob),
    )
}

/// `challenger` challenges `to` with `form`, who accepts through their
/// event stream; the game's id.
async fn play_by_challenge(
    challenger: &Lichess,
    to: &Lichess,
    username: &str,
    form: &str,
) -> String {
    let mut events = to.stream("/api/stream/event").await;
    let (status, made) = challenger
        .post(&format!("/api/challenge/{username}"), form)
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    let told = events.next_of("challenge").await;
    let id = told["challenge"]["id"].as_str().unwrap().to_owned();
    assert_eq!(id, made["id"]);
    let (status, accepted) = to.post(&format!("/api/challenge/{id}/accept"), "").await;
    assert_eq!(
        (status, &accepted["ok"]),
        (StatusCode::OK, &Value::Bool(true))
    );
    let started = events.next_of("gameStart").await;
    started["game"]["gameId"].as_str().unwrap().to_owned()
}

/// White (`white`) is mated at once in game `id`.
async fn fools_mate(white: &Lichess, black: &Lichess, id: &str) {
    for (player, uci) in [
        (white, "f2f3"),
        (black, "e7e5"),
        (white, "g2g4"),
        (black, "d8h4"),
    ] {
        let (status, moved) = player
            .post(&format!("/api/bot/game/{id}/move/{uci}"), "")
            .await;
        assert_eq!(status, StatusCode::OK, "{uci}: {moved}");
    }
}

#[tokio::test]
async fn tokens_accounts_and_bot_upgrades_read_as_on_lichess() {
    let server = TestServer::start().await;
    let (alice, _) = two_players(&server).await;
    let token = alice.token.clone().unwrap();
    let anonymous = Lichess::anonymous(server.addr);

    let (status, tested) = anonymous
        .post("/api/token/test", &format!("{token},not-a-token"))
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(tested[&token]["userId"], "alice");
    assert!(
        tested[&token]["scopes"]
            .as_str()
            .unwrap()
            .contains("bot:play")
    );
    assert!(tested["not-a-token"].is_null());

    let (status, account) = alice.get("/api/account").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (&account["id"], &account["username"]),
        (&"alice".into(), &"Alice".into())
    );
    assert!(account.get("title").is_none());
    let (status, upgraded) = alice.post("/api/bot/account/upgrade", "").await;
    assert_eq!(
        (status, &upgraded["ok"]),
        (StatusCode::OK, &Value::Bool(true))
    );
    let (_, account) = alice.get("/api/account").await;
    assert_eq!(account["title"], "BOT");

    let (status, user) = anonymous.get("/api/user/ALICE").await;
    assert_eq!(
        (status, &user["username"]),
        (StatusCode::OK, &"Alice".into())
    );
    let (status, missing) = anonymous.get("/api/user/nobody").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(missing["error"].is_string());

    let (status, refused) = anonymous.get("/api/account").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(refused["error"].is_string());
    let (status, _) = Lichess::new(server.addr, "wrong").get("/api/account").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = alice.get("/api/no/such/endpoint").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_challenge_is_played_to_mate_through_the_bot_api() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let mut alice_events = alice.stream("/api/stream/event").await;
    let id = play_by_challenge(
        &alice,
        &bob,
        "bob",
        "rated=false&clock.limit=300&clock.increment=2&color=white",
    )
    .await;
    let started = alice_events.next_of("gameStart").await;
    assert_eq!(started["game"]["color"], "white");
    assert_eq!(started["game"]["isMyTurn"], true);
    assert_eq!(started["game"]["opponent"]["username"], "bob");

    let mut stream = bob.stream(&format!("/api/bot/game/stream/{id}")).await;
    let mut spectator = Lichess::anonymous(server.addr)
        .stream(&format!("/api/stream/game/{id}"))
        .await;
    let watched = spectator.next().await.unwrap();
    assert_eq!(
        (&watched["id"], &watched["player"]),
        (&id.as_str().into(), &"white".into())
    );
    let full = stream.next().await.unwrap();
    assert_eq!(full["type"], "gameFull");
    assert_eq!(full["white"]["name"], "Alice");
    assert_eq!(full["black"]["name"], "bob");
    assert_eq!(full["variant"]["key"], "standard");
    assert_eq!(full["initialFen"], "startpos");
    assert_eq!(full["clock"]["initial"], 300_000);
    assert_eq!(full["clock"]["increment"], 2_000);
    assert_eq!(full["speed"], "blitz");
    assert_eq!(full["state"]["moves"], "");

    let (status, refused) = bob.post(&format!("/api/bot/game/{id}/move/e7e5"), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not bob's turn: {refused}");
    assert!(refused["error"].is_string());
    fools_mate(&alice, &bob, &id).await;
    let mut last = Value::Null;
    while let Some(line) = stream.next().await {
        assert_eq!(line["type"], "gameState");
        last = line;
    }
    assert_eq!(last["moves"], "f2f3 e7e5 g2g4 d8h4");
    assert_eq!(last["status"], "mate");
    assert_eq!(last["winner"], "black");
    assert!(last["wtime"].as_i64().unwrap() <= 302_000);
    assert_eq!(last["winc"], 2_000);
    let finished = alice_events.next_of("gameFinish").await;
    assert_eq!(finished["game"]["gameId"], id.as_str());
    assert_eq!(finished["game"]["winner"], "black");
    let mut seen = Vec::new();
    while let Some(line) = spectator.next().await {
        seen.push(line);
    }
    let moves: Vec<&Value> = seen
        .iter()
        .map(|line| &line["lm"])
        .filter(|m| m.is_string())
        .collect();
    assert_eq!(moves, ["f2f3", "e7e5", "g2g4", "d8h4"]);
    assert_eq!(seen[1]["wc"], 300, "clocks in seconds: {}", seen[1]);
    let end = seen.last().unwrap();
    assert_eq!(
        (&end["status"]["name"], &end["winner"]),
        (&"mate".into(), &"black".into())
    );

    let (status, pgn) = Lichess::anonymous(server.addr)
        .get_text(&format!("/game/export/{id}"), "application/x-chess-pgn")
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        pgn.contains("[Result \"0-1\"]") && pgn.contains("Qh4#"),
        "{pgn}"
    );
    let (status, _) = bob.get("/api/stream/game/nosuchgame1").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn draws_takebacks_and_resignations_through_the_board_api() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let id = play_by_challenge(&alice, &bob, "bob", "days=3&color=black").await;
    let mut stream = alice.stream(&format!("/api/board/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["speed"], "correspondence");
    assert_eq!(full["daysPerTurn"], 3);
    assert_eq!(full["state"]["wtime"], 2_147_483_647_i64);

    let game = |action: &str| format!("/api/board/game/{id}/{action}");
    assert_eq!(bob.post(&game("move/e2e4"), "").await.0, StatusCode::OK);
    assert_eq!(bob.post(&game("takeback/yes"), "").await.0, StatusCode::OK);
    assert_eq!(stream.next_of("gameState").await["moves"], "e2e4");
    let proposed = stream.next_of("gameState").await;
    assert_eq!(proposed["wtakeback"], true);
    assert_eq!(
        alice.post(&game("takeback/yes"), "").await.0,
        StatusCode::OK
    );
    let taken = stream.next_of("gameState").await;
    assert_eq!(
        (&taken["moves"], &taken["wtakeback"]),
        (&"".into(), &false.into())
    );

    assert_eq!(
        bob.post(&game("move/d2d4"), "offeringDraw=true").await.0,
        StatusCode::OK
    );
    let offered = stream.next_of("gameState").await;
    let offered = if offered["wdraw"] == true {
        offered
    } else {
        stream.next_of("gameState").await
    };
    assert_eq!(
        (&offered["moves"], &offered["wdraw"]),
        (&"d2d4".into(), &true.into())
    );
    assert_eq!(alice.post(&game("draw/no"), "").await.0, StatusCode::OK);
    assert_eq!(stream.next_of("gameState").await["wdraw"], false);
    assert_eq!(alice.post(&game("draw/yes"), "").await.0, StatusCode::OK);
    assert_eq!(stream.next_of("gameState").await["bdraw"], true);
    assert_eq!(bob.post(&game("draw/yes"), "").await.0, StatusCode::OK);
    let drawn = stream.next_of("gameState").await;
    assert_eq!(drawn["status"], "draw");
    assert!(drawn.get("winner").is_none());
    assert!(
        stream.next().await.is_none(),
        "the stream closes when the game ends"
    );

    let (status, over) = bob.post(&game("resign"), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{over}");
    let (status, _) = bob
        .post(&game("chat"), "room=player&text=good%20game")
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[tokio::test]
async fn challenges_are_listed_declined_and_canceled() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let mut alice_events = alice.stream("/api/stream/event").await;
    let mut bob_events = bob.stream("/api/stream/event").await;
    let (_, first) = alice
        .post("/api/challenge/bob", "clock.limit=60&clock.increment=0")
        .await;
    let (_, second) = alice
        .post("/api/challenge/BOB", "variant=xiangqi&days=1")
        .await;
    assert_eq!(first["speed"], "bullet");
    assert_eq!(first["timeControl"]["show"], "1+0");
    assert_eq!(second["variant"]["key"], "xiangqi");
    assert_eq!(first["challenger"]["name"], "Alice");
    assert_eq!(first["destUser"]["name"], "bob");

    let (_, listed) = bob.get("/api/challenge").await;
    assert_eq!(listed["in"].as_array().unwrap().len(), 2);
    assert_eq!(listed["in"][0]["direction"], "in");
    let (_, listed) = alice.get("/api/challenge").await;
    assert_eq!(listed["out"].as_array().unwrap().len(), 2);

    let first_id = first["id"].as_str().unwrap();
    let second_id = second["id"].as_str().unwrap();
    bob_events.next_of("challenge").await;
    let (status, _) = bob
        .post(
            &format!("/api/challenge/{first_id}/decline"),
            "reason=tooFast",
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let declined = alice_events.next_of("challengeDeclined").await;
    assert_eq!(declined["challenge"]["declineReasonKey"], "tooFast");
    let (status, _) = alice
        .post(&format!("/api/challenge/{second_id}/cancel"), "")
        .await;
    assert_eq!(status, StatusCode::OK);
    let canceled = bob_events.next_of("challengeCanceled").await;
    assert_eq!(canceled["challenge"]["id"], second_id);

    let (status, refused) = alice.post("/api/challenge/bob", "variant=shogi").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(refused["error"].as_str().unwrap().contains("shogi"));
    let (status, _) = alice.post("/api/challenge/nobody", "").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

/// A Chess960 game through the bot API: its variant and start as Lichess
/// writes them, castling sent and streamed as the king taking its rook.
#[tokio::test]
async fn a_chess960_game_castles_king_takes_rook_through_the_bot_api() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let start = "qbbnrnkr/pppppppp/8/8/8/8/PPPPPPPP/QBBNRNKR w KQkq - 0 1";
    let form = format!(
        "variant=chess960&color=white&fen={}",
        start.replace(' ', "+")
    );
    let id = play_by_challenge(&alice, &bob, "bob", &form).await;
    let mut stream = alice.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["variant"]["key"], "chess960");
    assert_eq!(full["initialFen"], start);
    for (player, uci) in [(&alice, "f1g3"), (&bob, "f8g6"), (&alice, "g1h1")] {
        let (status, moved) = player
            .post(&format!("/api/bot/game/{id}/move/{uci}"), "")
            .await;
        assert_eq!(status, StatusCode::OK, "{uci}: {moved}");
    }
    let mut moves = Value::Null;
    for _ in 0..3 {
        moves = stream.next_of("gameState").await["moves"].clone();
    }
    assert_eq!(moves, "f1g3 f8g6 g1h1");
}

#[tokio::test]
async fn xiangqi_moves_use_ranks_from_one() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let id = play_by_challenge(&alice, &bob, "bob", "variant=xiangqi&color=white").await;
    let mut stream = alice.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    assert_eq!(full["variant"]["key"], "xiangqi");
    let (status, moved) = alice
        .post(&format!("/api/bot/game/{id}/move/h3e3"), "")
        .await;
    assert_eq!(status, StatusCode::OK, "{moved}");
    assert_eq!(stream.next_of("gameState").await["moves"], "h3e3");
    let (status, _) = bob.post(&format!("/api/bot/game/{id}/move/h0g2"), "").await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "rank 0 is off a 1-10 board"
    );
}

#[tokio::test]
async fn the_engine_plays_a_challenge_to_it_and_a_second_event_stream_replaces_the_first() {
    let server = TestServer::start().await;
    let (alice, _) = two_players(&server).await;
    let (status, game) = alice
        .post(
            "/api/challenge/ai",
            "level=1&color=black&clock.limit=600&clock.increment=0",
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{game}");
    assert_eq!(game["player"], "black");
    assert_eq!(game["source"], "ai");
    let id = game["id"].as_str().unwrap();
    let mut stream = alice.stream(&format!("/api/bot/game/stream/{id}")).await;
    let full = stream.next().await.unwrap();
    assert!(full["white"]["aiLevel"].is_number(), "{full}");
    let moves = if full["state"]["moves"] == "" {
        stream.next_of("gameState").await["moves"].clone()
    } else {
        full["state"]["moves"].clone()
    };
    assert_eq!(
        moves.as_str().unwrap().split(' ').count(),
        1,
        "the engine moved first"
    );
    let (status, _) = alice.post("/api/challenge/ai", "level=9").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    let mut first = alice.stream("/api/stream/event").await;
    let started = first.next_of("gameStart").await;
    assert_eq!(started["game"]["source"], "ai");
    let mut second = alice.stream("/api/stream/event").await;
    assert_eq!(second.next_of("gameStart").await["game"]["gameId"], id);
    assert!(first.next().await.is_none(), "the first stream ends");
}

#[tokio::test]
async fn seeks_are_held_open_until_the_pool_pairs_them() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let mut alice_events = alice.stream("/api/stream/event").await;
    let mut alice_seek = alice
        .stream_post("/api/board/seek", "time=3&increment=2")
        .await;
    let mut bob_seek = bob
        .stream_post(
            "/api/board/seek",
            "time=3&increment=2&ratingRange=1000-2000",
        )
        .await;
    assert!(
        alice_seek.next().await.is_none(),
        "a paired seek's answer ends"
    );
    assert!(bob_seek.next().await.is_none());
    let started = alice_events.next_of("gameStart").await;
    assert_eq!(started["game"]["opponent"]["username"], "bob");
    assert_eq!(started["game"]["speed"], "blitz");

    let (status, sought) = alice.post("/api/board/seek", "days=2").await;
    assert_eq!(status, StatusCode::OK);
    assert!(sought["id"].is_string(), "{sought}");
    let (status, _) = alice.post("/api/board/seek", "ratingRange=1500").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn chat_is_kept_told_on_the_game_stream_and_read_by_room() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        chat_lines: 3,
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let [alice, bob, carol] = create_players(&mut players, ["Alice", "bob", "carol"]).await;
    let (alice, bob, carol) = (
        Lichess::new(server.addr, &alice),
        Lichess::new(server.addr, &bob),
        Lichess::new(server.addr, &carol),
    );
    let id = play_by_challenge(&alice, &bob, "bob", "color=white").await;
    let chat = format!("/api/bot/game/{id}/chat");
    let (status, _) = alice.post(&chat, "room=player&text=before").await;
    assert_eq!(status, StatusCode::OK);
    let mut stream = bob.stream(&format!("/api/bot/game/stream/{id}")).await;
    assert_eq!(stream.next().await.unwrap()["type"], "gameFull");

    let (status, said) = alice.post(&chat, "room=player&text=good%20luck").await;
    assert_eq!((status, &said["ok"]), (StatusCode::OK, &Value::Bool(true)));
    let line = stream.next_of("chatLine").await;
    assert_eq!(
        (&line["room"], &line["username"], &line["text"]),
        (&"player".into(), &"Alice".into(), &"good luck".into()),
        "the lines said before the stream opened are not told again"
    );
    let (status, _) = carol.post(&chat, "room=spectator&text=nice").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stream.next_of("chatLine").await["room"], "spectator");

    let (status, refused) = carol.post(&chat, "room=player&text=hi").await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["reason"], "NOT_YOUR_SEAT");
    let too_long = "x".repeat(141);
    for form in [
        format!("room=player&text={too_long}"),
        "room=lobby&text=hi".to_owned(),
        "room=player".to_owned(),
    ] {
        let (status, refused) = alice.post(&chat, &form).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{form}: {refused}");
    }
    let (status, _) = Lichess::anonymous(server.addr)
        .post(&chat, "room=spectator&text=hi")
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);

    let (_, said) = bob.post(&chat, "room=player&text=thanks").await;
    assert_eq!(said["ok"], true);
    let (status, read) = bob.get(&chat).await;
    assert_eq!(status, StatusCode::OK);
    let texts: Vec<&Value> = read
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["text"])
        .collect();
    assert_eq!(texts, ["good luck", "nice", "thanks"], "the last 3 kept");
    assert_eq!(read[2]["user"], "bob");
    let (_, read) = Lichess::anonymous(server.addr).get(&chat).await;
    assert_eq!(
        read,
        serde_json::json!([{ "user": "carol", "text": "nice" }])
    );
}

#[tokio::test]
async fn a_players_games_export_as_pgn_and_ndjson() {
    let server = TestServer::start().await;
    let (alice, bob) = two_players(&server).await;
    let mated = play_by_challenge(
        &alice,
        &bob,
        "bob",
        "color=white&clock.limit=180&clock.increment=2",
    )
    .await;
    fools_mate(&alice, &bob, &mated).await;
    let resigned = play_by_challenge(&alice, &bob, "bob", "color=white").await;
    let (_, moved) = alice
        .post(&format!("/api/bot/game/{resigned}/move/e2e4"), "")
        .await;
    assert_eq!(moved["ok"], true);
    let (_, done) = bob
        .post(&format!("/api/bot/game/{resigned}/resign"), "")
        .await;
    assert_eq!(done["ok"], true);
    let anyone = &Lichess::anonymous(server.addr);

    let (status, pgn) = anyone
        .get_text("/api/games/user/alice", "application/x-chess-pgn")
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(pgn.matches("[Result ").count(), 2, "{pgn}");
    assert!(
        pgn.find(&resigned) < pgn.find(&mated),
        "newest first: {pgn}"
    );
    assert!(!pgn.contains("[%clk"), "no clocks unless asked: {pgn}");
    let (_, pgn) = anyone
        .get_text(
            "/api/games/user/alice?sort=dateAsc&clocks=true&tags=false",
            "application/x-chess-pgn",
        )
        .await;
    assert!(!pgn.contains("[Result "), "no tags: {pgn}");
    assert!(pgn.starts_with("1. f3 {[%clk 0:0"), "oldest first: {pgn}");
    let (_, pgn) = anyone.get_text(&format!("/game/export/{mated}"), "").await;
    assert!(pgn.contains("[%clk "), "one game has its clocks: {pgn}");
    assert!(pgn.contains("[Opening \"Barnes Opening"), "{pgn}");

    let ndjson = |path: &'static str| async move {
        let (status, text) = anyone.get_text(path, "application/x-ndjson").await;
        assert_eq!(status, StatusCode::OK, "{path}: {text}");
        text.lines()
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
            .collect::<Vec<_>>()
    };
    let games = ndjson("/api/games/user/alice?max=1&pgnInJson=true").await;
    assert_eq!(games.len(), 1);
    let game = &games[0];
    assert_eq!(game["id"], resigned.as_str());
    assert_eq!(
        (&game["status"], &game["winner"], &game["moves"]),
        (&"resign".into(), &"white".into(), &"e4".into())
    );
    assert_eq!(game["players"]["black"]["user"]["name"], "bob");
    assert!(game["pgn"].as_str().unwrap().contains("1. e4"));
    let games = ndjson("/api/games/user/bob?vs=alice&color=black").await;
    assert_eq!(games.len(), 2);
    assert_eq!(games[1]["moves"], "f3 e5 g4 Qh4#");
    assert!(games[1].get("opening").is_none(), "only when asked");
    assert_eq!(
        games[1]["clock"],
        serde_json::json!({ "initial": 180, "increment": 2, "totalTime": 260 })
    );
    let games = ndjson("/api/games/user/bob?vs=alice&color=black&clocks=true&opening=true").await;
    assert_eq!(games[1]["opening"]["eco"], "A00", "{}", games[1]);
    let clocks = games[1]["clocks"].as_array().expect("clocks");
    assert_eq!(clocks.len(), 4, "{clocks:?}");
    assert!(
        clocks.iter().all(|cs| cs.as_i64().unwrap() > 17_000),
        "{clocks:?}"
    );
    assert!(ndjson("/api/games/user/alice?color=black").await.is_empty());

    let (status, _) = anyone
        .get_text("/api/games/user/nobody", "application/x-ndjson")
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = anyone
        .get_text("/api/games/user/alice?color=red", "application/x-ndjson")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, game) = anyone.get(&format!("/game/export/{mated}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (&game["status"], &game["winner"]),
        (&"mate".into(), &"black".into())
    );
}

#[tokio::test]
async fn an_open_challenge_is_taken_by_two_other_players() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let names = ["Alice", "bob", "carol", "dave"];
    let tokens = create_players(&mut players, names).await;
    let [alice, bob, carol, dave] = tokens.map(|token| Lichess::new(server.addr, &token));

    // Named: the first plays white, whoever accepts first.
    let mut bobs = bob.stream("/api/stream/event").await;
    let (status, made) = alice
        .post("/api/challenge/open", "users=carol,bob&clock.limit=300")
        .await;
    assert_eq!(status, StatusCode::OK, "{made}");
    assert!(made["challenger"].is_null(), "{made}");
    assert_eq!(made["open"]["userIds"].as_array().unwrap().len(), 2);
    let id = made["id"].as_str().unwrap().to_owned();
    assert_eq!(made["urlWhite"], format!("/{id}?color=white"));
    assert_eq!(made["urlBlack"], format!("/{id}?color=black"));
    let path = format!("/api/challenge/{id}/accept");
    assert_ne!(
        dave.post(&path, "").await.0,
        StatusCode::OK,
        "dave is not named"
    );
    let (status, _) = alice.post(&path, "").await;
    assert_ne!(status, StatusCode::OK, "its maker does not play");
    assert_eq!(bob.post(&path, "color=white").await.0, StatusCode::OK);
    assert_ne!(bob.post(&path, "").await.0, StatusCode::OK, "one seat each");
    assert_eq!(carol.post(&path, "").await.0, StatusCode::OK);
    let started = bobs.next_of("gameStart").await;
    assert_eq!(started["game"]["opponent"]["username"], "carol");
    assert_eq!(
        started["game"]["color"], "black",
        "carol, named first, is white"
    );

    // Open to anyone: the first takes the colour asked for.
    let (status, made) = alice.post("/api/challenge/open", "days=2").await;
    assert_eq!(status, StatusCode::OK, "{made}");
    assert_eq!(made["open"], serde_json::json!({}));
    let id = made["id"].as_str().unwrap().to_owned();
    let path = format!("/api/challenge/{id}/accept");
    assert_eq!(dave.post(&path, "color=black").await.0, StatusCode::OK);
    assert_eq!(bob.post(&path, "").await.0, StatusCode::OK);
    let started = bobs.next_of("gameStart").await;
    assert_eq!(started["game"]["opponent"]["username"], "dave");
    assert_eq!(started["game"]["color"], "white");
}

#[tokio::test]
async fn a_game_challenged_and_played_on_one_replica_streams_on_another() {
    let server = TestServer::start().await;
    // On PostgreSQL, where replicas share a database, a second server on
    // it; on SQLite both clients call the one server.
    let other = if common::database::backend_is_postgres() {
        Some(TestServer::start_on(&server.db).await)
    } else {
        None
    };
    let there = other.as_ref().map_or(server.addr, |other| other.addr);
    let (alice, bob) = two_players(&server).await;
    let bob_there = Lichess::new(there, bob.token.as_deref().unwrap());

    let mut events = bob_there.stream("/api/stream/event").await;
    let (status, made) = alice.post("/api/challenge/bob", "color=white").await;
    assert_eq!(status, StatusCode::OK, "{made}");
    let id = made["id"].as_str().unwrap();
    assert_eq!(events.next_of("challenge").await["challenge"]["id"], id);
    let (status, _) = bob_there
        .post(&format!("/api/challenge/{id}/accept"), "")
        .await;
    assert_eq!(status, StatusCode::OK);
    let game = events.next_of("gameStart").await["game"]["gameId"]
        .as_str()
        .unwrap()
        .to_owned();

    let mut stream = bob_there
        .stream(&format!("/api/bot/game/stream/{game}"))
        .await;
    assert_eq!(stream.next().await.unwrap()["type"], "gameFull");
    let (_, moved) = alice
        .post(&format!("/api/bot/game/{game}/move/e2e4"), "")
        .await;
    assert_eq!(moved["ok"], true);
    assert_eq!(stream.next_of("gameState").await["moves"], "e2e4");
    let (_, said) = alice
        .post(&format!("/api/bot/game/{game}/chat"), "room=player&text=hi")
        .await;
    assert_eq!(said["ok"], true);
    assert_eq!(stream.next_of("chatLine").await["text"], "hi");
    let (_, resigned) = alice
        .post(&format!("/api/bot/game/{game}/resign"), "")
        .await;
    assert_eq!(resigned["ok"], true);
    assert_eq!(stream.next_of("gameState").await["status"], "resign");
    assert_eq!(
        events.next_of("gameFinish").await["game"]["gameId"],
        game.as_str()
    );
}

#[tokio::test]
async fn calls_past_a_tokens_rate_are_answered_429_and_moves_never_are() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        lichess_rate: 1,
        lichess_burst: 4,
        ..config
    })
    .await;
    let (alice, bob) = two_players(&server).await;
    let id = play_by_challenge(&alice, &bob, "bob", "color=white").await;
    let mut refused = None;
    for _ in 0..10 {
        let (status, answer) = alice.get("/api/account").await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(answer);
            break;
        }
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    let refused = refused.expect("refused past the burst");
    assert_eq!(refused["reason"], "RATE_LIMITED");
    let (status, moved) = alice
        .post(&format!("/api/bot/game/{id}/move/e2e4"), "")
        .await;
    assert_eq!(status, StatusCode::OK, "a move is never limited: {moved}");
    let (status, _) = bob.get("/api/account").await;
    assert_eq!(status, StatusCode::OK, "another token has its own rate");
}

#[tokio::test]
async fn a_game_the_opponent_left_is_claimed_once_they_are_away_long_enough() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        claim_victory_after: std::time::Duration::from_secs(1),
        ..config
    })
    .await;
    let (alice, bob) = two_players(&server).await;
    let id = play_by_challenge(
        &bob,
        &alice,
        "alice",
        "clock.limit=300&clock.increment=0&color=black",
    )
    .await;
    let path = format!("/api/bot/game/stream/{id}");
    let stream = async |player: &Lichess| {
        let mut lines = player.stream(&path).await;
        assert_eq!(lines.next().await.unwrap()["type"], "gameFull");
        lines
    };
    let mut alices = stream(&alice).await;
    let bobs = stream(&bob).await;
    let game = |action: &str| format!("/api/bot/game/{id}/{action}");
    assert_eq!(alice.post(&game("move/e2e4"), "").await.0, StatusCode::OK);
    assert_eq!(bob.post(&game("move/e7e5"), "").await.0, StatusCode::OK);
    let (status, refused) = alice.post(&game("claim-victory"), "").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");

    // Bob leaves, comes back, and leaves again.
    drop(bobs);
    let gone = alices.next_of("opponentGone").await;
    assert_eq!(gone["gone"], true, "{gone}");
    assert!(gone["claimWinInSeconds"].as_u64().unwrap() <= 1, "{gone}");
    let bobs = stream(&bob).await;
    assert_eq!(alices.next_of("opponentGone").await["gone"], false);
    drop(bobs);
    loop {
        let gone = alices.next_of("opponentGone").await;
        assert_eq!(gone["gone"], true, "{gone}");
        if gone["claimWinInSeconds"] == 0 {
            break;
        }
    }
    let (status, claimed) = alice.post(&game("claim-victory"), "").await;
    assert_eq!(status, StatusCode::OK, "{claimed}");
    let ended = alices.next_of("gameState").await;
    assert_eq!(
        (&ended["status"], &ended["winner"]),
        (&"timeout".into(), &"white".into())
    );
    let (_, pgn) = alice.get_text(&format!("/game/export/{id}"), "").await;
    assert!(pgn.contains("[Termination \"abandoned\"]"), "{pgn}");
    assert!(pgn.contains("1-0"), "{pgn}");
}

#[tokio::test]
async fn a_games_export_takes_a_place_among_the_addresss_streams() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_streams_per_peer: 1,
        ..config
    })
    .await;
    let (alice, bob) = two_players(&server).await;
    let id = play_by_challenge(&alice, &bob, "bob", "color=white").await;
    let export = async || {
        alice
            .get_text("/api/games/user/alice?ongoing=true", "application/x-ndjson")
            .await
    };
    // Once the address holds no stream (the event stream just closed).
    let free = std::time::Duration::from_secs(10);
    crate::wait_until!(free, export().await.0 == StatusCode::OK, "streams held");
    let held = alice.stream(&format!("/api/bot/game/stream/{id}")).await;
    let (status, refused) = export().await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{refused}");
    drop(held);
    crate::wait_until!(
        free,
        export().await.0 == StatusCode::OK,
        "the stream held on"
    );
    assert!(export().await.1.contains(&id));
}
