//! `arbiter.v1.Positions`: saved custom positions.

use tonic::{Request, Response, Status};

use super::{
    admission::{Creates, admit_create},
    convert,
    error::invalid_argument,
    proto::{self as pb, positions_server},
    request::{next_token, paging, trace_position},
};
use crate::{
    games::positions::{Positions, Source},
    reason::Reason,
    rules::Side,
    store::{PositionFilter, StoredPosition},
};

/// The first character of `ListPositions` page tokens.
const POSITIONS_PAGES: char = 'p';

pub struct PositionsService {
    pub positions: Positions,
    /// The rate limit of CreatePosition.
    pub creates: Creates,
}

fn saved(p: &StoredPosition) -> pb::SavedPosition {
    pb::SavedPosition {
        id: p.id.clone(),
        variant: p.variant.parse().map_or(0, convert::variant_to_pb),
        fen: p.fen.clone(),
        name: p.name.clone(),
        tags: p.tags.clone(),
        created_at: convert::timestamp(p.created_at),
    }
}

#[tonic::async_trait]
impl positions_server::Positions for PositionsService {
    async fn create_position(
        &self,
        request: Request<pb::CreatePositionRequest>,
    ) -> Result<Response<pb::CreatePositionResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let r = request.into_inner();
        let variant = convert::variant("variant", r.variant)?;
        let source = match r.source {
            Some(pb::create_position_request::Source::Fen(fen)) => Source::Fen(fen),
            Some(pb::create_position_request::Source::Board(board)) => Source::Board {
                turn: match pb::Side::try_from(board.turn) {
                    Ok(pb::Side::White) => Side::White,
                    Ok(pb::Side::Black) => Side::Black,
                    _ => {
                        return Err(invalid_argument(
                            "board.turn",
                            Reason::MissingField,
                            "the side to move is required",
                        ));
                    }
                },
                pieces: board
                    .pieces
                    .into_iter()
                    .map(|p| (p.square, p.piece))
                    .collect(),
                castling: board.castling,
                en_passant: board.en_passant,
            },
            None => {
                return Err(invalid_argument(
                    "source",
                    Reason::MissingField,
                    "give the position as fen or as board",
                ));
            }
        };
        let created = self
            .positions
            .create(variant, source, &r.name, &r.tags)
            .await?;
        Ok(Response::new(pb::CreatePositionResponse {
            position: Some(saved(&created.position)),
            owner_token: created.owner_token,
        }))
    }

    async fn get_position(
        &self,
        request: Request<pb::GetPositionRequest>,
    ) -> Result<Response<pb::GetPositionResponse>, Status> {
        trace_position(&request.get_ref().id)?;
        let position = self.positions.get(&request.get_ref().id).await?;
        Ok(Response::new(pb::GetPositionResponse {
            position: Some(saved(&position)),
        }))
    }

    async fn list_positions(
        &self,
        request: Request<pb::ListPositionsRequest>,
    ) -> Result<Response<pb::ListPositionsResponse>, Status> {
        let r = request.get_ref();
        let (limit, before) = paging(r.page_size, &r.page_token, POSITIONS_PAGES)?;
        let variant = match r.variant {
            0 => None,
            v => Some(convert::variant("variant", v)?.name().to_owned()),
        };
        let tag = Some(r.tag.trim().to_owned()).filter(|t| !t.is_empty());
        let page = self
            .positions
            .list(PositionFilter {
                variant,
                tag,
                before,
                limit,
            })
            .await?;
        Ok(Response::new(pb::ListPositionsResponse {
            positions: page.items.iter().map(saved).collect(),
            next_page_token: next_token(page.next, POSITIONS_PAGES),
        }))
    }

    async fn delete_position(
        &self,
        request: Request<pb::DeletePositionRequest>,
    ) -> Result<Response<pb::DeletePositionResponse>, Status> {
        let r = request.get_ref();
        trace_position(&r.id)?;
        self.positions.delete(&r.id, &r.owner_token).await?;
        Ok(Response::new(pb::DeletePositionResponse {}))
    }
}
