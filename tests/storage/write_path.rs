//! The write path: game changes committed together (group commit), and
//! live games kept in memory that are never trusted over the store.

use crate::common;

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use arbiter::{
    api::proto::{self as pb, games_client::GamesClient},
    games::{GameId, Games, ManualTime, SeatSpec, Start, SystemTime},
    rules::{Side, Status, Variant},
    store::{Base, GameFilter, GameWrite, OpenSeat, Store, StoredGame, Written},
};
use common::{TestDatabase, TestServer, binary::Serve, long_game::long_game};
use sqlx::Row;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// Games played at once in the batched tests.
const GAMES: usize = 24;

async fn human_game(games: &Games) -> (GameId, [String; 2]) {
    let human = SeatSpec::default;
    let created = games
        .create(
            Variant::Chess,
            Start::Standard,
            human(),
            human(),
            true,
            None,
        )
        .await
        .unwrap();
    (created.game.id, [created.white_token, created.black_token])
}

/// Many games moved at once commit in shared transactions, and each caller
/// gets its own game's answer; a refused move among them (illegal, or out
/// of turn) is refused alone and the others commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_games_commit_together_and_a_refused_move_leaves_the_others() {
    let db = TestDatabase::fresh().await;
    let store = Store::connect(&db.url()).await.unwrap();
    let games = common::games_service(store.clone(), Arc::new(SystemTime));
    let mut seated = Vec::new();
    for _ in 0..GAMES {
        seated.push(human_game(&games).await);
    }
    let line = long_game(40);
    let mut grouped = false;
    for (ply, text) in line.iter().enumerate() {
        let before = store.write_transactions();
        let mut moves = tokio::task::JoinSet::new();
        for (n, (id, tokens)) in seated.iter().enumerate() {
            let (games, id, tokens, text) =
                (games.clone(), id.clone(), tokens.clone(), text.clone());
            moves.spawn(async move {
                // Every third game also gets a move it must refuse.
                let refused = if n % 3 == 0 {
                    Some(games.make_move(&id, &tokens[ply % 2], "Ke8", None).await)
                } else {
                    None
                };
                let played = games.make_move(&id, &tokens[ply % 2], &text, None).await;
                (id, refused, played)
            });
        }
        while let Some(answer) = moves.join_next().await {
            let (id, refused, played) = answer.unwrap();
            if let Some(refused) = refused {
                assert!(refused.is_err(), "Ke8 is never legal here");
            }
            let (view, played) = played.unwrap_or_else(|e| panic!("{text} in {id}: {e}"));
            assert_eq!(view.id, id, "each caller gets its own game");
            assert_eq!(view.ply as usize, ply + 1);
            assert_eq!(played.description.san.as_str(), text.as_str());
        }
        // Fewer transactions than moves: some moves shared one.
        grouped |= store.write_transactions() - before < GAMES as u64;
        if grouped && ply >= 3 {
            break;
        }
    }
    assert!(grouped, "moves queued during a commit share the next one");
    for (id, _) in &seated {
        let stored = games.get(id).await.unwrap();
        let expected: Vec<_> = line[..stored.moves.len()].to_vec();
        let sans: Vec<_> = stored
            .moves
            .iter()
            .map(|m| m.description.san.to_string())
            .collect();
        assert_eq!(sans, expected);
        assert!(stored.moves.len() >= 4);
    }
    store.close().await;
}

fn token(created: &pb::CreateGameResponse, ply: usize) -> &str {
    if ply.is_multiple_of(2) {
        &created.white_token
    } else {
        &created.black_token
    }
}

async fn play_at(
    games: &mut GamesClient<Channel>,
    created: &pb::CreateGameResponse,
    ply: usize,
    text: &str,
) -> pb::Game {
    let id = &created.game.as_ref().unwrap().id;
    common::play(games, id, token(created, ply), text).await
}

