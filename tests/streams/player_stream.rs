//! `Games.WatchPlayer` end to end: one stream of a player's games by the
//! seats it holds: started, your turn, offers to answer, ended; its bounds
//! and its refusals.

use crate::common::{self, SeatRequest};

use std::time::Duration;

use arbiter::api::{PlayerLimits, proto as pb};
use arbiter::server::ServerConfig;
use common::{TestServer, code_and_reason, next_player_event, play, watch_player};
use pb::PlayerEventKind::*;
use tonic::Code;

/// Alice plays White in one game and Black in another: her stream tells
/// her each game's start and her turns, the draw offered to her, and each
/// end, then ends.
#[tokio::test]
async fn a_player_hears_of_its_games_turns_offers_and_ends() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let first = common::create_game(&mut games, pb::Variant::Chess, None, "Alice", "Bob").await;
    let second =
        common::create_game(&mut games, pb::Variant::Xiangqi, None, "Carol", "Alice").await;
    let (a, b) = (first.game.unwrap().id, second.game.unwrap().id);
    let mut alice = watch_player(
        &mut games,
        &[(&a, &first.white_token), (&b, &second.black_token)],
    )
    .await
    .unwrap();
    let mut next = async || next_player_event(&mut alice).await.expect("an event");
    assert_eq!(next().await, (GameStarted, a.clone()));
    assert_eq!(next().await, (YourTurn, a.clone()), "White moves first");
    assert_eq!(next().await, (GameStarted, b.clone()));

    // Her own move tells her nothing; her opponents' moves her turn.
    play(&mut games, &a, &first.white_token, "e4").await;
    play(&mut games, &b, &second.white_token, "C2.5").await;
    let message = alice.message().await.unwrap().unwrap();
    assert_eq!(
        (message.kind, message.game.as_ref().unwrap().id.as_str()),
        (YourTurn as i32, b.as_str())
    );
    assert_eq!(message.side, pb::Side::Black as i32);
    let played = message.r#move.unwrap();
    assert_eq!(played.r#move.unwrap().standard, "C2.5");
    assert!(message.game.unwrap().moves.is_empty(), "the basic view");
    play(&mut games, &a, &first.black_token, "e5").await;
    let mut next = async || next_player_event(&mut alice).await.expect("an event");
    assert_eq!(next().await, (YourTurn, a.clone()));

    // A draw offered to her; Carol resigns the other game.
    games
        .offer_draw(pb::OfferDrawRequest::by_seat(
            a.clone(),
            first.black_token.clone(),
        ))
        .await
        .unwrap();
    assert_eq!(next().await, (DrawOffered, a.clone()));
    games
        .resign(pb::ResignRequest::by_seat(
            b.clone(),
            second.white_token.clone(),
        ))
        .await
        .unwrap();
    assert_eq!(next().await, (GameEnded, b.clone()));
    games
        .respond_to_draw(pb::RespondToDrawRequest {
            accept: true,
            ..pb::RespondToDrawRequest::by_seat(a.clone(), first.white_token.clone())
        })
        .await
        .unwrap();
    assert_eq!(next().await, (GameEnded, a.clone()));
    assert_eq!(
        next_player_event(&mut alice).await,
        None,
        "every game ended"
    );

    // Following a finished game: its end at once, and the stream ends.
    let mut late = watch_player(&mut games, &[(&a, &first.black_token)])
        .await
        .unwrap();
    assert_eq!(
        next_player_event(&mut late).await,
        Some((GameEnded, a.clone()))
    );
    assert_eq!(next_player_event(&mut late).await, None);
    server.stop().await;
}

/// Both seats of one game (a board shared by two players): each side's
/// turn in turn, a takeback proposed to one, and the turn it gives back.
#[tokio::test]
async fn both_seats_of_a_game_are_told_their_own_turns() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let (white, black) = (&created.white_token, &created.black_token);
    let mut board = watch_player(&mut games, &[(&id, white), (&id, black), (&id, white)])
        .await
        .unwrap();
    let mut sides = Vec::new();
    for _ in 0..3 {
        let m = board.message().await.unwrap().unwrap();
        sides.push((pb::PlayerEventKind::try_from(m.kind).unwrap(), m.side));
    }
    let (w, b) = (pb::Side::White as i32, pb::Side::Black as i32);
    assert_eq!(
        sides,
        [(GameStarted, w), (YourTurn, w), (GameStarted, b)],
        "white once"
    );
    play(&mut games, &id, white, "d4").await;
    let m = board.message().await.unwrap().unwrap();
    assert_eq!((m.kind, m.side), (YourTurn as i32, b));
    common::propose_takeback(&mut games, &id, white)
        .await
        .unwrap();
    let m = board.message().await.unwrap().unwrap();
    assert_eq!((m.kind, m.side), (TakebackProposed as i32, b));
    games
        .respond_to_takeback(pb::RespondToTakebackRequest {
            accept: true,
            ..pb::RespondToTakebackRequest::by_seat(id.clone(), black.clone())
        })
        .await
        .unwrap();
    let m = board.message().await.unwrap().unwrap();
    assert_eq!(
        (m.kind, m.side, m.game.unwrap().ply),
        (YourTurn as i32, w, 0)
    );
    drop(board);
    server.stop().await;
}

