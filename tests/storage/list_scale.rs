//! ListGames at scale: 200,000 games written straight into a scratch
//! database, then each filter timed through the store (median of 15 runs).
//! Slow to set up, so not part of the normal run:
//! `cargo test --test storage list_scale:: -- --ignored --nocapture`.

use std::time::{Duration, Instant};

use arbiter::{
    rules::Variant,
    store::{GameFilter, Store},
};

const GAMES: i64 = 200_000;

async fn fill(url: &str) {
    let store = Store::connect(url).await.unwrap();
    store.close().await;
    let mut conn = <sqlx::SqliteConnection as sqlx::Connection>::connect(url)
        .await
        .unwrap();
    // Names from 5,000 players per seat; the newest tenth ongoing (finished
    // games are older), one game in a hundred xiangqi, one finished game in
    // fifty ended by checkmate.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1) \
         INSERT INTO games (id, variant, start_fen, white_name, black_name, white_token_hash, \
         black_token_hash, status, winner, termination, created_at, updated_at) \
         SELECT printf('g%015d', i), CASE WHEN i % 100 = 0 THEN 'xiangqi' ELSE 'chess' END, \
         'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', \
         'Player ' || (i % 5000), 'Joueur ' || ((i * 7) % 5000), 'w' || i, 'b' || i, \
         CASE WHEN i > ?1 * 9 / 10 THEN 'ongoing' WHEN i % 4 = 0 THEN 'drawn' ELSE 'decisive' END, \
         CASE WHEN i > ?1 * 9 / 10 OR i % 4 = 0 THEN NULL ELSE 'white' END, \
         CASE WHEN i > ?1 * 9 / 10 THEN NULL WHEN i % 4 = 0 THEN 'agreement' \
              WHEN i % 50 = 1 THEN 'checkmate' ELSE 'resignation' END, \
         1700000000000 + i * 60000, 1700000000000 + i * 60000 FROM n",
    )
    .bind(GAMES)
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::Connection::close(conn).await.unwrap();
}

async fn median(store: &Store, filter: &GameFilter) -> (Duration, usize) {
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..15 {
        let started = Instant::now();
        found = store.games(filter.clone()).await.unwrap().items.len();
        times.push(started.elapsed());
    }
    times.sort();
    (times[times.len() / 2], found)
}

#[tokio::test]
#[ignore = "builds 200,000 games: run by hand"]
async fn every_filter_at_200k_games() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("scale.db").display());
    fill(&url).await;
    let started = Instant::now();
    let store = Store::connect(&url).await.unwrap();
    println!("open (and index what needs it): {:?}", started.elapsed());
    let page = GameFilter {
        limit: 50,
        ..GameFilter::default()
    };
    let day = 1_700_000_000_000 + 50_000 * 60_000;
    let cases = [
        ("plain page", page.clone()),
        (
            "status=FINISHED",
            GameFilter {
                finished: Some(true),
                ..page.clone()
            },
        ),
        (
            "status=ONGOING",
            GameFilter {
                finished: Some(false),
                ..page.clone()
            },
        ),
        (
            "variant=xiangqi",
            GameFilter {
                variant: Some(Variant::Xiangqi),
                ..page.clone()
            },
        ),
        (
            "termination=checkmate",
            GameFilter {
                termination: Some("checkmate".into()),
                ..page.clone()
            },
        ),
        (
            "player, no match",
            GameFilter {
                player: Some("nobody".into()),
                ..page.clone()
            },
        ),
        (
            "player, 40 games",
            GameFilter {
                player: Some("player 4242".into()),
                ..page.clone()
            },
        ),
        (
            "player, 2 characters, no match",
            GameFilter {
                player: Some("zq".into()),
                ..page.clone()
            },
        ),
        (
            "created in one old day",
            GameFilter {
                created_from: Some(day),
                created_until: Some(day + 86_400_000),
                ..page.clone()
            },
        ),
        (
            "created after an old day",
            GameFilter {
                created_from: Some(day),
                ..page.clone()
            },
        ),
        (
            "created before an old day",
            GameFilter {
                created_until: Some(day),
                ..page.clone()
            },
        ),
        (
            "a late page (before seq 1000)",
            GameFilter {
                cursor: Some(1_000),
                ..page.clone()
            },
        ),
    ];
    println!("| filter | games found | median |\n|---|---|---|");
    for (name, filter) in cases {
        let (time, found) = median(&store, &filter).await;
        println!("| {name} | {found} | {:.2} ms |", time.as_secs_f64() * 1e3);
    }
    store.close().await;
}
