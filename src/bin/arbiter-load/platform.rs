//! `--platform`: what a game platform sends, at human pace. `--games` games
//! are in play at once between simulated players, each move made after a
//! think time drawn around `--think-ms` (exponentially, as people pause);
//! both players follow their game on a WatchGame stream with their seat
//! token, `--spectators` more streams watch the games (spread over them)
//! and `--broadcast` watch the first one; every stream drops and resumes
//! from its last version at `--reconnects-per-minute`; a game that reaches
//! `--plies` is resigned and a new one takes its place, so creation,
//! endings and the live-game cache's churn are in the mix. The simulated
//! users connect from `--addresses` loopback source addresses (127.0.0.2
//! on), so the server's per-address limits apply as they would in
//! production.
//!
//! It reports moves/s, MakeMove latency, the time from a move sent to its
//! event on the opponent's stream, on spectators' streams and on the
//! broadcast's (p50/p99/p99.9), errors by reason, reconnects, and with
//! `--server-pid` the server's RSS and CPU per move, beside its own CPU.
//! Any error fails the run.

use std::{
    collections::BTreeMap,
    net::{Ipv4Addr, SocketAddr},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::api::proto::{self as pb, games_client::GamesClient};
use http::Uri;
use tokio::{net::TcpSocket, task::JoinSet};
use tonic::{Code, Status, transport::Channel};
use tonic_types::StatusExt;

use crate::{Fatal, args::GameVariant, describe, long_game};

/// Streams an HTTP/2 connection of the load carries at most (the server's
/// default `--max-watchers-per-connection` is 100).
const STREAMS_PER_CONNECTION: usize = 90;
/// How long the streams have, after the window, to tell the last moves.
const GRACE: Duration = Duration::from_secs(5);
/// Linux's `/proc` clock ticks a second (USER_HZ).
const TICKS_PER_SECOND: f64 = 100.0;

/// What `--platform` runs.
pub(crate) struct Plan {
    pub(crate) games: usize,
    pub(crate) think: Duration,
    pub(crate) plies: u32,
    pub(crate) spectators: usize,
    pub(crate) broadcast: usize,
    pub(crate) reconnects_per_minute: f64,
    pub(crate) addresses: usize,
    pub(crate) variant: GameVariant,
    pub(crate) warmup: Duration,
    pub(crate) duration: Duration,
    pub(crate) server_pid: Option<u32>,
}

/// Who a stream is: what its latencies measure.
#[derive(Clone, Copy)]
enum Watcher {
    /// A player (White: 0, Black: 1): the opponent's moves only.
    Player(u32),
    Spectator,
    Broadcast,
}

/// When each ply of a game was sent, in nanoseconds since the run began
/// (0: not sent).
struct Sent(Vec<AtomicU64>);

/// What the run measured, shared by its tasks.
struct Measured {
    began: Instant,
    window: (Instant, Instant),
    moves: AtomicU64,
    make_move: Mutex<Vec<u32>>,
    to_opponent: Mutex<Vec<u32>>,
    to_spectator: Mutex<Vec<u32>>,
    to_broadcast: Mutex<Vec<u32>>,
    reconnects: AtomicU64,
    errors: Mutex<BTreeMap<String, u64>>,
}

impl Measured {
    fn in_window(&self, at: Instant) -> bool {
        at >= self.window.0 && at <= self.window.1
    }

    fn error(&self, status: &Status) {
        let reason = status.get_error_details().error_info().map_or_else(
            || format!("{:?}", status.code()),
            |info| info.reason.clone(),
        );
        *self.errors.lock().unwrap().entry(reason).or_default() += 1;
    }

    /// A move event seen by `watcher` at `at`: ply `ply` of the game sent
    /// as `sent` says.
    fn seen(&self, watcher: Watcher, sent: &Sent, ply: u32, at: Instant) {
        let Some(nanos) = sent.0.get(ply as usize).map(|n| n.load(Ordering::Relaxed)) else {
            return;
        };
        let sent_at = self.began + Duration::from_nanos(nanos);
        if nanos == 0 || !self.in_window(sent_at) {
            return;
        }
        let micros = crate::workers::micros(at.saturating_duration_since(sent_at));
        let into = match watcher {
            // Ply 1 is White's move: White's stream waits for even plies.
            Watcher::Player(side) if ply % 2 != side => &self.to_opponent,
            Watcher::Player(_) => return,
            Watcher::Spectator => &self.to_spectator,
            Watcher::Broadcast => &self.to_broadcast,
        };
        into.lock().unwrap().push(micros);
    }
}

/// Connections of each source address, and how many were handed out.
struct Addresses(Vec<(Vec<Channel>, AtomicU64)>);

impl Addresses {
    /// The next connection of address `address` for a stream, in turn, so
    /// that its streams spread evenly over its connections.
    fn for_stream(&self, address: usize) -> Channel {
        let (of, handed) = &self.0[address % self.0.len()];
        let n = handed.fetch_add(1, Ordering::Relaxed) as usize;
        of[n % of.len()].clone()
    }

    /// A connection of address `address` for game `slot`'s calls.
    fn for_calls(&self, address: usize, slot: usize) -> Channel {
        let (of, _) = &self.0[address % self.0.len()];
        of[slot % of.len()].clone()
    }
}

/// A connection to `endpoint` from the loopback address `local`.
async fn connect_from(
    endpoint: &tonic::transport::Endpoint,
    local: Ipv4Addr,
) -> Result<Channel, Fatal> {
    let connector = tower::service_fn(move |uri: Uri| async move {
        let host = uri.host().unwrap_or("127.0.0.1").trim_matches(['[', ']']);
        let port = uri.port_u16().unwrap_or(80);
        let server = tokio::net::lookup_host((host, port))
            .await?
            .find(SocketAddr::is_ipv4)
            .ok_or_else(|| std::io::Error::other("--platform needs an IPv4 --addr"))?;
        let socket = TcpSocket::new_v4()?;
        socket.bind(SocketAddr::new(local.into(), 0))?;
        let stream = socket.connect(server).await?;
        stream.set_nodelay(true)?;
        Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(stream))
    });
    endpoint
        .connect_with_connector(connector)
        .await
        .map_err(|err| Fatal(format!("cannot connect from {local}: {}", describe(&err))))
}

