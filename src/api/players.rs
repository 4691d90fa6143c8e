//! `arbiter.v1.Players`: accounts that own seats across games.

use tonic::{Request, Response, Status};

use super::{
    admission::{Creates, admit_create},
    caller, convert,
    proto::{self as pb, players_server},
};
use crate::{players::Players, store::StoredPlayer};

pub struct PlayersService {
    pub players: Players,
    /// The rate limit of creating calls, CreatePlayer's too.
    pub creates: Creates,
}

fn player(p: StoredPlayer) -> pb::Player {
    pb::Player {
        id: p.id,
        username: p.username,
        display_name: p.display_name,
        created_at: convert::timestamp(p.created_at),
    }
}

#[tonic::async_trait]
impl players_server::Players for PlayersService {
    async fn create_player(
        &self,
        request: Request<pb::CreatePlayerRequest>,
    ) -> Result<Response<pb::CreatePlayerResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let r = request.into_inner();
        let created = self
            .players
            .create(&r.username, &r.display_name, &r.admin_token)
            .await?;
        tracing::info!(player_id = %created.player.id, "player created");
        Ok(Response::new(pb::CreatePlayerResponse {
            player: Some(player(created.player)),
            token: created.token,
        }))
    }

    async fn get_player(
        &self,
        request: Request<pb::GetPlayerRequest>,
    ) -> Result<Response<pb::GetPlayerResponse>, Status> {
        let found = self.players.get(&request.get_ref().player).await?;
        Ok(Response::new(pb::GetPlayerResponse {
            player: Some(player(found)),
        }))
    }

    async fn create_player_token(
        &self,
        request: Request<pb::CreatePlayerTokenRequest>,
    ) -> Result<Response<pb::CreatePlayerTokenResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let token = self.players.issue_token(&caller.id).await?;
        Ok(Response::new(pb::CreatePlayerTokenResponse { token }))
    }

    async fn revoke_player_token(
        &self,
        request: Request<pb::RevokePlayerTokenRequest>,
    ) -> Result<Response<pb::RevokePlayerTokenResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        // The operator acting for a player holds none of their tokens: only
        // `all` revokes any.
        let token = caller.token.unwrap_or_default();
        let all = request.get_ref().all;
        let revoked = self.players.revoke(&caller.id, &token, all).await?;
        Ok(Response::new(pb::RevokePlayerTokenResponse {
            revoked: u32::try_from(revoked).unwrap_or(u32::MAX),
        }))
    }
}
