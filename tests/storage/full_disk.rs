//! A full disk, on the real binary: the database on a small tmpfs that a
//! filler file fills. Writes fail with UNAVAILABLE `STORE_UNAVAILABLE` (never
//! OK for something not stored), health says NOT_SERVING; once the filler is
//! gone the store and health recover by themselves, and after `kill -9` every
//! game and move that was answered OK is there.
//!
//! Needs `mount -t tmpfs` (root, as in CI); fails loudly without it.

use crate::common;

use std::{
    collections::HashMap,
    io::Write,
    path::{Path, PathBuf},
    process::Command,
    time::Duration,
};

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, positions_client::PositionsClient,
};
use common::{binary::Serve, wait_health};
use tonic::{Code, transport::Channel};
use tonic_health::pb::health_check_response::ServingStatus;

/// A tmpfs mounted for the test, unmounted when dropped (also on failure).
struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    fn mount(size: &str) -> SmallDisk {
        let dir = tempfile::tempdir().unwrap().keep();
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status();
        assert!(
            matches!(status, Ok(s) if s.success()),
            "THIS TEST NEEDS `mount -t tmpfs` (run it as root, as CI does): mounting a \
             {size} tmpfs on {} failed: {status:?}",
            dir.display()
        );
        SmallDisk { dir }
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        // Lazy: the server may not have let go of its files yet.
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// Fills the file system holding `path` until it has no byte left.
fn fill(path: &Path) {
    let mut file = std::fs::File::create(path).unwrap();
    let chunk = vec![0x5a_u8; 64 * 1024];
    loop {
        if let Err(e) = file.write_all(&chunk) {
            assert_eq!(e.raw_os_error(), Some(28), "ENOSPC expected: {e}");
            break;
        }
    }
    // Whatever a 64 KiB chunk could not take, byte by byte.
    while file.write_all(&[0x5a]).is_ok() {}
}

/// A write's result: OK, or UNAVAILABLE `STORE_UNAVAILABLE`; anything else
/// fails the test.
fn acknowledged<T>(result: Result<tonic::Response<T>, tonic::Status>) -> Option<T> {
    match result {
        Ok(response) => Some(response.into_inner()),
        Err(status) => {
            assert_eq!(
                common::code_and_reason(&status),
                (Code::Unavailable, "STORE_UNAVAILABLE".to_owned()),
                "{status:?}"
            );
            None
        }
    }
}

/// Games answered OK and their moves answered OK.
#[derive(Default)]
struct Acknowledged {
    games: HashMap<String, (pb::CreateGameResponse, Vec<&'static str>)>,
}

const MOVES: [&str; 24] = [
    "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7", "Re1", "b5", "Bb3", "d6",
    "c3", "O-O", "h3", "Nb8", "d4", "Nbd7", "c4", "c6", "cxb5", "axb5",
];

impl Acknowledged {
    /// One CreateGame; true if it was acknowledged.
    async fn create(&mut self, games: &mut GamesClient<Channel>) -> bool {
        let request = pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            start: None,
            white: common::seat("White"),
            black: common::seat("Black"),
            engine_declines_takebacks: false,
            time_control: None,
            ..Default::default()
        };
        let Some(created) = acknowledged(games.create_game(request).await) else {
            return false;
        };
        let id = created.game.as_ref().unwrap().id.clone();
        self.games.insert(id, (created, Vec::new()));
        true
    }

    /// The next move of game `id`; true if it was acknowledged.
    async fn play(&mut self, games: &mut GamesClient<Channel>, id: &str) -> bool {
        let (created, played) = self.games.get_mut(id).unwrap();
        let ply = played.len();
        let token = if ply.is_multiple_of(2) {
            &created.white_token
        } else {
            &created.black_token
        };
        let request = pb::MakeMoveRequest {
            game_id: id.to_owned(),
            seat_token: token.clone(),
            r#move: MOVES[ply].into(),
            expected_ply: Some(ply as u32),
            ..Default::default()
        };
        if acknowledged(games.make_move(request).await).is_none() {
            return false;
        }
        played.push(MOVES[ply]);
        true
    }

    /// Every acknowledged game is stored with exactly its acknowledged
    /// moves.
    async fn check_stored(&self, games: &mut GamesClient<Channel>) {
        for (id, (_, played)) in &self.games {
            let game = games
                .get_game(pb::GetGameRequest {
                    game_id: id.clone(),
                    ..Default::default()
                })
                .await
                .unwrap_or_else(|e| panic!("acknowledged game {id} is missing: {e:?}"))
                .into_inner()
                .game
                .unwrap();
            let sans: Vec<&str> = game
                .moves
                .iter()
                .map(|m| m.r#move.as_ref().unwrap().san.as_str())
                .collect();
            assert_eq!(&sans, played, "game {id}");
        }
    }
}

#[tokio::test]
async fn a_full_disk_refuses_writes_as_unavailable_and_recovers_by_itself() {
    let disk = SmallDisk::mount("4m");
    let db = disk.dir.join("arbiter.db");
    let filler = disk.dir.join("filler");
    let mut server = Serve::on(&db).env("RUST_LOG", "error").start().await;
    let channel = server.channel().await;
    let mut games = GamesClient::new(channel.clone());
    let mut acked = Acknowledged::default();
    assert!(acked.create(&mut games).await);
    let first = acked.games.keys().next().unwrap().clone();
    for _ in 0..2 {
        assert!(acked.play(&mut games, &first).await);
    }
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(1)).await;

    fill(&filler);
    let mut refused = 0;
    for _ in 0..10 {
        refused += usize::from(!acked.create(&mut games).await);
        refused += usize::from(!acked.play(&mut games, &first).await);
    }
    assert!(
        refused > 0,
        "the disk is full, yet every write was acknowledged"
    );
    // Positions write through the same store.
    let mut positions = PositionsClient::new(channel.clone());
    let saved = acknowledged(
        positions
            .create_position(pb::CreatePositionRequest {
                variant: pb::Variant::Chess as i32,
                source: Some(pb::create_position_request::Source::Fen(
                    "4k3/8/8/8/8/8/8/4K2R w K - 0 1".into(),
                )),
                name: "rook ending".into(),
                tags: vec!["endgame".into()],
            })
            .await,
    )
    .and_then(|created| created.position)
    .map(|position| position.id);
    wait_health(&channel, ServingStatus::NotServing, Duration::from_secs(5)).await;
    // Reads go on, and what was acknowledged is there.
    acked.check_stored(&mut games).await;

    std::fs::remove_file(&filler).unwrap();
    wait_health(&channel, ServingStatus::Serving, Duration::from_secs(10)).await;
    crate::wait_until!(
        Duration::from_secs(10),
        acked.create(&mut games).await,
        "CreateGame never recovered"
    );
    for _ in 0..4 {
        assert!(
            acked.play(&mut games, &first).await,
            "MakeMove after recovery"
        );
    }
    let created_after = acked.games.len();
    assert!(created_after >= 2);

    server.kill().await;
    let server = Serve::on(&db).env("RUST_LOG", "error").start().await;
    let mut games = GamesClient::new(server.channel().await);
    acked.check_stored(&mut games).await;
    if let Some(id) = saved {
        PositionsClient::new(server.channel().await)
            .get_position(pb::GetPositionRequest { id })
            .await
            .expect("an acknowledged position is stored");
    }
    let all = games
        .list_games(pb::ListGamesRequest {
            page_size: 100,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(
        all.len(),
        acked.games.len(),
        "only acknowledged games exist"
    );
}