/// A think time around `mean`, exponentially distributed.
fn think(mean: Duration) -> Duration {
    let u: f64 = rand::random();
    mean.mul_f64(-(1.0 - u).ln()).min(mean * 10)
}

/// CPU ticks (user and system) and resident KiB of process `pid` ("self"
/// for this one).
fn process_usage(pid: &str) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    Some((ticks, rss))
}

/// Follows game `id` as `watcher` until it ends (or the run is over),
/// dropping and resuming the stream now and then.
async fn follow(
    measured: Arc<Measured>,
    channel: Channel,
    (id, seat_token): (String, String),
    watcher: Watcher,
    sent: Arc<Sent>,
    reconnect_every: Option<Duration>,
) {
    let mut client = GamesClient::new(channel);
    let mut from_version = None;
    loop {
        let request = pb::WatchGameRequest {
            game_id: id.clone(),
            from_version,
            seat_token: seat_token.clone(),
            ..Default::default()
        };
        let mut stream = match client.watch_game(request).await {
            Ok(answer) => answer.into_inner(),
            Err(status) => return measured.error(&status),
        };
        let resume_at = reconnect_every.map(|mean| tokio::time::Instant::now() + think(mean));
        loop {
            let next = match resume_at {
                Some(at) => tokio::select! {
                    next = stream.message() => next,
                    () = tokio::time::sleep_until(at) => break,
                },
                None => stream.message().await,
            };
            match next {
                Ok(Some(event)) => {
                    let Some(game) = &event.game else { continue };
                    from_version = Some(game.version);
                    let kind = event.kind();
                    if kind == pb::GameEventKind::Move {
                        measured.seen(watcher, &sent, game.ply, Instant::now());
                    }
                    if kind == pb::GameEventKind::GameEnded {
                        return;
                    }
                }
                Ok(None) => return,
                Err(status) if status.code() == Code::Cancelled => return,
                Err(status) => return measured.error(&status),
            }
        }
        measured.reconnects.fetch_add(1, Ordering::Relaxed);
    }
}

