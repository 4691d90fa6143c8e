//! `--pairing`: how fast the pool pairs a burst of seekers while
//! `--open-seeks` other seeks wait in it, and how long each seeker waits
//! from its Seek to its game, on the seek's stream and on its WatchEvents
//! stream.
//!
//! The waiting seeks are correspondence seeks that accept no opponent
//! (their rating range is above anyone's), four per player: every pass
//! reads them, and pairs none. The seekers are `--pairs` pairs of players
//! seeking the same real-time game at once; each opens its WatchEvents
//! stream before it seeks.

use std::time::{Duration, Instant};

use arbiter::api::proto::{self as pb, players_client::PlayersClient};
use tonic::{Request, Status, transport::Channel};

use crate::{Fatal, connect};

/// Seeks a player may hold: the server's default `--max-seeks-per-player`.
const SEEKS_PER_PLAYER: usize = 4;
/// How long a seeker may wait for its game before the run fails.
const PATIENCE: Duration = Duration::from_secs(60);
/// Calls in flight while the waiting seeks are made and withdrawn.
const SETUP_IN_FLIGHT: usize = 32;

/// `request` with a player's `authorization` metadata.
fn bearing<T>(message: T, token: &str) -> Request<T> {
    let mut request = Request::new(message);
    if let Ok(value) = format!("Bearer {token}").parse() {
        request.metadata_mut().insert("authorization", value);
    }
    request
}

fn seek_request(waiting: bool) -> pb::SeekRequest {
    let time_control = if waiting {
        pb::TimeControl {
            days_per_move: 3,
            ..Default::default()
        }
    } else {
        pb::TimeControl {
            initial_ms: 180_000,
            increment_ms: 2_000,
            ..Default::default()
        }
    };
    pb::SeekRequest {
        variant: pb::Variant::Chess as i32,
        time_control: Some(time_control),
        rating_min: if waiting { 4000 } else { 0 },
        ..Default::default()
    }
}

/// Creates a player under a random name: their token.
async fn create_player(players: &mut PlayersClient<Channel>) -> Result<String, Status> {
    let username = format!("seek{:012x}", rand::random::<u64>() >> 16);
    Ok(players
        .create_player(pb::CreatePlayerRequest {
            username,
            ..Default::default()
        })
        .await?
        .into_inner()
        .token)
}

/// Makes `count` waiting seeks: their players' tokens and the seeks' ids.
async fn wait_in_pool(channels: &[Channel], count: usize) -> Result<Vec<(String, String)>, Status> {
    let players = count.div_ceil(SEEKS_PER_PLAYER);
    let mut made = Vec::with_capacity(count);
    let mut tasks = tokio::task::JoinSet::new();
    for n in 0..players {
        if tasks.len() >= SETUP_IN_FLIGHT
            && let Some(done) = tasks.join_next().await
        {
            made.extend(done.map_err(|e| Status::internal(e.to_string()))??);
        }
        let mut client = PlayersClient::new(channels[n % channels.len()].clone());
        let seeks = SEEKS_PER_PLAYER.min(count - n * SEEKS_PER_PLAYER);
        tasks.spawn(async move {
            let token = create_player(&mut client).await?;
            let mut ids = Vec::with_capacity(seeks);
            for _ in 0..seeks {
                let mut stream = client
                    .seek(bearing(seek_request(true), &token))
                    .await?
                    .into_inner();
                let seek = stream.message().await?.and_then(|m| m.seek);
                let id = seek.ok_or_else(|| Status::internal("no seek"))?.id;
                ids.push((token.clone(), id));
            }
            Ok::<_, Status>(ids)
        });
    }
    while let Some(done) = tasks.join_next().await {
        made.extend(done.map_err(|e| Status::internal(e.to_string()))??);
    }
    Ok(made)
}

