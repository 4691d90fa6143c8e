//! The Lichess variants through the Games service: each played to its own
//! kind of end, the variant's rules named when a move breaks them, and the
//! PGN round trip.

use crate::common::{self, code_and_reason};

use arbiter::api::proto::{self as pb, create_game_request::Start, games_client::GamesClient};
use common::TestServer;
use tonic::{Code, transport::Channel};

/// Plays `moves` in turn from the start of a fresh game of `variant` (from
/// `fen` if given); the game after the last.
async fn played(
    games: &mut GamesClient<Channel>,
    variant: pb::Variant,
    fen: Option<&str>,
    moves: &[&str],
) -> pb::Game {
    let created = common::create_game_from(
        games,
        variant,
        fen.map(|fen| Start::Fen(fen.into())),
        "W",
        "B",
    )
    .await;
    let mut game = created.game.clone().unwrap();
    for text in moves {
        let white = game.fen.split(' ').nth(1) == Some("w");
        let token = if white {
            &created.white_token
        } else {
            &created.black_token
        };
        game = common::play(games, &game.id, token, text).await;
    }
    common::get_game(games, &game.id).await
}

/// A game of a variant from its start or a FEN, its moves, and how it ends.
type Case<'a> = (
    pb::Variant,
    Option<&'a str>,
    &'a [&'a str],
    pb::Side,
    pb::Termination,
);

/// The game's outcome: winner and termination.
fn ending(game: &pb::Game) -> (pb::Side, pb::Termination) {
    let outcome = game.outcome.clone().expect("an outcome");
    (outcome.winner(), outcome.termination())
}

#[tokio::test]
async fn each_variant_ends_by_its_own_rule() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let cases: [Case; 8] = [
        // The knight takes f7 and the blast takes the king beside it.
        (
            pb::Variant::Atomic,
            None,
            &["Nf3", "a6", "Ng5", "a5", "Nxf7#"],
            pb::Side::White,
            pb::Termination::Explosion,
        ),
        (
            pb::Variant::KingOfTheHill,
            None,
            &["e4", "a6", "Ke2", "a5", "Ke3", "a4", "Kd4#"],
            pb::Side::White,
            pb::Termination::KingInTheCentre,
        ),
        // Two checks given already: the rook gives the third. A move that
        // wins by the variant's rule is marked as a mate.
        (
            pb::Variant::ThreeCheck,
            Some("4k3/8/8/8/8/8/8/R3K3 w - - 1+3 0 1"),
            &["Ra8#"],
            pb::Side::White,
            pb::Termination::ThreeChecks,
        ),
        (
            pb::Variant::RacingKings,
            Some("8/5K2/8/8/8/8/k7/8 w - - 0 1"),
            &["Kf8#"],
            pb::Side::White,
            pb::Termination::RaceFinished,
        ),
        // White must take the rook, and Black, left without pieces, wins.
        (
            pb::Variant::Antichess,
            Some("8/8/8/8/8/8/8/Rr6 w - - 0 1"),
            &["Rxb1#"],
            pb::Side::Black,
            pb::Termination::AllPiecesLost,
        ),
        (
            pb::Variant::Horde,
            Some("8/8/8/8/8/8/3kP3/8 b - - 0 1"),
            &["Kxe2#"],
            pb::Side::Black,
            pb::Termination::HordeDestroyed,
        ),
        // A rook dropped from the pocket mates on the back rank.
        (
            pb::Variant::Crazyhouse,
            Some("6k1/5ppp/8/8/8/8/8/6K1[R] w - - 0 1"),
            &["R@e8#"],
            pb::Side::White,
            pb::Termination::Checkmate,
        ),
        // Both kings reach the eighth rank: drawn.
        (
            pb::Variant::RacingKings,
            Some("8/5K1k/8/8/8/8/8/8 w - - 0 1"),
            &["Kf8", "Kh8"],
            pb::Side::Unspecified,
            pb::Termination::RaceFinished,
        ),
    ];
    for (variant, fen, moves, winner, termination) in cases {
        let game = played(&mut games, variant, fen, moves).await;
        assert_eq!(game.variant, variant as i32);
        assert_eq!(ending(&game), (winner, termination), "{variant:?} {fen:?}");
        let last = game.moves.last().unwrap().r#move.clone().unwrap();
        assert_eq!(&last.san, moves.last().unwrap(), "{variant:?}");
    }
}

