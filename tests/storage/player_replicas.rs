//! Players across three real `arbiter serve` processes on one PostgreSQL
//! database: acceptances of one challenge racing on different replicas,
//! an acceptance racing its cancel or decline on another replica, and
//! seekers spread over the replicas, each paired exactly once. These tests
//! need a PostgreSQL server (see `common::database`); without one they say
//! so and pass, except under `CI=true`.

use crate::{common, replicas::up};

use std::{collections::HashMap, time::Duration};

use arbiter::api::proto::{self as pb, players_client::PlayersClient};
use common::{
    bearing,
    binary::{Binary, Serve},
    code_and_reason,
    database::{TestDatabase, postgres_or_skip},
};
use tonic::{Code, Status, transport::Channel};

/// Long enough for any pairing here.
const WITHIN: Duration = Duration::from_secs(20);

/// Three replicas on `db` pairing every 100 ms, and a Players client of
/// each.
async fn three_replicas(db: &TestDatabase) -> ([Binary; 3], Vec<PlayersClient<Channel>>) {
    let mut replicas = Vec::new();
    for _ in 0..3 {
        replicas.push(
            up(Serve::on_url(db.url()).args([
                "--create-rate=0",
                "--pairing-interval=100ms",
                "--max-challenges-per-player=100",
            ]))
            .await,
        );
    }
    let mut clients = Vec::new();
    for replica in &replicas {
        clients.push(PlayersClient::new(replica.channel().await));
    }
    let replicas: [Binary; 3] = replicas.try_into().ok().expect("three");
    (replicas, clients)
}

fn chess_challenge(destination: &str) -> pb::CreateChallengeRequest {
    pb::CreateChallengeRequest {
        destination_id: destination.into(),
        variant: pb::Variant::Chess as i32,
        time_control: Some(blitz()),
        color: pb::ChallengeColor::White as i32,
        ..Default::default()
    }
}

fn blitz() -> pb::TimeControl {
    pb::TimeControl {
        initial_ms: 180_000,
        increment_ms: 2_000,
        ..Default::default()
    }
}

async fn challenge(
    players: &mut PlayersClient<Channel>,
    token: &str,
    request: pb::CreateChallengeRequest,
) -> pb::Challenge {
    players
        .create_challenge(bearing(request, token))
        .await
        .expect("challenged")
        .into_inner()
        .challenge
        .expect("a challenge")
}

async fn accept(
    mut players: PlayersClient<Channel>,
    token: String,
    id: String,
) -> Result<String, Status> {
    let accepted = players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest {
                challenge_id: id,
                ..Default::default()
            },
            &token,
        ))
        .await?;
    Ok(accepted.into_inner().game.expect("the game").id)
}

/// How many games player `id` plays or played, read on `db` itself.
async fn games_of(db: &TestDatabase, id: &str) -> i64 {
    let pool = db.pool().await;
    let count = sqlx::query_scalar(
        "SELECT count(*) FROM games WHERE white_player = $1 OR black_player = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    pool.close().await;
    count
}

fn assert_answered(status: &Status, context: &str) {
    assert_eq!(
        code_and_reason(status),
        (Code::FailedPrecondition, "CHALLENGE_ANSWERED".into()),
        "{context}"
    );
}

/// Six players take one open challenge at once, two on each replica, five
/// times over: one acceptance wins each time, and one game is made.
#[tokio::test]
async fn an_open_challenge_taken_on_three_replicas_at_once_starts_one_game() {
    let test = "an_open_challenge_taken_on_three_replicas_at_once_starts_one_game";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let (_replicas, mut clients) = three_replicas(&db).await;
    let names = ["host", "p1", "p2", "p3", "p4", "p5", "p6"];
    let tokens = common::create_players(&mut clients[0], names).await;
    for round in 0..5 {
        let made = challenge(&mut clients[round % 3], &tokens[0], chess_challenge("")).await;
        let races: Vec<_> = tokens[1..]
            .iter()
            .enumerate()
            .map(|(n, token)| {
                let on = clients[n % 3].clone();
                tokio::spawn(accept(on, token.clone(), made.id.clone()))
            })
            .collect();
        let mut won = 0;
        for race in races {
            match race.await.unwrap() {
                Ok(_) => won += 1,
                Err(status) => assert_answered(&status, &format!("round {round}")),
            }
        }
        assert_eq!(won, 1, "round {round}: one acceptance wins");
        assert_eq!(
            games_of(&db, "host").await,
            i64::try_from(round).unwrap() + 1
        );
    }
}

/// A challenge accepted on one replica while its maker cancels it (or its
/// player declines it) on another: one of the two wins, and a game exists
/// exactly when the acceptance did.
#[tokio::test]
async fn an_acceptance_racing_a_cancel_or_decline_on_another_replica_settles_one_way() {
    let test = "an_acceptance_racing_a_cancel_or_decline_on_another_replica_settles_one_way";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let (_replicas, mut clients) = three_replicas(&db).await;
    let [host, guest] = common::create_players(&mut clients[0], ["host", "guest"]).await;
    let mut accepted = 0;
    for round in 0..15 {
        let made = challenge(&mut clients[round % 3], &host, chess_challenge("guest")).await;
        let accepting = tokio::spawn(accept(
            clients[(round + 1) % 3].clone(),
            guest.clone(),
            made.id.clone(),
        ));
        let mut across = clients[(round + 2) % 3].clone();
        let withdrawn =
            common::withdraw_challenge(&mut across, &made.id, [&host, &guest], round).await;
        let acceptance = accepting.await.unwrap();
        common::assert_one_won(&acceptance, &withdrawn, round);
        accepted += i64::from(acceptance.is_ok());
    }
    assert_eq!(games_of(&db, "host").await, accepted);
}

/// Eighteen seekers of one game, six on each replica, seeking at once: each
/// is paired exactly once, nine games in all, each seeker told on their
/// seek's stream whichever replica paired them.
#[tokio::test]
async fn seekers_spread_over_three_replicas_are_each_paired_once() {
    let test = "seekers_spread_over_three_replicas_are_each_paired_once";
    let Some(db) = postgres_or_skip(test).await else {
        return;
    };
    let (_replicas, mut clients) = three_replicas(&db).await;
    let names: Vec<String> = (0..18).map(|n| format!("seeker{n}")).collect();
    let mut tokens = Vec::new();
    for name in &names {
        tokens.push(common::create_player(&mut clients[0], name).await.1);
    }
    let seeks: Vec<_> = tokens
        .iter()
        .enumerate()
        .map(|(n, token)| {
            let mut on = clients[n % 3].clone();
            let request = bearing(
                pb::SeekRequest {
                    variant: pb::Variant::Chess as i32,
                    time_control: Some(blitz()),
                    ..Default::default()
                },
                token,
            );
            tokio::spawn(async move {
                let mut stream = on.seek(request).await.expect("seeking").into_inner();
                loop {
                    let next = tokio::time::timeout(WITHIN, stream.message())
                        .await
                        .expect("paired in time")
                        .expect("no error")
                        .expect("a message");
                    if let Some(game) = next.game {
                        return game.id;
                    }
                }
            })
        })
        .collect();
    let mut games: HashMap<String, Vec<&str>> = HashMap::new();
    for (name, seek) in names.iter().zip(seeks) {
        games.entry(seek.await.unwrap()).or_default().push(name);
    }
    assert_eq!(games.len(), 9, "eighteen seekers, nine games: {games:?}");
    assert!(games.values().all(|seated| seated.len() == 2), "{games:?}");
    for name in &names {
        assert_eq!(games_of(&db, name).await, 1, "{name} plays one game");
    }
}