/// Withdraws the waiting seeks.
async fn withdraw(channels: &[Channel], seeks: Vec<(String, String)>) -> Result<(), Status> {
    let mut tasks = tokio::task::JoinSet::new();
    for (n, (token, id)) in seeks.into_iter().enumerate() {
        if tasks.len() >= SETUP_IN_FLIGHT
            && let Some(done) = tasks.join_next().await
        {
            done.map_err(|e| Status::internal(e.to_string()))??;
        }
        let mut client = PlayersClient::new(channels[n % channels.len()].clone());
        tasks.spawn(async move {
            client
                .cancel_seek(bearing(pb::CancelSeekRequest { seek_id: id }, &token))
                .await
                .map(drop)
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.map_err(|e| Status::internal(e.to_string()))??;
    }
    Ok(())
}

/// One seeker's waits: on the seek's stream, and on WatchEvents.
struct Waited {
    seek: Duration,
    events: Duration,
    /// When the seek's stream told the game.
    paired_at: Instant,
}

/// Seeks with `token` (whose WatchEvents stream is `events`) from `start`.
async fn seek_game(
    mut client: PlayersClient<Channel>,
    token: String,
    mut events: tonic::Streaming<pb::WatchEventsResponse>,
    start: Instant,
) -> Result<Waited, Status> {
    let mut stream = client
        .seek(bearing(seek_request(false), &token))
        .await?
        .into_inner();
    let mut game = None;
    while let Some(message) = stream.message().await? {
        if let Some(paired) = message.game {
            game = Some(paired.id);
            break;
        }
    }
    let paired_at = Instant::now();
    let game = game.ok_or_else(|| Status::internal("the seek's stream ended without a game"))?;
    loop {
        let event = events
            .message()
            .await?
            .ok_or_else(|| Status::internal("WatchEvents ended"))?;
        let started = event.kind == pb::PlayerEventKind::GameStarted as i32;
        if started && event.game.is_some_and(|g| g.id == game) {
            return Ok(Waited {
                seek: paired_at - start,
                events: start.elapsed(),
                paired_at,
            });
        }
    }
}

/// p50, p99 and max of `waits`, in milliseconds.
fn quantiles(mut waits: Vec<Duration>) -> String {
    waits.sort();
    let at = |q: f64| {
        let rank = ((q * waits.len() as f64).ceil() as usize).clamp(1, waits.len());
        waits[rank - 1].as_secs_f64() * 1000.0
    };
    format!(
        "p50={:.1}ms p99={:.1}ms max={:.1}ms",
        at(0.5),
        at(0.99),
        at(1.0)
    )
}

/// Runs the measurement against `endpoint` over `connections` connections.
pub(crate) async fn measure(
    endpoint: &tonic::transport::Endpoint,
    connections: usize,
    open_seeks: usize,
    pairs: usize,
) -> Result<(), Fatal> {
    let failed = |what: &'static str| move |e: Status| Fatal(format!("{what}: {e}"));
    let channels = connect(endpoint, connections.max(1)).await?;
    let waiting = wait_in_pool(&channels, open_seeks)
        .await
        .map_err(failed("making the waiting seeks"))?;
    let mut seekers = Vec::with_capacity(2 * pairs);
    for n in 0..2 * pairs {
        let mut client = PlayersClient::new(channels[n % channels.len()].clone());
        let token = create_player(&mut client)
            .await
            .map_err(failed("creating a seeker"))?;
        let events = client
            .watch_events(bearing(pb::WatchEventsRequest::default(), &token))
            .await
            .map_err(failed("opening WatchEvents"))?
            .into_inner();
        seekers.push((client, token, events));
    }
    let start = Instant::now();
    let runs: Vec<_> = seekers
        .into_iter()
        .map(|(client, token, events)| {
            tokio::spawn(tokio::time::timeout(
                PATIENCE,
                seek_game(client, token, events, start),
            ))
        })
        .collect();
    let mut waits = Vec::with_capacity(runs.len());
    for run in runs {
        let waited = run
            .await
            .map_err(|e| Fatal(e.to_string()))?
            .map_err(|_| Fatal(format!("a seeker waited over {PATIENCE:?}")))?
            .map_err(failed("seeking"))?;
        waits.push(waited);
    }
    let last = waits.iter().map(|w| w.paired_at).max().unwrap_or(start);
    let seconds = (last - start).as_secs_f64();
    println!(
        "pairing open_seeks={open_seeks} seekers={} connections={connections} paired_in={:.3}s \
         seekers_per_s={:.0}",
        waits.len(),
        seconds,
        waits.len() as f64 / seconds.max(f64::EPSILON),
    );
    println!(
        "  seek to game on the seek's stream: {}",
        quantiles(waits.iter().map(|w| w.seek).collect())
    );
    println!(
        "  seek to game on WatchEvents:       {}",
        quantiles(waits.iter().map(|w| w.events).collect())
    );
    withdraw(&channels, waiting)
        .await
        .map_err(failed("withdrawing the waiting seeks"))
}
