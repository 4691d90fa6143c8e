//! WatchGame resumed with `from_version`, through the generated client: a
//! client that lost its stream, or was dropped as too slow, gets exactly
//! the events after the version it saw (as they were sent live), then the
//! live ones; a finished game's remaining events end with its end; a
//! version the game has not reached is refused.

use crate::common::{self, SeatRequest};

use std::time::Duration;

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use arbiter::server::ServerConfig;
use common::{TestServer, long_game::long_game};
use tonic::{
    Code, Status, Streaming,
    transport::{Channel, Endpoint},
};
use tonic_types::StatusExt;

type Events = Streaming<pb::WatchGameResponse>;

/// Watches game `id`, resuming after `from_version` if given.
async fn watch(
    games: &mut GamesClient<Channel>,
    id: &str,
    from_version: Option<i64>,
) -> Result<Events, Status> {
    games
        .watch_game(pb::WatchGameRequest {
            game_id: id.into(),
            from_version,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

/// The stream's next message (`None` at its end), within 10 s.
async fn next(events: &mut Events) -> Option<pb::WatchGameResponse> {
    tokio::time::timeout(Duration::from_secs(10), events.message())
        .await
        .expect("a message within 10 s")
        .expect("no error")
}

/// The next `n` messages.
async fn take(events: &mut Events, n: usize) -> Vec<pb::WatchGameResponse> {
    let mut taken = Vec::with_capacity(n);
    for _ in 0..n {
        taken.push(next(events).await.expect("the stream goes on"));
    }
    taken
}

fn version(message: &pb::WatchGameResponse) -> i64 {
    message.game.as_ref().unwrap().version
}

fn reason(status: &Status) -> String {
    status
        .get_details_error_info()
        .map(|info| info.reason)
        .unwrap_or_default()
}

fn metadata(status: &Status, key: &str) -> Option<String> {
    status
        .get_details_error_info()
        .and_then(|info| info.metadata.get(key).cloned())
}

/// A chess game between two humans: its id and the tokens of white and
/// black.
async fn new_game(games: &mut GamesClient<Channel>) -> (String, [String; 2]) {
    let created = common::new_chess_game(games, None).await;
    (
        created.game.unwrap().id,
        [created.white_token, created.black_token],
    )
}

/// Plays `moves` from ply `from` on, each by the side to move.
async fn play(
    games: &mut GamesClient<Channel>,
    id: &str,
    tokens: &[String; 2],
    from: usize,
    moves: &[String],
) {
    for (i, text) in moves.iter().enumerate() {
        common::play(games, id, &tokens[(from + i) % 2], text).await;
    }
}

async fn offer_and_decline(games: &mut GamesClient<Channel>, id: &str, tokens: &[String; 2]) {
    games
        .offer_draw(pb::OfferDrawRequest::by_seat(id, tokens[0].clone()))
        .await
        .unwrap();
    games
        .respond_to_draw(pb::RespondToDrawRequest {
            accept: false,
            ..pb::RespondToDrawRequest::by_seat(id, tokens[1].clone())
        })
        .await
        .unwrap();
}

/// A client whose stream dropped while the game went on (more events than
/// one page of the store, a takeback among them) resumes from the last
/// version it saw: it gets every event after it once, in order, each the
/// very message a watcher that stayed got, then the live ones.
#[tokio::test]
async fn resuming_after_a_dropped_stream_misses_nothing_and_repeats_nothing() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    let moves = long_game(60);
    let mut stayed = watch(&mut games, &id, None).await.unwrap();
    let mut dropped = watch(&mut games, &id, None).await.unwrap();
    assert_eq!(version(&next(&mut stayed).await.unwrap()), 0);
    assert_eq!(version(&next(&mut dropped).await.unwrap()), 0);

    play(&mut games, &id, &tokens, 0, &moves[..4]).await;
    let seen = take(&mut dropped, 4).await;
    assert_eq!(seen.iter().map(version).collect::<Vec<_>>(), [1, 2, 3, 4]);
    drop(dropped);

    // 40 events while it is away: moves, a declined draw, a takeback.
    play(&mut games, &id, &tokens, 4, &moves[4..40]).await;
    offer_and_decline(&mut games, &id, &tokens).await;
    common::propose_takeback(&mut games, &id, &tokens[1])
        .await
        .unwrap();
    common::respond_to_takeback(&mut games, &id, &tokens[0], true)
        .await
        .unwrap();
    let live = take(&mut stayed, 44).await;
    assert_eq!(version(&live[43]), 44);

    let mut resumed = watch(&mut games, &id, Some(4)).await.unwrap();
    let told = take(&mut resumed, 40).await;
    assert_eq!(told, live[4..], "the events after version 4, as sent live");
    assert_eq!(
        told.iter().map(version).collect::<Vec<_>>(),
        (5..=44).collect::<Vec<_>>()
    );
    let kinds: Vec<i32> = told[36..].iter().map(|m| m.kind).collect();
    use pb::GameEventKind as K;
    assert_eq!(
        kinds,
        [
            K::DrawOffered as i32,
            K::DrawDeclined as i32,
            K::TakebackProposed as i32,
            K::TakebackAccepted as i32
        ]
    );
    assert!(
        told[..36]
            .iter()
            .all(|m| m.kind == K::Move as i32 && m.r#move.is_some())
    );

    // Then the live events, each once.
    let ply = told[39].game.as_ref().unwrap().ply as usize;
    play(&mut games, &id, &tokens, ply, &moves[ply..ply + 2]).await;
    let after = take(&mut resumed, 2).await;
    assert_eq!(after.iter().map(version).collect::<Vec<_>>(), [45, 46]);
    assert_eq!(after, take(&mut stayed, 2).await);
}

/// A watcher the server dropped for being too slow resumes from the
/// `last_version` it was told, and misses nothing.
#[tokio::test]
async fn resuming_after_being_dropped_as_too_slow_misses_nothing() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        watcher_buffer_bytes: 16 * 1024,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    play(&mut games, &id, &tokens, 0, &long_game(24)).await;

    // A client that does not read, on a connection with a small window.
    let endpoint = Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .initial_stream_window_size(Some(16 * 1024));
    let mut slow_client = GamesClient::new(endpoint.connect().await.unwrap());
    let mut slow = watch(&mut slow_client, &id, None).await.unwrap();
    for _ in 0..100 {
        offer_and_decline(&mut games, &id, &tokens).await;
    }
    let current = common::get_game(&mut games, &id).await.version;
    assert_eq!(current, 24 + 200);

    let mut received = Vec::new();
    let status = loop {
        match tokio::time::timeout(Duration::from_secs(10), slow.message())
            .await
            .expect("within 10 s")
        {
            Ok(Some(message)) => received.push(version(&message)),
            Ok(None) => panic!("the slow watcher was not dropped"),
            Err(status) => break status,
        }
    };
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "WATCHER_TOO_SLOW");
    let last: i64 = metadata(&status, "last_version").unwrap().parse().unwrap();
    assert_eq!(Some(&last), received.last());
    assert!(last < current, "it fell behind at {last}");

    let mut resumed = watch(&mut slow_client, &id, Some(last)).await.unwrap();
    let told = take(&mut resumed, usize::try_from(current - last).unwrap()).await;
    assert_eq!(
        told.iter().map(version).collect::<Vec<_>>(),
        (last + 1..=current).collect::<Vec<_>>()
    );
    offer_and_decline(&mut games, &id, &tokens).await;
    let live = take(&mut resumed, 2).await;
    assert_eq!(
        live.iter().map(version).collect::<Vec<_>>(),
        [current + 1, current + 2]
    );
}

/// Resuming from the game's version tells only what happens next: no
/// snapshot, no repeat.
#[tokio::test]
async fn resuming_from_the_current_version_tells_only_live_events() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    let moves = long_game(4);

    // A new game is at version 0.
    let mut fresh = watch(&mut games, &id, Some(0)).await.unwrap();
    play(&mut games, &id, &tokens, 0, &moves[..2]).await;
    let mut current = watch(&mut games, &id, Some(2)).await.unwrap();
    play(&mut games, &id, &tokens, 2, &moves[2..]).await;

    let first = take(&mut fresh, 4).await;
    assert_eq!(first.iter().map(version).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(first[0].kind, pb::GameEventKind::Move as i32);
    let later = take(&mut current, 2).await;
    assert_eq!(later, first[2..]);
}

/// A resume tells at most 256 past events (the most a watched game keeps
/// for its watchers), each as it was sent live, moves and a takeback among
/// them; from further back it is answered with a snapshot of the game as
/// it is now, then the live events.
#[tokio::test]
async fn a_resume_from_further_back_than_256_events_is_a_snapshot() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    let moves = long_game(60);
    let mut stayed = watch(&mut games, &id, None).await.unwrap();
    assert_eq!(version(&next(&mut stayed).await.unwrap()), 0);
    // Read as it goes, so that it never falls 256 events behind.
    let mut live = Vec::new();
    play(&mut games, &id, &tokens, 0, &moves[..20]).await;
    live.extend(take(&mut stayed, 20).await);
    for _ in 0..120 {
        offer_and_decline(&mut games, &id, &tokens).await;
    }
    live.extend(take(&mut stayed, 240).await);
    play(&mut games, &id, &tokens, 20, &moves[20..40]).await;
    common::propose_takeback(&mut games, &id, &tokens[1])
        .await
        .unwrap();
    common::respond_to_takeback(&mut games, &id, &tokens[0], true)
        .await
        .unwrap();
    play(&mut games, &id, &tokens, 39, &moves[39..45]).await;
    live.extend(take(&mut stayed, 28).await);
    assert_eq!(version(&live[287]), 288);

    let mut near = watch(&mut games, &id, Some(288 - 256)).await.unwrap();
    let told = take(&mut near, 256).await;
    assert_eq!(told, live[32..], "the last 256 events, as sent live");

    for far in [0, 288 - 257] {
        let current = common::get_game(&mut games, &id).await.version;
        let mut resumed = watch(&mut games, &id, Some(far)).await.unwrap();
        let snapshot = next(&mut resumed).await.unwrap();
        assert_eq!(snapshot.kind, pb::GameEventKind::Snapshot as i32, "{far}");
        assert_eq!(version(&snapshot), current);
        assert_eq!(snapshot.game.as_ref().unwrap().moves.len(), 45);
        play(&mut games, &id, &tokens, 45, &moves[45..46]).await;
        let after = next(&mut resumed).await.unwrap();
        assert_eq!(after, next(&mut stayed).await.unwrap());
        // That move taken back, for the next resume.
        common::propose_takeback(&mut games, &id, &tokens[1])
            .await
            .unwrap();
        common::respond_to_takeback(&mut games, &id, &tokens[0], true)
            .await
            .unwrap();
        take(&mut stayed, 2).await;
    }
}

