//! Open seats through gRPC: a game created with a seat left open, taken by
//! a player with the join code (held clocks, refused moves, the watchers'
//! SEAT_JOINED), a race for one seat between two servers on one database,
//! the expiry of a game nobody joins, and every refusal's reason.

use crate::common::{self, SeatRequest};

use std::{sync::Arc, time::Duration};

use arbiter::{api::proto as pb, games::ManualTime, server::ServerConfig};
use common::{TestServer, code_and_reason, seat};
use tokio_stream::StreamExt;
use tonic::{Code, transport::Channel};

type Games = pb::games_client::GamesClient<Channel>;

fn open() -> Option<pb::SeatRequest> {
    Some(pb::SeatRequest {
        open: true,
        ..Default::default()
    })
}

/// A chess game hosted by "Alice" as White on a 5+0 clock, Black left open.
async fn open_game(games: &mut Games) -> pb::CreateGameResponse {
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: seat("Alice"),
            black: open(),
            time_control: Some(pb::TimeControl {
                initial_ms: 300_000,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .expect("open game created")
        .into_inner()
}

async fn join(
    games: &mut Games,
    code: &str,
    name: &str,
) -> Result<pb::JoinGameResponse, tonic::Status> {
    games
        .join_game(pb::JoinGameRequest {
            join_code: code.into(),
            display_name: name.into(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn make_move(
    games: &mut Games,
    id: &str,
    token: &str,
    text: &str,
) -> Result<pb::Game, tonic::Status> {
    games
        .make_move(pb::MakeMoveRequest {
            game_id: id.into(),
            seat_token: token.into(),
            r#move: text.into(),
            ..Default::default()
        })
        .await
        .map(|r| r.into_inner().game.unwrap())
}

fn precondition(reason: &str) -> (Code, String) {
    (Code::FailedPrecondition, reason.to_owned())
}

#[tokio::test]
async fn a_player_takes_the_open_seat_with_the_join_code() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = open_game(&mut games).await;
    let game = created.game.unwrap();
    let id = game.id.clone();
    let code = created.join_code;
    assert_eq!(code.len(), 10, "{code}");
    assert!(!created.white_token.is_empty());
    assert_eq!(created.black_token, "", "nobody holds the open seat yet");
    let black = game.black.unwrap();
    assert!(black.open);
    assert_eq!(black.display_name, "Black");
    // The clocks are held: nothing runs, nothing can run out.
    let clock = game.clock.unwrap();
    assert_eq!(clock.running, pb::Side::Unspecified as i32);
    assert_eq!(clock.deadline, None);

    // GetGame and ListGames show the seat open.
    assert!(common::get_game(&mut games, &id).await.black.unwrap().open);
    let listed = games
        .list_games(pb::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    assert!(
        listed
            .iter()
            .any(|g| g.id == id && g.black.as_ref().unwrap().open)
    );

    // The host waits for an opponent: moves and offers are refused.
    let status = make_move(&mut games, &id, &created.white_token, "e4")
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("SEAT_OPEN"));
    let status = games
        .offer_draw(pb::OfferDrawRequest::by_seat(
            id.clone(),
            created.white_token.clone(),
        ))
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("SEAT_OPEN"));

    let mut watch = common::watch(&mut games, &id).await;
    watch.next().await.unwrap().unwrap(); // snapshot

    // Typed in lower case with a dash, the code still reads.
    let typed = format!("{}-{}", &code[..5], &code[5..]).to_lowercase();
    let joined = join(&mut games, &typed, "Carol").await.unwrap();
    assert_eq!(joined.side, pb::Side::Black as i32);
    assert!(!joined.seat_token.is_empty());
    let black = joined.game.as_ref().unwrap().black.clone().unwrap();
    assert_eq!((black.display_name.as_str(), black.open), ("Carol", false));
    // The first move's grace starts now.
    assert!(joined.game.unwrap().clock.unwrap().deadline.is_some());

    let event = watch.next().await.unwrap().unwrap();
    assert_eq!(event.kind, pb::GameEventKind::SeatJoined as i32);
    assert_eq!(event.game.unwrap().black.unwrap().display_name, "Carol");

    make_move(&mut games, &id, &created.white_token, "e4")
        .await
        .unwrap();
    let game = make_move(&mut games, &id, &joined.seat_token, "e5")
        .await
        .unwrap();
    assert_eq!(game.ply, 2);

    // The seat is taken: a late joiner hears so.
    let status = join(&mut games, &code, "Dave").await.unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("SEAT_TAKEN"));
    // The players' search finds the joiner by name.
    let found = games
        .list_games(pb::ListGamesRequest {
            player: "carol".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(found.len(), 1);
    server.stop().await;
}

/// Two players race for the seat, each on a connection of its own (on
/// PostgreSQL, through a server of its own on the one database): exactly
/// one takes it, the other hears SEAT_TAKEN.
#[tokio::test]
async fn of_two_racing_joiners_exactly_one_takes_the_seat() {
    let first = TestServer::start().await;
    // Up (its database migrated) before the second starts.
    let mut host = first.games().await;
    let second = match first.db.is_postgres() {
        true => Some(TestServer::start_on(&first.db).await),
        false => None,
    };
    let mut one = first.games().await;
    let mut other = second.as_ref().unwrap_or(&first).games().await;
    for round in 0..5 {
        let created = open_game(&mut host).await;
        let code = created.join_code;
        let (a, b) = tokio::join!(
            join(&mut one, &code, "One"),
            join(&mut other, &code, "Other")
        );
        let (won, lost) = match (a, b) {
            (Ok(won), Err(lost)) | (Err(lost), Ok(won)) => (won, lost),
            (a, b) => panic!("round {round}: not exactly one winner: {a:?} {b:?}"),
        };
        assert_eq!(code_and_reason(&lost), precondition("SEAT_TAKEN"));
        let id = created.game.unwrap().id;
        let game = common::get_game(&mut host, &id).await;
        let black = game.black.unwrap();
        assert!(!black.open);
        assert_eq!(
            black.display_name,
            won.game.unwrap().black.unwrap().display_name
        );
        make_move(&mut host, &id, &created.white_token, "d4")
            .await
            .unwrap();
        make_move(&mut one, &id, &won.seat_token, "d5")
            .await
            .unwrap();
    }
    if let Some(second) = second {
        second.stop().await;
    }
    first.stop().await;
}

/// On a manual clock: held past the first-move grace, the game goes on;
/// past the timeout it is aborted once (on PostgreSQL two servers sweep for
/// it), and the watchers of each server are told.
#[tokio::test]
async fn an_open_game_nobody_joins_expires_and_its_watchers_are_told() {
    let time = ManualTime::new(1_700_000_000_000);
    let configure = |time: Arc<ManualTime>| {
        move |config| ServerConfig {
            time,
            open_seat_timeout: Duration::from_secs(600),
            ..config
        }
    };
    let server = TestServer::start_with_config(configure(Arc::clone(&time))).await;
    let mut games = server.games().await;
    let second = match server.db.is_postgres() {
        true => {
            Some(TestServer::start_on_configured(&server.db, configure(Arc::clone(&time))).await)
        }
        false => None,
    };
    let mut other = second.as_ref().unwrap_or(&server).games().await;
    let created = open_game(&mut games).await;
    let id = created.game.unwrap().id;
    let mut watch = common::watch(&mut games, &id).await;
    watch.next().await.unwrap().unwrap(); // snapshot
    let mut watch_other = common::watch(&mut other, &id).await;
    watch_other.next().await.unwrap().unwrap(); // snapshot

    // Not yet: a minute before the timeout the seat is still open.
    time.advance(Duration::from_secs(540));
    common::let_pass(Duration::from_millis(1500)).await;
    let game = common::get_game(&mut games, &id).await;
    assert_eq!(
        game.outcome.unwrap().status,
        pb::OutcomeStatus::Ongoing as i32
    );

    time.advance(Duration::from_secs(61));
    let ended = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .expect("the expiry comes within a few sweeps")
        .unwrap()
        .unwrap();
    assert_eq!(ended.kind, pb::GameEventKind::GameEnded as i32);
    let outcome = ended.game.unwrap().outcome.unwrap();
    assert_eq!(
        (outcome.status, outcome.termination),
        (
            pb::OutcomeStatus::Aborted as i32,
            pb::Termination::Unjoined as i32
        )
    );
    assert!(
        watch.next().await.is_none(),
        "the stream closes after the end"
    );
    let told = tokio::time::timeout(Duration::from_secs(10), watch_other.next())
        .await
        .expect("the other server's watcher is told")
        .unwrap()
        .unwrap();
    assert_eq!(told.kind, pb::GameEventKind::GameEnded as i32);
    // Aborted once: the one change since its creation.
    assert_eq!(common::get_game(&mut other, &id).await.version, 1);

    let status = join(&mut games, &created.join_code, "Late")
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("GAME_OVER"));
    if let Some(second) = second {
        second.stop().await;
    }
    server.stop().await;
}

#[tokio::test]
async fn open_seats_refuse_what_cannot_be_with_its_reason() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let engine = Some(pb::SeatRequest {
        engine: Some(pb::EnginePlayer::default()),
        ..Default::default()
    });
    let named_open = Some(pb::SeatRequest {
        open: true,
        display_name: "Someone".into(),
        ..Default::default()
    });
    let open_engine = Some(pb::SeatRequest {
        open: true,
        engine: Some(pb::EnginePlayer::default()),
        ..Default::default()
    });
    let invalid = (Code::InvalidArgument, "INVALID_OPEN_SEAT".to_owned());
    for (white, black) in [
        (open(), open()),
        (seat("Host"), open_engine),
        (seat("Host"), named_open),
        (engine, open()),
    ] {
        let status = games
            .create_game(pb::CreateGameRequest {
                variant: pb::Variant::Chess as i32,
                white,
                black,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(code_and_reason(&status), invalid, "{status:?}");
    }

    let status = join(&mut games, "", "x").await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "MISSING_FIELD".to_owned())
    );
    for code in ["ZZZZZZZZZZ", "not a code", "K7Q2M9XA3"] {
        let status = join(&mut games, code, "x").await.unwrap_err();
        assert_eq!(
            code_and_reason(&status),
            (Code::NotFound, "JOIN_CODE_UNKNOWN".to_owned()),
            "{code}"
        );
    }

    let created = open_game(&mut games).await;
    let status = join(&mut games, &created.join_code, &"n".repeat(101))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "TOO_LONG".to_owned())
    );
    let status = join(&mut games, &created.join_code, "a\nb")
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "CONTROL_CHARACTER".to_owned())
    );
    // The host may call the game off before anyone joins.
    let id = created.game.unwrap().id;
    games
        .abort(pb::AbortRequest::by_seat(
            id.clone(),
            created.white_token.clone(),
        ))
        .await
        .unwrap();
    let status = join(&mut games, &created.join_code, "Late")
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("GAME_OVER"));
    // Nobody took the seat: there is nobody to play a rematch with.
    let status = games
        .offer_rematch(pb::OfferRematchRequest::by_seat(id, created.white_token))
        .await
        .unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("SEAT_OPEN"));
    server.stop().await;
}

