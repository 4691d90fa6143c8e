//! Ratings: a rated game between players changes both Glicko-2 ratings in
//! its perf once, when it ends, and the game, the players, their history,
//! the leaderboard and the PGN tell it; games that cannot be rated are
//! refused, and games that do not count leave ratings alone.

use crate::common::{self, SeatRequest, TestServer, bearing, code_and_reason};

use arbiter::api::proto::{self as pb, games_client::GamesClient, players_client::PlayersClient};
use tonic::{Code, transport::Channel};

async fn player(players: &mut PlayersClient<Channel>, username: &str) -> String {
    common::create_player(players, username).await.1
}

pub(crate) fn blitz() -> Option<pb::TimeControl> {
    Some(pb::TimeControl {
        initial_ms: 180_000,
        increment_ms: 2_000,
        ..Default::default()
    })
}

/// A rated blitz game, White alice, Black bob.
pub(crate) fn rated_game() -> pb::CreateGameRequest {
    let bound = |id: &str| {
        Some(pb::SeatRequest {
            player_id: id.into(),
            ..Default::default()
        })
    };
    pb::CreateGameRequest {
        variant: pb::Variant::Chess as i32,
        white: bound("alice"),
        black: bound("bob"),
        time_control: blitz(),
        rated: true,
        ..Default::default()
    }
}

pub(crate) async fn create(
    games: &mut GamesClient<Channel>,
    request: pb::CreateGameRequest,
) -> String {
    games
        .create_game(request)
        .await
        .expect("created")
        .into_inner()
        .game
        .unwrap()
        .id
}

pub(crate) async fn play(games: &mut GamesClient<Channel>, id: &str, token: &str, text: &str) {
    games
        .make_move(bearing(
            pb::MakeMoveRequest {
                game_id: id.into(),
                r#move: text.into(),
                ..Default::default()
            },
            token,
        ))
        .await
        .unwrap_or_else(|e| panic!("{text}: {e:?}"));
}

pub(crate) async fn resign(games: &mut GamesClient<Channel>, id: &str, token: &str) -> pb::Game {
    games
        .resign(bearing(pb::ResignRequest::by_seat(id, ""), token))
        .await
        .expect("resigned")
        .into_inner()
        .game
        .unwrap()
}

async fn blitz_rating(players: &mut PlayersClient<Channel>, name: &str) -> Option<pb::PerfRating> {
    players
        .get_player(pb::GetPlayerRequest {
            player: name.into(),
        })
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap()
        .ratings
        .into_iter()
        .find(|r| r.perf == "chess_blitz")
}

#[tokio::test]
async fn a_rated_game_changes_both_ratings_once_when_it_ends() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let alice = player(&mut players, "alice").await;
    let bob = player(&mut players, "bob").await;
    let id = create(&mut games, rated_game()).await;
    play(&mut games, &id, &alice, "e4").await;
    play(&mut games, &id, &bob, "e5").await;
    let ended = resign(&mut games, &id, &alice).await;
    assert!(ended.rated);
    let (white, black) = (ended.white.unwrap(), ended.black.unwrap());
    assert_eq!((white.rating, black.rating), (1500, 1500));
    assert!(
        white.rating_diff < 0 && black.rating_diff > 0,
        "{white:?} {black:?}"
    );
    assert_eq!(
        white.rating_diff, -black.rating_diff,
        "equal players move alike"
    );

    let bobs = blitz_rating(&mut players, "bob")
        .await
        .expect("bob is rated");
    assert_eq!(bobs.rating, 1500 + black.rating_diff);
    assert_eq!(bobs.games, 1);
    assert!(bobs.provisional);
    let alices = blitz_rating(&mut players, "alice").await.unwrap();
    assert_eq!(alices.rating, 1500 + white.rating_diff);

    let history = players
        .get_rating_history(pb::GetRatingHistoryRequest {
            player: "Bob".into(),
            perf: "chess_blitz".into(),
            limit: 0,
        })
        .await
        .unwrap()
        .into_inner()
        .points;
    assert_eq!(history.len(), 1);
    assert_eq!(
        (history[0].game_id.as_str(), history[0].diff),
        (id.as_str(), black.rating_diff)
    );
    // Provisional ratings stay off the leaderboard.
    let board = players
        .get_leaderboard(pb::GetLeaderboardRequest {
            perf: "chess_blitz".into(),
            limit: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(board.entries.is_empty());

    let pgn = common::export(&mut games, &id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[WhiteElo \"1500\"]"), "{pgn}");
    assert!(
        pgn.contains(&format!("[BlackRatingDiff \"+{}\"]", black.rating_diff)),
        "{pgn}"
    );
    // Asked again, the game and the ratings are as they were.
    let again = common::get_game(&mut games, &id).await;
    assert_eq!(again.black.unwrap().rating_diff, black.rating_diff);
    assert_eq!(blitz_rating(&mut players, "bob").await.unwrap().games, 1);
    server.stop().await;
}

#[tokio::test]
async fn games_that_do_not_count_leave_ratings_alone() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let alice = player(&mut players, "alice").await;
    let bob = player(&mut players, "bob").await;
    // Aborted before a move; resigned after one.
    let aborted = create(&mut games, rated_game()).await;
    games
        .abort(bearing(pb::AbortRequest::by_seat(&aborted, ""), &alice))
        .await
        .expect("aborted");
    let short = create(&mut games, rated_game()).await;
    play(&mut games, &short, &alice, "e4").await;
    let ended = resign(&mut games, &short, &bob).await;
    assert_eq!(ended.white.unwrap().rating_diff, 0);
    // Casual.
    let casual = create(
        &mut games,
        pb::CreateGameRequest {
            rated: false,
            ..rated_game()
        },
    )
    .await;
    play(&mut games, &casual, &alice, "e4").await;
    play(&mut games, &casual, &bob, "e5").await;
    resign(&mut games, &casual, &bob).await;
    assert!(blitz_rating(&mut players, "alice").await.is_none());
    assert!(blitz_rating(&mut players, "bob").await.is_none());
    server.stop().await;
}