/// Resumes are limited per caller's address while they tell their past
/// events: one that its client does not read holds its place, and another
/// is refused with `RESUME_LIMIT` and the limit, while a plain watch goes
/// on; once the first has told its events, a resume is taken again.
#[tokio::test]
async fn resumes_are_limited_per_address() {
    let server = TestServer::start_with_config(|config| ServerConfig {
        max_resumes_per_peer: 1,
        ..config
    })
    .await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    play(&mut games, &id, &tokens, 0, &long_game(40)).await;

    // Each event has the whole move list: the client's small window and the
    // server's send buffer fill long before the 40th.
    let endpoint = Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .initial_stream_window_size(Some(1024));
    let mut slow_client = GamesClient::new(endpoint.connect().await.unwrap());
    let full = |from_version| pb::WatchGameRequest {
        game_id: id.clone(),
        from_version,
        view: pb::GameView::Full as i32,
        ..Default::default()
    };
    let mut slow = slow_client
        .watch_game(full(Some(0)))
        .await
        .unwrap()
        .into_inner();

    let status = watch(&mut games, &id, Some(0)).await.unwrap_err();
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "RESUME_LIMIT");
    assert_eq!(metadata(&status, "limit").as_deref(), Some("1"));
    let mut plain = watch(&mut games, &id, None).await.unwrap();
    assert_eq!(version(&next(&mut plain).await.unwrap()), 40);

    let told = take(&mut slow, 40).await;
    assert_eq!(version(&told[39]), 40);
    let mut again = crate::wait_for!(
        Duration::from_secs(10),
        match watch(&mut games, &id, Some(39)).await {
            Ok(again) => Some(again),
            Err(status) if reason(&status) == "RESUME_LIMIT" => None,
            Err(status) => panic!("{status:?}"),
        },
        "still RESUME_LIMIT"
    );
    assert_eq!(version(&next(&mut again).await.unwrap()), 40);
}