fn sans(game: &pb::Game) -> Vec<String> {
    game.moves
        .iter()
        .map(|m| m.r#move.as_ref().unwrap().san.clone())
        .collect()
}

/// A write through another server on the same database between two moves
/// is seen: the first server's live game is behind, and its next move is
/// judged on the stored game, whether its entry would refuse the move or
/// accept it at the wrong ply.
#[tokio::test]
async fn a_write_through_another_server_is_seen_by_the_next_move() {
    let first = TestServer::start().await;
    let mut a = first.games().await;
    // Served: the database is migrated before the second server opens it.
    let created = common::new_chess_game(&mut a, None).await;
    let second = TestServer::start_on(&first.db).await;
    let mut b = second.games().await;
    let id = created.game.clone().unwrap().id;
    play_at(&mut a, &created, 0, "e4").await;
    play_at(&mut b, &created, 1, "e5").await;
    // The first server's entry says Black is to move.
    play_at(&mut a, &created, 2, "Nf3").await;
    play_at(&mut b, &created, 3, "Nc6").await;
    play_at(&mut b, &created, 4, "Bc4").await;
    // Its entry (at ply 3) would take this Black move at the wrong ply.
    play_at(&mut a, &created, 5, "Nf6").await;
    // A takeback through the second server, then a move through the first.
    common::propose_takeback(&mut b, &id, &created.black_token)
        .await
        .unwrap();
    common::respond_to_takeback(&mut b, &id, &created.white_token, true)
        .await
        .unwrap();
    let after = play_at(&mut a, &created, 5, "Bc5").await;
    assert_eq!(after.ply, 6);
    for games in [&mut a, &mut b] {
        let game = common::get_game(games, &id).await;
        assert_eq!(sans(&game), ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"]);
        assert_eq!(game.version, after.version);
    }
    second.stop().await;
    first.stop().await;
}

/// What every game action answers is what GetGame then reads, through
/// moves, a draw offer, a takeback and a resignation.
#[tokio::test]
async fn the_live_game_answers_as_the_store_reads() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let created = common::new_chess_game(&mut games, None).await;
    let id = created.game.clone().unwrap().id;
    let line = long_game(12);
    for (ply, text) in line.iter().enumerate() {
        play_at(&mut games, &created, ply, text).await;
    }
    let offered = games
        .offer_draw(pb::OfferDrawRequest {
            game_id: id.clone(),
            seat_token: created.white_token.clone(),
            view: pb::GameView::Full.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(offered, common::get_game(&mut games, &id).await);
    common::propose_takeback(&mut games, &id, &created.white_token)
        .await
        .unwrap();
    let taken = common::respond_to_takeback(&mut games, &id, &created.black_token, true)
        .await
        .unwrap();
    assert_eq!(taken.ply, 10);
    let replayed = play_at(&mut games, &created, 10, &line[10]).await;
    assert_eq!(replayed.ply, 11);
    let stored = common::get_game(&mut games, &id).await;
    assert_eq!(sans(&stored), line[..11].to_vec());
    let resigned = games
        .resign(pb::ResignRequest {
            game_id: id.clone(),
            seat_token: created.white_token.clone(),
            view: pb::GameView::Full.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(resigned, common::get_game(&mut games, &id).await);
    server.stop().await;
}

/// The live game follows the changes a seat's call does not make: an engine
/// seat's move, a flag's fall and an import each leave it as the store
/// reads it, and the next call is judged on that.
#[tokio::test]
async fn engine_moves_flags_and_imports_keep_the_live_game_right() {
    let time = ManualTime::new(1_800_000_000_000);
    let server = TestServer::start_with_time(time.clone()).await;
    let mut games = server.games().await;

    // The engine's reply is played on the live game: the human's next move
    // is judged after it.
    let vs_engine = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("W"),
            black: Some(pb::SeatRequest {
                engine: Some(pb::EnginePlayer {
                    level: 1,
                    movetime_ms: 50,
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = vs_engine.game.clone().unwrap().id;
    common::play(&mut games, &id, &vs_engine.white_token, "e4").await;
    crate::wait_until!(
        Duration::from_secs(10),
        common::get_game(&mut games, &id).await.ply >= 2,
        "the engine did not move"
    );
    let after = common::play(&mut games, &id, &vs_engine.white_token, "d4").await;
    assert_eq!(after.ply, 3);
    let stored = common::get_game(&mut games, &id).await;
    // The engine may have answered d4 already (a low level answers at once).
    if stored.ply == 3 {
        assert_eq!((after.version, &after.fen), (stored.version, &stored.fen));
    } else {
        assert_eq!((stored.ply, stored.version), (4, after.version + 1));
    }

    // A flag that falls ends the live game: the next move is refused.
    let clocked = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("W"),
            black: common::seat("B"),
            time_control: Some(pb::TimeControl {
                initial_ms: 10_000,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let id = clocked.game.clone().unwrap().id;
    play_at(&mut games, &clocked, 0, "e4").await;
    play_at(&mut games, &clocked, 1, "e5").await;
    let mut watch = common::watch(&mut games, &id).await;
    time.advance(Duration::from_secs(11));
    let ended = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(event) = watch.next().await {
            if event.unwrap().kind == pb::GameEventKind::GameEnded as i32 {
                return;
            }
        }
        panic!("the stream ended before the flag fell");
    });
    ended.await.expect("the flag fell");
    let refused = games
        .make_move(pb::MakeMoveRequest {
            game_id: id.clone(),
            seat_token: clocked.white_token.clone(),
            r#move: "Nf3".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        refused.code(),
        tonic::Code::FailedPrecondition,
        "{refused:?}"
    );
    assert_eq!(common::get_game(&mut games, &id).await.ply, 2);

    // An imported game is played on from where the import left it.
    let line = long_game(11);
    let imported = games
        .import_game(pb::ImportGameRequest {
            pgn: common::long_game::pgn(&line, 10),
            variant: pb::Variant::Chess as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let created = pb::CreateGameResponse {
        game: imported.game.clone(),
        white_token: imported.white_token.clone(),
        black_token: imported.black_token.clone(),
        ..Default::default()
    };
    let after = play_at(&mut games, &created, 10, &line[10]).await;
    let stored = common::get_game(&mut games, &after.id).await;
    assert_eq!(sans(&stored), line);
    assert_eq!((after.ply, after.version), (11, stored.version));
    server.stop().await;
}

/// `kill -9` in the middle of batched moves of many games loses no
/// acknowledged move and leaves nothing half-written: every game's row,
/// moves and events agree.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kill_9_during_batched_moves_loses_no_acknowledged_move() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("batched.db");
    let mut server = Serve::on(&db).start().await;
    let channel = server.channel().await;
    let mut games = GamesClient::new(channel.clone());
    let line = Arc::new(long_game(400));
    let mut players = tokio::task::JoinSet::new();
    let mut acknowledged = Vec::new();
    for _ in 0..GAMES {
        let created = common::new_chess_game(&mut games, None).await;
        let done = Arc::new(AtomicUsize::new(0));
        acknowledged.push((created.game.clone().unwrap().id, done.clone()));
        let (mut games, line) = (GamesClient::new(channel.clone()), line.clone());
        players.spawn(async move {
            for (ply, text) in line.iter().enumerate() {
                let id = created.game.as_ref().unwrap().id.clone();
                let request = pb::MakeMoveRequest {
                    game_id: id,
                    seat_token: token(&created, ply).to_owned(),
                    r#move: text.clone(),
                    ..Default::default()
                };
                if games.make_move(request).await.is_err() {
                    return; // the server is gone
                }
                done.store(ply + 1, Ordering::SeqCst);
            }
        });
    }
    // Killed after some moves, or after 30 s whatever the count.
    let started = Instant::now();
    crate::wait_until!(
        Duration::from_secs(31),
        acknowledged
            .iter()
            .map(|(_, d)| d.load(Ordering::SeqCst))
            .sum::<usize>()
            >= 4 * GAMES
            || started.elapsed() >= Duration::from_secs(30),
        "the clock stopped"
    );
    server.kill().await;
    while players.join_next().await.is_some() {}
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", db.display()))
        .await
        .unwrap();
    for (id, done) in &acknowledged {
        let row = sqlx::query(
            "SELECT g.ply, g.version, \
             (SELECT COUNT(*) FROM moves m WHERE m.game_seq = g.seq), \
             (SELECT COUNT(*) FROM game_events e WHERE e.game_seq = g.seq), \
             (SELECT COALESCE(MAX(e.version), 0) FROM game_events e WHERE e.game_seq = g.seq), \
             (SELECT COALESCE(MAX(e.ply), 0) FROM game_events e WHERE e.game_seq = g.seq) \
             FROM games g WHERE g.id = $1",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        let [ply, version, moves, events, last_version, last_ply]: [i64; 6] =
            std::array::from_fn(|i| row.get(i));
        assert!(
            ply as usize >= done.load(Ordering::SeqCst),
            "{id}: an acknowledged move was lost"
        );
        assert_eq!(
            (moves, events, last_version, last_ply),
            (ply, version, version, ply),
            "{id}"
        );
        let stored: Vec<String> = sqlx::query_scalar(
            "SELECT m.uci FROM moves m JOIN games g ON g.seq = m.game_seq \
             WHERE g.id = $1 ORDER BY m.ply",
        )
        .bind(id)
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(stored.len() as i64, ply);
    }
    pool.close().await;
    // The restarted server serves every game on.
    let server = Serve::on(&db).start().await;
    let mut games = GamesClient::new(server.channel().await);
    for (id, done) in &acknowledged {
        let game = common::get_game(&mut games, id).await;
        assert!(game.ply as usize >= done.load(Ordering::SeqCst));
        assert_eq!(sans(&game), line[..game.ply as usize].to_vec());
    }
}

/// A move judged on a game that changed meanwhile in the same process (two
/// moves of one game at once) is judged again: exactly one wins.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_moves_of_one_game_at_once_one_wins() {
    let db = TestDatabase::fresh().await;
    let store = Store::connect(&db.url()).await.unwrap();
    let games = common::games_service(store.clone(), Arc::new(SystemTime));
    for _ in 0..8 {
        let (id, [white, _]) = human_game(&games).await;
        let (g1, g2) = (games.clone(), games.clone());
        let (i1, i2, w1, w2) = (id.clone(), id.clone(), white.clone(), white.clone());
        let (first, second) = tokio::join!(
            tokio::spawn(async move { g1.make_move(&i1, &w1, "e4", None).await }),
            tokio::spawn(async move { g2.make_move(&i2, &w2, "d4", None).await }),
        );
        let answers = [first.unwrap(), second.unwrap()];
        assert_eq!(answers.iter().filter(|a| a.is_ok()).count(), 1);
        let stored = games.get(&id).await.unwrap();
        assert_eq!(stored.ply, 1);
        assert_eq!(stored.version, 1);
    }
    store.close().await;
}

/// A batch longer than the updates one call makes, with stale changes and
/// a change that writes more than its game's row (a name, reindexed for the
/// search) among them: each change is committed or found stale as judged,
/// and the rest of the batch commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_stale_change_in_a_batch_leaves_the_others_committed() {
    const BATCH: usize = 40;
    const STALE: [usize; 2] = [0, 30];
    const RENAMED: usize = 17;
    let db = TestDatabase::fresh().await;
    let store = Store::connect(&db.url()).await.unwrap();
    let games = common::games_service(store.clone(), Arc::new(SystemTime));
    let mut stored = Vec::new();
    for _ in 0..=BATCH {
        let (id, _) = human_game(&games).await;
        stored.push(store.game(&id).await.unwrap().unwrap());
    }
    let offer = |game: &StoredGame, side: &str| {
        let mut offered = game.clone();
        offered.draw_offer = Some(side.parse().unwrap());
        GameWrite {
            game: offered,
            base: Base::of(game),
            event: "draw_offered",
            side: Some(side.parse().unwrap()),
            fence: None,
            creates: None,
            rating: None,
            opening: None,
            positions: Vec::new(),
        }
    };
    let pool = db.pool().await;
    // These games change after their changes were judged.
    for n in STALE {
        sqlx::query("UPDATE games SET version = version + 1 WHERE seq = $1")
            .bind(stored[n].seq)
            .execute(&pool)
            .await
            .unwrap();
    }
    // The writer waits for another connection's lock while the batch
    // queues: the last game's change is committed alone, the rest together.
    let lock = WriteLock::take(&db).await;
    let before = store.write_transactions();
    let first = tokio::spawn({
        let (store, write) = (store.clone(), offer(&stored[BATCH], "white"));
        async move { store.write_game(write).await }
    });
    // The first write reaches the lock before the batch queues.
    common::let_pass(Duration::from_millis(200)).await;
    let mut writes: Vec<GameWrite> = stored[..BATCH].iter().map(|g| offer(g, "white")).collect();
    writes[RENAMED].game.white_name = "Renamed".to_owned();
    writes.push(offer(&stored[1], "black"));
    let batch: Vec<_> = writes
        .into_iter()
        .map(|write| {
            let store = store.clone();
            tokio::spawn(async move { store.write_game(write).await })
        })
        .collect();
    // The writes queue behind the lock.
    common::let_pass(Duration::from_millis(300)).await;
    let most = lock.release().await;
    assert!(matches!(
        first.await.unwrap().unwrap(),
        Written::Committed { .. }
    ));
    let mut committed = Vec::new();
    for answer in batch {
        committed.push(match answer.await.unwrap().unwrap() {
            Written::Committed { game, .. } => Some(game.draw_offer.unwrap().name().to_owned()),
            Written::Stale(_) => None,
        });
    }
    let transactions = store.write_transactions() - before;
    assert!(transactions <= most, "{transactions} transactions");
    let second_game = [&committed[1], &committed[BATCH]];
    assert_eq!(second_game.iter().filter(|c| c.is_some()).count(), 1);
    for (n, game) in stored.iter().enumerate() {
        let row = sqlx::query(
            "SELECT version, draw_offer, white_name, \
             (SELECT count(*) FROM game_events WHERE game_seq = $1 AND kind = 'draw_offered') \
             FROM games WHERE seq = $1",
        )
        .bind(game.seq)
        .fetch_one(&pool)
        .await
        .unwrap();
        let (version, offer, white, events): (i64, Option<String>, String, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        assert_eq!(version, 1, "game {n}");
        let expected = match n {
            n if STALE.contains(&n) => None,
            1 => second_game.iter().find_map(|c| c.as_ref()).cloned(),
            _ => Some("white".to_owned()),
        };
        if n < BATCH && n != 1 {
            assert_eq!(committed[n], expected, "game {n}'s answer");
        }
        assert_eq!(offer, expected, "game {n}");
        assert_eq!(events, i64::from(expected.is_some()), "game {n}");
        assert_eq!(white == "Renamed", n == RENAMED, "game {n}");
    }
    let found = store
        .games(GameFilter {
            player: Some("renamed".to_owned()),
            limit: 10,
            ..Default::default()
        })
        .await
        .unwrap();
    let found: Vec<i64> = found.items.iter().map(|game| game.seq).collect();
    assert_eq!(found, [stored[RENAMED].seq], "the new name is searched");
    store.close().await;
}

/// Another connection's hold on the games table, while a batch queues
/// behind it.
struct WriteLock {
    holder: sqlx::AnyConnection,
    /// The most write transactions the writes queued meanwhile may take:
    /// the one that took its first change before the lock was released and
    /// the batch's. On PostgreSQL the games fall in four queues, each of
    /// which may take its first change alone, and the store's idle probe
    /// may write.
    most: u64,
}

impl WriteLock {
    async fn take(db: &TestDatabase) -> WriteLock {
        let holder = common::hold_write_lock(db).await;
        let most = if db.is_postgres() { 10 } else { 2 };
        WriteLock { holder, most }
    }

    /// Releases the lock; the most write transactions (see [`WriteLock`]).
    async fn release(mut self) -> u64 {
        sqlx::raw_sql("COMMIT")
            .execute(&mut self.holder)
            .await
            .unwrap();
        self.most
    }
}

/// A game to create directly in the store, open for a joiner with `code`.
fn new_game(id: &str, code: &str) -> StoredGame {
    StoredGame {
        id: id.to_owned(),
        variant: Variant::Chess,
        start_fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_owned(),
        white_name: "White".to_owned(),
        black_name: "Black".to_owned(),
        white_token_hash: String::new(),
        black_token_hash: String::new(),
        white_engine: None,
        black_engine: None,
        moves: Vec::new(),
        status: Status::Ongoing,
        winner: None,
        termination: None,
        engine_grants_takebacks: true,
        clock: None,
        engine_due_at: None,
        xiangqi_rules: None,
        open: Some(OpenSeat {
            side: Side::Black,
            join_code: code.to_owned(),
            until: i64::MAX,
        }),
        rematch_of: None,
        ..Default::default()
    }
}

/// Games created while the writer is busy are created in the next batch
/// (on SQLite; on PostgreSQL each in a transaction of its own), beside the
/// changes queued with them; a game whose join code another game has
/// already is refused alone, and the rest of its batch commits.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn games_created_at_once_commit_together_and_a_taken_code_is_refused_alone() {
    const CREATED: usize = 12;
    let db = TestDatabase::fresh().await;
    let store = Store::connect(&db.url()).await.unwrap();
    let games = common::games_service(store.clone(), Arc::new(SystemTime));
    let (moved, tokens) = human_game(&games).await;
    let taken = store
        .insert_game(new_game("game-with-code", "CODE0000"))
        .await
        .unwrap();
    let lock = WriteLock::take(&db).await;
    let before = store.write_transactions();
    let created: Vec<_> = (0..=CREATED)
        .map(|n| {
            // The last one's code is taken.
            let code = if n == CREATED { 0 } else { n + 1 };
            let new = new_game(&format!("created-{n}"), &format!("CODE{code:04}"));
            let store = store.clone();
            tokio::spawn(async move { store.insert_game(new).await })
        })
        .collect();
    let played = tokio::spawn({
        let games = games.clone();
        async move { games.make_move(&moved, &tokens[0], "e4", None).await }
    });
    // The writes queue behind the lock.
    common::let_pass(Duration::from_millis(300)).await;
    let most = lock.release().await;
    let mut seqs = Vec::new();
    for (n, answer) in created.into_iter().enumerate() {
        match answer.await.unwrap() {
            Ok(game) => {
                assert!(n < CREATED, "game {n} has a code of its own");
                assert_eq!(game.id, format!("created-{n}"));
                let stored = store.game(&game.id).await.unwrap().unwrap();
                assert_eq!(stored.seq, game.seq);
                assert_eq!(stored.join_code, Some(format!("CODE{:04}", n + 1)));
                seqs.push(game.seq);
            }
            Err(refused) => {
                assert_eq!(n, CREATED, "only the taken code is refused: {refused}");
                assert!(refused.to_string().contains("join code"), "{refused}");
            }
        }
    }
    assert_eq!(seqs.len(), CREATED);
    assert!(!seqs.contains(&taken.seq));
    let (view, _) = played.await.unwrap().unwrap();
    assert_eq!(view.ply, 1);
    let alone = if db.is_postgres() { CREATED + 1 } else { 0 };
    let transactions = store.write_transactions() - before;
    assert!(
        transactions <= most + alone as u64,
        "{transactions} transactions"
    );
    assert!(store.game("created-12").await.unwrap().is_none());
    let kept = store.game(&taken.id).await.unwrap().unwrap();
    assert_eq!(kept.join_code.as_deref(), Some("CODE0000"));
    store.close().await;
}

/// CPU time this process has run, all threads: the sum of each thread's
/// time on a CPU (`/proc/self/task/*/schedstat`, nanoseconds).
fn cpu_time() -> Duration {
    let mut total = 0;
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let stat =
            std::fs::read_to_string(task.unwrap().path().join("schedstat")).unwrap_or_default();
        total += stat
            .split_whitespace()
            .next()
            .and_then(|ns| ns.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Duration::from_nanos(total)
}

/// Prints what one MakeMove costs on a game 10 plies long and on one 400
/// plies long, both games: the process's CPU time per move (the server and
/// its client, in this process) and the answer's bytes, in the default view
/// and in the full one. Games are imported first (not measured), then each
/// gets one move (ignored by default: it measures, it checks nothing; see
/// BENCHMARKS.md, The write path).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn measure_cost_by_game_length() {
    const GAMES: usize = 200;
    for live_games in [arbiter::games::DEFAULT_LIVE_GAMES, 0] {
        println!("--live-games {live_games}");
        measure_cost_with(live_games, GAMES).await;
    }
}

async fn measure_cost_with(live_games: usize, games_each: usize) {
    use prost::Message;
    let server = TestServer::start_with_config(|config| arbiter::server::ServerConfig {
        create_rate: 0,
        live_games,
        ..config
    })
    .await;
    let mut games = server.games().await;
    for (variant, line) in [
        (pb::Variant::Chess, long_game(401)),
        (
            pb::Variant::Xiangqi,
            common::long_game::long_xiangqi_game(401),
        ),
    ] {
        for ply in [10, 400] {
            let mut imported = Vec::new();
            for _ in 0..games_each {
                let game = games
                    .import_game(pb::ImportGameRequest {
                        pgn: common::long_game::pgn(&line, ply),
                        variant: variant as i32,
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                let token = if ply % 2 == 0 {
                    game.white_token
                } else {
                    game.black_token
                };
                imported.push((game.game.unwrap().id, token));
            }
            let (cpu, wall) = (cpu_time(), Instant::now());
            let mut bytes = 0;
            for (game_id, seat_token) in &imported {
                let answer = games
                    .make_move(pb::MakeMoveRequest {
                        game_id: game_id.clone(),
                        seat_token: seat_token.clone(),
                        r#move: line[ply].clone(),
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                bytes = answer.encoded_len();
            }
            let (cpu, wall) = (cpu_time() - cpu, wall.elapsed());
            let full = games
                .get_game(pb::GetGameRequest {
                    game_id: imported[0].0.clone(),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
                .encoded_len();
            println!(
                "{variant:?} MakeMove at ply {ply}: {:.1} us CPU and {:.1} us a move ({games_each} \
                 moves), answer {bytes} B (the game in full: {full} B)",
                cpu.as_secs_f64() * 1e6 / games_each as f64,
                wall.as_secs_f64() * 1e6 / games_each as f64,
            );
        }
    }
    server.stop().await;
}