#[tokio::test]
async fn rated_games_that_end_at_once_each_count() {
    const GAMES: usize = 6;
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let alice = player(&mut players, "alice").await;
    let bob = player(&mut players, "bob").await;
    let mut ids = Vec::new();
    for _ in 0..GAMES {
        let id = create(&mut games, rated_game()).await;
        play(&mut games, &id, &alice, "e4").await;
        play(&mut games, &id, &bob, "e5").await;
        ids.push(id);
    }
    let endings: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(n, id)| {
            let (mut games, id) = (games.clone(), id.clone());
            let token = if n % 2 == 0 {
                alice.clone()
            } else {
                bob.clone()
            };
            tokio::spawn(async move { resign(&mut games, &id, &token).await })
        })
        .collect();
    let mut diffs = 0;
    for ending in endings {
        diffs += ending.await.unwrap().black.unwrap().rating_diff;
    }
    let bobs = blitz_rating(&mut players, "bob").await.unwrap();
    assert_eq!(bobs.games as usize, GAMES, "every game counted once");
    assert_eq!(bobs.rating, 1500 + diffs, "no change lost");
    assert_eq!(
        blitz_rating(&mut players, "alice").await.unwrap().games as usize,
        GAMES
    );
    server.stop().await;
}

#[tokio::test]
async fn games_that_cannot_be_rated_are_refused() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    player(&mut players, "alice").await;
    player(&mut players, "bob").await;
    let cases = [
        pb::CreateGameRequest {
            time_control: None,
            ..rated_game()
        },
        pb::CreateGameRequest {
            black: Some(pb::SeatRequest {
                engine: Some(pb::EnginePlayer::default()),
                ..Default::default()
            }),
            ..rated_game()
        },
        pb::CreateGameRequest {
            black: common::seat("Bob"),
            ..rated_game()
        },
        pb::CreateGameRequest {
            start: Some(pb::create_game_request::Start::Fen(
                "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1".into(),
            )),
            ..rated_game()
        },
    ];
    for request in cases {
        let refused = games.create_game(request).await.unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (Code::InvalidArgument, "INVALID_RATED_GAME".into())
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_rated_challenge_starts_a_rated_game() {
    let server = TestServer::start().await;
    let mut players = PlayersClient::new(server.channel().await);
    let alice = player(&mut players, "alice").await;
    let bob = player(&mut players, "bob").await;
    let challenge = |engine: Option<pb::EnginePlayer>| pb::CreateChallengeRequest {
        destination_id: if engine.is_some() { "" } else { "bob" }.into(),
        engine,
        variant: pb::Variant::Chess as i32,
        time_control: blitz(),
        rated: true,
        ..Default::default()
    };
    let made = players
        .create_challenge(bearing(challenge(None), &alice))
        .await
        .unwrap()
        .into_inner()
        .challenge
        .unwrap();
    assert!(made.rated);
    let accepted = players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest {
                challenge_id: made.id,
                ..Default::default()
            },
            &bob,
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(accepted.game.unwrap().rated);
    let against_engine = players
        .create_challenge(bearing(
            challenge(Some(pb::EnginePlayer::default())),
            &alice,
        ))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&against_engine),
        (Code::InvalidArgument, "INVALID_RATED_GAME".into())
    );
    server.stop().await;
}