async fn open_seat(
    games: &mut Games,
    code: &str,
) -> Result<pb::GetOpenSeatResponse, tonic::Status> {
    games
        .get_open_seat(pb::GetOpenSeatRequest {
            join_code: code.into(),
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn a_join_code_shows_its_game_before_joining_and_says_when_it_cannot_be_used() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = open_game(&mut games).await;
    let id = created.game.unwrap().id;

    // Typed as a person might: lower case, with a dash.
    let typed = format!("{}-{}", &created.join_code[..5], &created.join_code[5..]).to_lowercase();
    let shown = open_seat(&mut games, &typed).await.unwrap();
    assert_eq!(shown.side, pb::Side::Black as i32);
    let game = shown.game.unwrap();
    assert_eq!(game.id, id);
    assert_eq!(game.variant, pb::Variant::Chess as i32);
    assert_eq!(game.white.unwrap().display_name, "Alice");
    assert!(game.black.unwrap().open);
    assert_eq!(game.clock.unwrap().control.unwrap().initial_ms, 300_000);
    assert!(game.moves.is_empty(), "the basic view");
    // Looking changes nothing: the seat is still there to take.
    join(&mut games, &created.join_code, "Bob").await.unwrap();

    let status = open_seat(&mut games, &created.join_code).await.unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("SEAT_TAKEN"));
    let status = open_seat(&mut games, "0000000000").await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::NotFound, "JOIN_CODE_UNKNOWN".to_owned())
    );
    let status = open_seat(&mut games, "").await.unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::InvalidArgument, "MISSING_FIELD".to_owned())
    );

    let aborted = open_game(&mut games).await;
    games
        .abort(pb::AbortRequest::by_seat(
            aborted.game.unwrap().id,
            aborted.white_token,
        ))
        .await
        .unwrap();
    let status = open_seat(&mut games, &aborted.join_code).await.unwrap_err();
    assert_eq!(code_and_reason(&status), precondition("GAME_OVER"));
}