/// A finished game: the events after the version, then its end; from its
/// last version, nothing.
#[tokio::test]
async fn resuming_a_finished_game_tells_the_rest_then_the_end() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    let mate: Vec<String> = ["f3", "e5", "g4", "Qh4#"].map(String::from).to_vec();
    play(&mut games, &id, &tokens, 0, &mate).await;

    let mut resumed = watch(&mut games, &id, Some(2)).await.unwrap();
    let told = take(&mut resumed, 3).await;
    use pb::GameEventKind as K;
    assert_eq!(
        told.iter()
            .map(|m| (m.kind, version(m)))
            .collect::<Vec<_>>(),
        [
            (K::Move as i32, 3),
            (K::Move as i32, 4),
            (K::GameEnded as i32, 4)
        ]
    );
    let mated = told[1].r#move.as_ref().unwrap().r#move.as_ref().unwrap();
    assert_eq!(mated.san, "Qh4#");
    assert!(next(&mut resumed).await.is_none(), "the stream ends");

    let mut at_end = watch(&mut games, &id, Some(4)).await.unwrap();
    assert!(next(&mut at_end).await.is_none(), "nothing after the end");

    // A resignation ends a resumed stream the same way.
    let (id, tokens) = new_game(&mut games).await;
    let mut resumed = watch(&mut games, &id, Some(0)).await.unwrap();
    games
        .resign(pb::ResignRequest::by_seat(id.clone(), tokens[1].clone()))
        .await
        .unwrap();
    let end = next(&mut resumed).await.unwrap();
    assert_eq!((end.kind, version(&end)), (K::GameEnded as i32, 1));
    assert!(next(&mut resumed).await.is_none());
}

