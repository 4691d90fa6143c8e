//! Games in play dropped from memory by its budget (`--live-games-memory`)
//! go on as if they had stayed: moves, takebacks, draw claims by
//! repetition and xiangqi's perpetual chase judged across the drop.

use crate::common;

use arbiter::{api::proto as pb, server::ServerConfig};
use common::{
    TestServer, claim_draw, create_game, get_game, play, propose_takeback, respond_to_takeback,
};
use pb::games_client::GamesClient;
use tonic::transport::Channel;

/// A server whose budget holds one small game at most (each counts over
/// 750 bytes: its row alone is more): creating a game drops
/// the game changed before it.
async fn dropping_server() -> TestServer {
    TestServer::start_with_config(|config| ServerConfig {
        live_games_memory: 1_500,
        ..config
    })
    .await
}

/// The games of `server`, and what to do between two changes of a game:
/// on the dropping server, create another game (so that the first is
/// dropped); on the default one, nothing.
struct Play {
    games: GamesClient<Channel>,
    drops: bool,
}

impl Play {
    async fn between(&mut self) {
        if self.drops {
            create_game(&mut self.games, pb::Variant::Chess, None, "C", "D").await;
        }
    }

    /// White proposes a takeback, Black accepts: the game after it.
    async fn take_back(&mut self, id: &str, tokens: [&str; 2]) -> pb::Game {
        self.between().await;
        propose_takeback(&mut self.games, id, tokens[0])
            .await
            .unwrap();
        self.between().await;
        respond_to_takeback(&mut self.games, id, tokens[1], true)
            .await
            .unwrap()
    }

    async fn moves(
        &mut self,
        id: &str,
        tokens: [&str; 2],
        moves: &[&str],
        first: usize,
    ) -> pb::Game {
        let mut game = None;
        for (i, m) in moves.iter().enumerate() {
            self.between().await;
            game = Some(play(&mut self.games, id, tokens[(first + i) % 2], m).await);
        }
        game.expect("moves")
    }
}

async fn servers() -> Vec<(TestServer, bool)> {
    vec![
        (dropping_server().await, true),
        (TestServer::start().await, false),
    ]
}

#[tokio::test]
async fn a_chess_game_dropped_between_its_changes_goes_on_the_same() {
    for (server, drops) in servers().await {
        let mut p = Play {
            games: server.games().await,
            drops,
        };
        let created = create_game(&mut p.games, pb::Variant::Chess, None, "A", "B").await;
        let id = created.game.unwrap().id;
        let tokens = [created.white_token.as_str(), created.black_token.as_str()];
        let played = p.moves(&id, tokens, &["e4", "e5", "Nf3", "Nc6"], 0).await;
        assert_eq!(played.ply, 4, "drops: {drops}");
        // Back past the last irreversible move (e5): White, to move, takes
        // back its move and Black's.
        let back = p.take_back(&id, tokens).await;
        assert_eq!(back.ply, 2, "drops: {drops}");
        let fen_after_e5 = back.fen.clone();
        // Ng1-f3-g1 twice by both: the position after e5 a third time.
        p.moves(
            &id,
            tokens,
            &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1"],
            0,
        )
        .await;
        p.between().await;
        let game = get_game(&mut p.games, &id).await;
        assert_eq!(game.ply, 9);
        assert_eq!(game.moves.len(), 9);
        assert_eq!(
            game.moves[1].r#move.as_ref().map(|m| m.san.as_str()),
            Some("e5")
        );
        p.between().await;
        let drawn = claim_draw(&mut p.games, &id, tokens[1], "Ng8").await;
        let outcome = drawn.outcome.unwrap();
        assert_eq!(
            outcome.status,
            pb::OutcomeStatus::Drawn as i32,
            "drops: {drops}"
        );
        assert_eq!(
            outcome.termination,
            pb::Termination::ThreefoldRepetition as i32
        );
        // The same position, the move counters aside.
        let placement = |fen: &str| fen.rsplitn(3, ' ').last().unwrap().to_owned();
        assert_eq!(placement(&drawn.fen), placement(&fen_after_e5));
        assert_eq!(get_game(&mut p.games, &id).await.ply, 10);
        server.stop().await;
    }
}

/// Black's chariot chases the horse its general cannot protect.
const CHASE_FEN: &str = "3k5/9/9/9/9/9/3r5/9/9/3NK4 w - - 0 1";
const CHASE: [&str; 8] = [
    "d0c2", "d3c3", "c2d0", "c3d3", "d0c2", "d3c3", "c2d0", "c3d3",
];

#[tokio::test]
async fn a_perpetual_chase_is_judged_across_drops() {
    for (server, drops) in servers().await {
        let mut p = Play {
            games: server.games().await,
            drops,
        };
        let created = create_game(
            &mut p.games,
            pb::Variant::Xiangqi,
            Some(CHASE_FEN),
            "Red",
            "Black",
        )
        .await;
        let id = created.game.unwrap().id;
        let tokens = [created.white_token.as_str(), created.black_token.as_str()];
        // A move taken back across a drop first.
        p.moves(&id, tokens, &["d0c2"], 0).await;
        let back = p.take_back(&id, tokens).await;
        assert_eq!(back.ply, 0);
        let game = p.moves(&id, tokens, &CHASE, 0).await;
        let outcome = game.outcome.unwrap();
        assert_eq!(
            outcome.status,
            pb::OutcomeStatus::Decisive as i32,
            "drops: {drops}"
        );
        assert_eq!(outcome.termination, pb::Termination::PerpetualChase as i32);
        assert_eq!(
            outcome.description,
            "red won by perpetual chase: Black's chariot chased the unprotected horse on d0"
        );
        server.stop().await;
    }
}