/// The games of slot `slot`, one after another, until the window ends;
/// the slots' first games start spread over the warm-up, as a platform's
/// players come and go rather than all at once.
async fn play(slot: usize, plan: Arc<Plan>, run: Arc<Run>) {
    tokio::time::sleep(plan.warmup.mul_f64(slot as f64 / plan.games as f64)).await;
    while Instant::now() < run.measured.window.1 {
        if let Err(status) = play_one(slot, &plan, &run).await {
            run.measured.error(&status);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// What every game task shares.
struct Run {
    measured: Arc<Measured>,
    addresses: Addresses,
    moves: Vec<String>,
}

async fn play_one(slot: usize, plan: &Plan, run: &Run) -> Result<(), Status> {
    let measured = &run.measured;
    // White and Black from addresses of their own; spectators after them.
    let seats = [2 * slot, 2 * slot + 1];
    let mut clients = seats.map(|address| GamesClient::new(run.addresses.for_calls(address, slot)));
    let seat = |name: &str| {
        Some(pb::SeatRequest {
            display_name: name.into(),
            ..Default::default()
        })
    };
    let created = clients[0]
        .create_game(pb::CreateGameRequest {
            variant: plan.variant.proto() as i32,
            white: seat("white"),
            black: seat("black"),
            ..Default::default()
        })
        .await?
        .into_inner();
    let id = created.game.map(|game| game.id).unwrap_or_default();
    let tokens = [created.white_token, created.black_token];
    let sent = Arc::new(Sent((0..=plan.plies).map(|_| AtomicU64::new(0)).collect()));
    let reconnect_every = (plan.reconnects_per_minute > 0.0)
        .then(|| Duration::from_secs_f64(60.0 / plan.reconnects_per_minute));
    let mut streams = JoinSet::new();
    let mut watch = |address: usize, token: &str, watcher: Watcher| {
        let follow = follow(
            measured.clone(),
            run.addresses.for_stream(address),
            (id.clone(), token.to_owned()),
            watcher,
            sent.clone(),
            reconnect_every,
        );
        streams.spawn(tokio::time::timeout_at(
            (measured.window.1 + GRACE).into(),
            follow,
        ));
    };
    for (side, token) in tokens.iter().enumerate() {
        watch(seats[side], token, Watcher::Player(side as u32));
    }
    let (per_game, rest) = (plan.spectators / plan.games, plan.spectators % plan.games);
    let spectators = per_game + usize::from(slot < rest);
    for n in 0..spectators {
        watch(
            2 * plan.games + slot * (per_game + 1) + n,
            "",
            Watcher::Spectator,
        );
    }
    if slot == 0 {
        for n in 0..plan.broadcast {
            watch(2 * plan.games + plan.spectators + n, "", Watcher::Broadcast);
        }
    }
    let mut ply = 0;
    while ply < plan.plies {
        tokio::time::sleep(think(plan.think)).await;
        if Instant::now() >= measured.window.1 {
            break;
        }
        let side = (ply % 2) as usize;
        let sent_at = Instant::now();
        let nanos = u64::try_from((sent_at - measured.began).as_nanos()).unwrap_or(u64::MAX);
        sent.0[ply as usize + 1].store(nanos.max(1), Ordering::Relaxed);
        let request = pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: tokens[side].clone(),
            r#move: run.moves[ply as usize].clone(),
            ..Default::default()
        };
        clients[side].make_move(request).await?;
        let done = Instant::now();
        if measured.in_window(sent_at) && done <= measured.window.1 {
            measured.moves.fetch_add(1, Ordering::Relaxed);
            let micros = crate::workers::micros(done - sent_at);
            measured.make_move.lock().unwrap().push(micros);
        }
        ply += 1;
    }
    let side = (ply % 2) as usize;
    let resign = pb::ResignRequest {
        game_id: id,
        seat_token: tokens[side].clone(),
        ..Default::default()
    };
    clients[side].resign(resign).await?;
    while streams.join_next().await.is_some() {}
    Ok(())
}

/// p50, p99, p99.9 and max of `micros`, in milliseconds.
fn quantiles(mut micros: Vec<u32>) -> String {
    if micros.is_empty() {
        return "none".into();
    }
    micros.sort_unstable();
    let at = |q: f64| {
        let rank = ((q * micros.len() as f64).ceil() as usize).clamp(1, micros.len());
        f64::from(micros[rank - 1]) / 1000.0
    };
    format!(
        "n={} p50={:.1}ms p99={:.1}ms p99.9={:.1}ms max={:.1}ms",
        micros.len(),
        at(0.5),
        at(0.99),
        at(0.999),
        at(1.0)
    )
}

/// Runs the scenario against `endpoint`.
pub(crate) async fn measure(
    endpoint: &tonic::transport::Endpoint,
    plan: Plan,
) -> Result<(), Fatal> {
    let streams = 2 * plan.games + plan.spectators + plan.broadcast;
    let addresses = plan.addresses.clamp(1, 65_000);
    let per_address = (streams.div_ceil(addresses))
        .div_ceil(STREAMS_PER_CONNECTION)
        .max(1);
    let mut channels = Vec::with_capacity(addresses);
    for n in 0..addresses {
        let local = Ipv4Addr::from(u32::from(Ipv4Addr::new(127, 0, 0, 2)) + n as u32);
        let mut of = Vec::with_capacity(per_address);
        for _ in 0..per_address {
            of.push(connect_from(endpoint, local).await?);
        }
        channels.push((of, AtomicU64::new(0)));
    }
    let moves = long_game::moves(plan.variant, plan.plies as usize)
        .map_err(|err| Fatal(format!("--plies {}: {err}", plan.plies)))?;
    let began = Instant::now();
    let window = (began + plan.warmup, began + plan.warmup + plan.duration);
    let measured = Arc::new(Measured {
        began,
        window,
        moves: AtomicU64::new(0),
        make_move: Mutex::default(),
        to_opponent: Mutex::default(),
        to_spectator: Mutex::default(),
        to_broadcast: Mutex::default(),
        reconnects: AtomicU64::new(0),
        errors: Mutex::default(),
    });
    let run = Arc::new(Run {
        measured: measured.clone(),
        addresses: Addresses(channels),
        moves,
    });
    let plan = Arc::new(plan);
    let server = plan.server_pid.map(|pid| pid.to_string());
    let usage = || {
        let server = server.as_deref().and_then(process_usage);
        (server, process_usage("self"))
    };
    let mut games = JoinSet::new();
    for slot in 0..plan.games {
        games.spawn(play(slot, plan.clone(), run.clone()));
    }
    tokio::time::sleep_until(window.0.into()).await;
    let before = usage();
    tokio::time::sleep_until(window.1.into()).await;
    let after = usage();
    let ended = tokio::time::timeout(GRACE * 2, async {
        while games.join_next().await.is_some() {}
    });
    if ended.await.is_err() {
        games.abort_all();
    }
    report(&plan, &measured, before, after)
}

type Usage = (Option<(u64, u64)>, Option<(u64, u64)>);

fn report(plan: &Plan, measured: &Measured, before: Usage, after: Usage) -> Result<(), Fatal> {
    let moves = measured.moves.load(Ordering::Relaxed);
    let seconds = plan.duration.as_secs_f64();
    let take = |metric: &Mutex<Vec<u32>>| std::mem::take(&mut *metric.lock().unwrap());
    println!(
        "platform {} games={} think={}ms plies={} spectators={} broadcast={} addresses={} \
         reconnects/min={}",
        plan.variant,
        plan.games,
        plan.think.as_millis(),
        plan.plies,
        plan.spectators,
        plan.broadcast,
        plan.addresses,
        plan.reconnects_per_minute,
    );
    println!(
        "  moves: {moves} in {seconds:.1}s = {:.0}/s",
        moves as f64 / seconds
    );
    println!(
        "  MakeMove:               {}",
        quantiles(take(&measured.make_move))
    );
    println!(
        "  move to the opponent:   {}",
        quantiles(take(&measured.to_opponent))
    );
    println!(
        "  move to spectators:     {}",
        quantiles(take(&measured.to_spectator))
    );
    println!(
        "  move to the broadcast:  {}",
        quantiles(take(&measured.to_broadcast))
    );
    println!(
        "  reconnects: {}",
        measured.reconnects.load(Ordering::Relaxed)
    );
    let per_move = |ticks: u64| ticks as f64 / TICKS_PER_SECOND / moves.max(1) as f64 * 1e6;
    if let (Some((ticks0, _)), Some((ticks1, rss))) = (before.0, after.0) {
        println!(
            "  server: RSS {:.0} MiB, CPU {:.0} µs a move",
            rss as f64 / 1024.0,
            per_move(ticks1 - ticks0)
        );
    }
    if let (Some((ticks0, _)), Some((ticks1, _))) = (before.1, after.1) {
        println!(
            "  load tool: CPU {:.0} µs a move",
            per_move(ticks1 - ticks0)
        );
    }
    let errors = measured.errors.lock().unwrap();
    let total: u64 = errors.values().sum();
    println!("  errors: {total} {:?}", &*errors);
    if total > 0 {
        return Err(Fatal(format!("{total} errors: {errors:?}")));
    }
    if moves == 0 {
        return Err(Fatal("no move was made in the window".into()));
    }
    Ok(())
}