/// Seats as `(game id, seat token)`.
type Seats<'a> = &'a [(&'a str, &'a str)];

/// Bad seats are refused with their reasons, and the stream's bounds hold:
/// seats per stream, streams in all (a place freed when a stream ends).
#[tokio::test]
async fn player_streams_are_bounded_and_bad_seats_refused() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        player_streams: PlayerLimits {
            max_seats: 2,
            max_streams: 1,
            max_per_player: 1,
        },
        ..config
    })
    .await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let (id, token) = (id.as_str(), created.white_token.as_str());
    let refusal = async |games: &mut _, seats: &[(&str, &str)]| {
        code_and_reason(&watch_player(games, seats).await.unwrap_err())
    };
    let cases: [(Seats, Code, &str); 5] = [
        (&[], Code::InvalidArgument, "MISSING_FIELD"),
        (&[(id, token); 3], Code::InvalidArgument, "TOO_LONG"),
        (
            &[(id, "not a token")],
            Code::Unauthenticated,
            "SEAT_TOKEN_UNKNOWN",
        ),
        (&[(id, "")], Code::Unauthenticated, "SEAT_TOKEN_MISSING"),
        (&[("nosuchgame", token)], Code::NotFound, "GAME_NOT_FOUND"),
    ];
    for (seats, code, reason) in cases {
        assert_eq!(
            refusal(&mut games, seats).await,
            (code, reason.to_owned()),
            "{seats:?}"
        );
    }
    let mut open = watch_player(&mut games, &[(id, token)]).await.unwrap();
    assert_eq!(
        next_player_event(&mut open).await,
        Some((GameStarted, id.to_owned()))
    );
    let full = watch_player(&mut games, &[(id, token)]).await.unwrap_err();
    assert_eq!(
        code_and_reason(&full),
        (Code::ResourceExhausted, "TOO_MANY_WATCHERS".to_owned())
    );
    drop(open);
    // The server notices the stream is gone once its connection tells it.
    crate::wait_for!(
        Duration::from_secs(2),
        watch_player(&mut games, &[(id, token)]).await.ok(),
        "the place was given back"
    );
    server.stop().await;
}

/// A player stream whose client stops reading (a 64 KiB stream window
/// that fills up) while its game goes on: it is not queued for; once it
/// reads again it gets what was in flight, then `WATCHER_TOO_SLOW` naming
/// the game it fell behind.
#[tokio::test]
async fn a_player_stream_that_stops_reading_is_ended_as_too_slow() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        watcher_buffer_bytes: 4096,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.unwrap().id;
    let (white, black) = (&created.white_token, &created.black_token);
    let endpoint = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .initial_stream_window_size(Some(64 * 1024));
    let mut reader = pb::games_client::GamesClient::new(endpoint.connect().await.unwrap());
    let mut stalled = watch_player(&mut reader, &[(&id, white), (&id, black)])
        .await
        .unwrap();
    // Three events for the stream per round (Black's turn, the takeback
    // proposed to Black, White's turn again), some 1.2 KB: 600 rounds are
    // more than every buffer on the way holds.
    for _ in 0..600 {
        play(&mut games, &id, white, "e4").await;
        common::propose_takeback(&mut games, &id, white)
            .await
            .unwrap();
        games
            .respond_to_takeback(pb::RespondToTakebackRequest {
                accept: true,
                ..pb::RespondToTakebackRequest::by_seat(id.clone(), black.clone())
            })
            .await
            .unwrap();
    }
    let status = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            match stalled.message().await {
                Ok(Some(_)) => {}
                Ok(None) => panic!("the stream ended without a status"),
                Err(status) => return status,
            }
        }
    })
    .await
    .expect("told within 30 s");
    assert_eq!(
        code_and_reason(&status),
        (Code::ResourceExhausted, "WATCHER_TOO_SLOW".to_owned())
    );
    let info = tonic_types::StatusExt::get_details_error_info(&status).unwrap();
    assert_eq!(info.metadata.get("game_id"), Some(&id));
    server.stop().await;
}