/// A version the game has not reached is OUT_OF_RANGE `VERSION_AHEAD`
/// with the game's version; a negative one is INVALID_ARGUMENT; an
/// unknown game NOT_FOUND.
#[tokio::test]
async fn resuming_from_a_version_the_game_has_not_reached_is_refused() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    play(&mut games, &id, &tokens, 0, &long_game(2)).await;

    let status = watch(&mut games, &id, Some(3)).await.unwrap_err();
    assert_eq!(status.code(), Code::OutOfRange, "{status:?}");
    assert_eq!(reason(&status), "VERSION_AHEAD");
    assert_eq!(metadata(&status, "current_version").as_deref(), Some("2"));

    let status = watch(&mut games, &id, Some(-1)).await.unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(reason(&status), "VALUE_OUT_OF_RANGE");
    let violations = status.get_details_bad_request().unwrap().field_violations;
    assert_eq!(violations[0].field, "from_version");

    let status = watch(&mut games, &arbiter::games::new_id(), Some(0))
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound, "{status:?}");
    assert_eq!(reason(&status), "GAME_NOT_FOUND");
}

/// Events recorded before events kept the game's state cannot be told
/// again: a resume from before them starts with a snapshot of the game now
/// (the client can tell by its kind), then live events; from after them it
/// tells them as usual.
#[tokio::test]
async fn events_that_cannot_be_told_again_resume_from_a_snapshot() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let (id, tokens) = new_game(&mut games).await;
    let moves = long_game(6);
    play(&mut games, &id, &tokens, 0, &moves[..4]).await;
    let pool = server.db.pool().await;
    sqlx::query(
        "UPDATE game_events SET ply = NULL \
         WHERE version <= 2 AND game_seq = (SELECT seq FROM games WHERE id = $1)",
    )
    .bind(&id)
    .execute(&pool)
    .await
    .unwrap();

    let mut resumed = watch(&mut games, &id, Some(1)).await.unwrap();
    let snapshot = next(&mut resumed).await.unwrap();
    assert_eq!(snapshot.kind, pb::GameEventKind::Snapshot as i32);
    assert_eq!(version(&snapshot), 4);
    assert_eq!(snapshot.game.as_ref().unwrap().moves.len(), 4);

    let mut after = watch(&mut games, &id, Some(2)).await.unwrap();
    play(&mut games, &id, &tokens, 4, &moves[4..]).await;
    let live = take(&mut resumed, 2).await;
    assert_eq!(live.iter().map(version).collect::<Vec<_>>(), [5, 6]);
    let told = take(&mut after, 4).await;
    assert_eq!(told.iter().map(version).collect::<Vec<_>>(), [3, 4, 5, 6]);
    assert_eq!(told[2..], live[..]);
}