#[tokio::test]
async fn a_move_against_the_variant_rule_is_refused_with_that_rule() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    for (variant, fen, text, reason) in [
        (
            pb::Variant::Antichess,
            "8/8/8/8/8/8/8/Rr6 w - - 0 1",
            "a1a2",
            "CAPTURE_COMPULSORY",
        ),
        (
            pb::Variant::Atomic,
            "4k3/8/8/8/8/8/3p4/4K3 w - - 0 1",
            "e1d2",
            "KING_CANNOT_CAPTURE",
        ),
        (
            pb::Variant::RacingKings,
            "8/8/8/8/8/8/k7/2R3K1 w - - 0 1",
            "c1c2",
            "GIVES_CHECK",
        ),
        (
            pb::Variant::Crazyhouse,
            "4k3/8/8/8/8/8/8/4K3[Q] w - - 0 1",
            "B@d4",
            "NOT_IN_POCKET",
        ),
        (
            pb::Variant::Crazyhouse,
            "4k3/8/8/8/8/8/8/4K3[P] w - - 0 1",
            "P@d8",
            "DROP_NOT_ALLOWED",
        ),
    ] {
        let created =
            common::create_game_from(&mut games, variant, Some(Start::Fen(fen.into())), "W", "B")
                .await;
        let status = games
            .make_move(pb::MakeMoveRequest {
                game_id: created.game.unwrap().id,
                seat_token: created.white_token,
                r#move: text.into(),
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&status),
            (Code::FailedPrecondition, reason.to_owned()),
            "{variant:?} {text}: {}",
            status.message()
        );
    }
}

#[tokio::test]
async fn a_crazyhouse_capture_fills_the_pocket_and_the_pgn_reads_back() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let game = played(
        &mut games,
        pb::Variant::Crazyhouse,
        None,
        &["e4", "d5", "exd5", "Qxd5", "P@e4", "Qxe4+"],
    )
    .await;
    assert_eq!(
        game.start_fen,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w KQkq - 0 1"
    );
    assert_eq!(
        game.fen,
        "rnb1kbnr/ppp1pppp/8/8/4q3/8/PPPP1PPP/RNBQKBNR[pp] w KQkq - 0 4"
    );
    let pgn = common::export(&mut games, &game.id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[Variant \"Crazyhouse\"]"), "{pgn}");
    assert!(!pgn.contains("[FEN"), "{pgn}");
    assert!(pgn.contains("3. @e4 Qxe4+"), "{pgn}");
    let imported = common::import(&mut games, pgn).await;
    assert_eq!(imported.variant, pb::Variant::Crazyhouse as i32);
    assert_eq!(imported.fen, game.fen);

    // Pockets belong to Crazyhouse only.
    let status = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Atomic as i32,
            start: Some(Start::Fen("4k3/8/8/8/8/8/8/4K3[N] w - - 0 1".into())),
            white: common::seat("W"),
            black: common::seat("B"),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument, "{}", status.message());
    assert!(status.message().contains("pockets"), "{}", status.message());
}

#[tokio::test]
async fn a_three_check_game_counts_checks_in_its_fen_and_exports_with_its_start() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let game = played(
        &mut games,
        pb::Variant::ThreeCheck,
        None,
        &["e4", "e5", "Bc4", "Nc6", "Bxf7+", "Kxf7"],
    )
    .await;
    assert_eq!(
        game.fen,
        "r1bq1bnr/pppp1kpp/2n5/4p3/4P3/8/PPPP1PPP/RNBQK1NR w KQ - 2+3 0 4"
    );
    let pgn = common::export(&mut games, &game.id, pb::PgnNotation::Standard).await;
    assert!(pgn.contains("[Variant \"Three-check\"]"), "{pgn}");
    let imported = common::import(&mut games, pgn).await;
    assert_eq!(imported.variant, pb::Variant::ThreeCheck as i32);
    assert_eq!(imported.fen, game.fen);
}
