//! `arbiter.v1.Rules`: stateless rule questions.

use tonic::{Request, Response, Status};

use super::{
    convert::{self, record, setup},
    error::bad_move,
    legal_moves::LegalMovesAnswer,
    proto::{self as pb, rules_server},
};
use crate::rules::MoveError;

#[derive(Clone, Copy, Debug, Default)]
pub struct RulesService;

#[tonic::async_trait]
impl rules_server::Rules for RulesService {
    async fn validate_position(
        &self,
        request: Request<pb::ValidatePositionRequest>,
    ) -> Result<Response<pb::ValidatePositionResponse>, Status> {
        let response = match setup(request.get_ref().position.as_ref())? {
            Ok(r) => pb::ValidatePositionResponse {
                valid: true,
                problems: Vec::new(),
                fen: r.fen(),
                turn: convert::side(r.turn()),
            },
            Err(e) => pb::ValidatePositionResponse {
                valid: false,
                problems: e
                    .problems
                    .into_iter()
                    .map(|p| pb::PositionProblem {
                        code: p.code.to_owned(),
                        message: p.message,
                        move_index: p
                            .move_index
                            .map_or(-1, |i| i32::try_from(i).unwrap_or(i32::MAX)),
                    })
                    .collect(),
                fen: String::new(),
                turn: pb::Side::Unspecified as i32,
            },
        };
        Ok(Response::new(response))
    }

    /// Served by [`RulesRoutes`](super::legal_moves::RulesRoutes), which
    /// encodes the same answer without building the generated moves.
    async fn legal_moves(
        &self,
        request: Request<pb::LegalMovesRequest>,
    ) -> Result<Response<pb::LegalMovesResponse>, Status> {
        LegalMovesAnswer::of(request.get_ref()).map(|a| Response::new(a.into_message()))
    }

    async fn validate_move(
        &self,
        request: Request<pb::ValidateMoveRequest>,
    ) -> Result<Response<pb::ValidateMoveResponse>, Status> {
        let request = request.get_ref();
        let mut r = record(request.position.as_ref())?;
        let response = match r.play(&request.r#move) {
            Ok(played) => pb::ValidateMoveResponse {
                legal: true,
                reason: pb::IllegalReason::Unspecified as i32,
                message: String::new(),
                r#move: Some(convert::move_description(played.description)),
                fen_after: played.fen_after,
                outcome_after: Some(convert::verdict(&r.verdict(), r.variant())),
            },
            Err(MoveError::Illegal(e)) => pb::ValidateMoveResponse {
                legal: false,
                reason: convert::illegal_reason(e.reason),
                message: e.message,
                r#move: None,
                fen_after: String::new(),
                outcome_after: None,
            },
            Err(e) => return Err(bad_move("move", &e)),
        };
        Ok(Response::new(response))
    }

    async fn get_outcome(
        &self,
        request: Request<pb::GetOutcomeRequest>,
    ) -> Result<Response<pb::GetOutcomeResponse>, Status> {
        let request = request.get_ref();
        let mut r = record(request.position.as_ref())?;
        // With a move, the position after it is judged, as a draw claimed
        // with that move is: a move the position refuses is the caller's
        // mistake.
        let played = if request.r#move.trim().is_empty() {
            None
        } else {
            let played = r.play(&request.r#move).map_err(|e| bad_move("move", &e))?;
            Some(convert::move_description(played.description))
        };
        Ok(Response::new(pb::GetOutcomeResponse {
            outcome: Some(convert::verdict(&r.verdict(), r.variant())),
            is_check: r.is_check(),
            repetitions: u32::try_from(r.repetitions()).unwrap_or(u32::MAX),
            fen: r.fen(),
            r#move: played,
        }))
    }
}
