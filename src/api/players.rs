//! `arbiter.v1.Players`: accounts that own seats across games.

use tonic::{Request, Response, Status};

use super::{
    admission::{Creates, admit_create},
    caller,
    convert::{self, challenge},
    error::invalid_argument,
    player::PlayerStreams,
    player_events::{self, EventStream},
    proto::{self as pb, players_server},
    seek_streams::{LobbyStream, SeekStream},
    starts,
};
use crate::{
    games::model::PROVISIONAL_DEVIATION,
    games::{GameError, Games, Refusal},
    players::{ChallengeSpec, Challenges, Players, SeekSpec, Seeks},
    reason::Reason,
    rules::Variant,
    store::{StoredPlayer, StoredRating},
};

pub struct PlayersService {
    pub players: Players,
    /// The games a deleted player's games in play are ended in.
    pub games: Games,
    pub challenges: Challenges,
    pub seeks: Seeks,
    /// WatchEvents' streams (sharing WatchPlayer's limits).
    pub streams: PlayerStreams,
    /// The rate limit of creating calls, CreatePlayer's and
    /// CreateChallenge's too.
    pub creates: Creates,
}

/// CreateChallenge's request as the challenge it asks for.
fn challenge_spec(r: pb::CreateChallengeRequest) -> Result<ChallengeSpec, Status> {
    let variant = convert::variant("variant", r.variant)?;
    let engine = match r.engine {
        None => None,
        engine => {
            let seat = pb::SeatRequest {
                engine,
                ..Default::default()
            };
            convert::seat("engine", Some(seat))?.engine
        }
    };
    let color = convert::color("color", r.color)?;
    let destination = r.destination_id.trim();
    Ok(ChallengeSpec {
        destination: (!destination.is_empty()).then(|| destination.to_owned()),
        open_to: r.open_to,
        engine,
        variant,
        choices: convert::rule_choices("xiangqi_rules", variant, r.xiangqi_rules)?,
        fen: (!r.fen.trim().is_empty()).then_some(r.fen),
        chess960: r.chess960_start.map(starts::chess960_start).transpose()?,
        time_control: r
            .time_control
            .as_ref()
            .map(convert::time_control)
            .transpose()?,
        color,
        rated: r.rated,
        for_others: r.for_others,
    })
}

/// Seek's request as the seek it asks for.
fn seek_spec(r: &pb::SeekRequest) -> Result<SeekSpec, Status> {
    let variant = convert::variant("variant", r.variant)?;
    let time_control = r
        .time_control
        .as_ref()
        .map(convert::time_control)
        .transpose()?
        .ok_or_else(|| {
            invalid_argument(
                "time_control",
                Reason::InvalidSeek,
                "a seek has a time control: a clock, or days per move",
            )
        })?;
    let bound = |rating: i32| (rating != 0).then_some(i64::from(rating));
    Ok(SeekSpec {
        variant,
        choices: convert::rule_choices("xiangqi_rules", variant, r.xiangqi_rules)?,
        time_control,
        rated: r.rated,
        rating_min: bound(r.rating_min),
        rating_max: bound(r.rating_max),
        color: convert::color("color", r.color)?,
    })
}

/// A lobby request's variant: `None` for every game.
fn lobby_variant(value: i32) -> Result<Option<Variant>, Status> {
    if value == pb::Variant::Unspecified as i32 {
        Ok(None)
    } else {
        convert::variant("variant", value).map(Some)
    }
}

fn player(p: StoredPlayer, ratings: &[(String, StoredRating)]) -> pb::Player {
    pb::Player {
        id: p.id,
        username: p.username,
        display_name: p.display_name,
        created_at: convert::timestamp(p.created_at),
        bot: p.bot,
        ratings: ratings
            .iter()
            .map(|(perf, rating)| perf_rating(perf, rating))
            .collect(),
    }
}

fn perf_rating(perf: &str, r: &StoredRating) -> pb::PerfRating {
    pb::PerfRating {
        perf: perf.to_owned(),
        rating: r.rating.round() as i32,
        deviation: r.deviation.round() as i32,
        provisional: r.deviation >= PROVISIONAL_DEVIATION,
        games: u32::try_from(r.games).unwrap_or(u32::MAX),
    }
}

/// A list's `limit`: `default` for 0, at most `most`.
fn limit(field: &str, asked: i32, default: usize, most: usize) -> Result<usize, Status> {
    match usize::try_from(asked) {
        Ok(0) => Ok(default),
        Ok(n) if n <= most => Ok(n),
        _ => Err(invalid_argument(
            field,
            Reason::ValueOutOfRange,
            format!("{field} is 0 (the default, {default}) to {most}"),
        )),
    }
}

#[tonic::async_trait]
impl players_server::Players for PlayersService {
    async fn create_player(
        &self,
        request: Request<pb::CreatePlayerRequest>,
    ) -> Result<Response<pb::CreatePlayerResponse>, Status> {
        admit_create(&self.creates, &request)?;
        if !request.get_ref().provider_subject.is_empty() {
            let r = request.get_ref();
            if !(caller::is_backend(&self.players, &request)?
                || self.players.is_operator(&r.admin_token))
            {
                return Err(GameError::PermissionDenied(Refusal::new(
                    Reason::OperatorOnly,
                    "a provider's player is created ahead by a trusted backend: send the operator \
                     or service credential as `authorization: Bearer`",
                ))
                .into());
            }
            let player = self
                .players
                .create_provider_player(&r.provider_subject, &r.username, &r.display_name)
                .await?;
            tracing::info!(player_id = %player.id, "provider's player created ahead");
            let ratings = self.players.ratings(&player.id).await?;
            return Ok(Response::new(pb::CreatePlayerResponse {
                player: Some(self::player(player, &ratings)),
                token: String::new(),
            }));
        }
        let r = request.into_inner();
        let created = self
            .players
            .create(&r.username, &r.display_name, &r.admin_token)
            .await?;
        tracing::info!(player_id = %created.player.id, "player created");
        Ok(Response::new(pb::CreatePlayerResponse {
            player: Some(player(created.player, &[])),
            token: created.token,
        }))
    }

    async fn get_player(
        &self,
        request: Request<pb::GetPlayerRequest>,
    ) -> Result<Response<pb::GetPlayerResponse>, Status> {
        let named = request.get_ref().player.trim();
        let found = if named.is_empty() {
            let caller = caller::player(&self.players, &request).await?;
            self.players.get(&caller.id).await?
        } else {
            self.players.get(named).await?
        };
        let ratings = self.players.ratings(&found.id).await?;
        Ok(Response::new(pb::GetPlayerResponse {
            player: Some(player(found, &ratings)),
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

    async fn delete_player(
        &self,
        request: Request<pb::DeletePlayerRequest>,
    ) -> Result<Response<pb::DeletePlayerResponse>, Status> {
        let r = request.get_ref();
        let id = if r.admin_token.is_empty() {
            let caller = caller::player(&self.players, &request).await?;
            let named = r.player.trim();
            if !named.is_empty() && self.players.get(named).await?.id != caller.id {
                return Err(GameError::PermissionDenied(Refusal::new(
                    Reason::OperatorOnly,
                    "a player deletes themselves; deleting another is the operator's",
                ))
                .into());
            }
            caller.id
        } else if self.players.is_operator(&r.admin_token) {
            self.players.get(r.player.trim()).await?.id
        } else {
            return Err(GameError::PermissionDenied(Refusal::new(
                Reason::OperatorOnly,
                "admin_token is not the operator credential",
            ))
            .into());
        };
        let ended = self.players.delete(&self.games, &id).await?;
        tracing::info!(player_id = %id, games_ended = ended, "player deleted");
        Ok(Response::new(pb::DeletePlayerResponse {
            games_ended: u32::try_from(ended).unwrap_or(u32::MAX),
        }))
    }

    async fn create_challenge(
        &self,
        request: Request<pb::CreateChallengeRequest>,
    ) -> Result<Response<pb::CreateChallengeResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let caller = caller::player(&self.players, &request).await?;
        let spec = challenge_spec(request.into_inner())?;
        let (made, game) = self.challenges.create(&caller.id, spec).await?;
        tracing::info!(challenge_id = %made.stored.id, "challenge made");
        Ok(Response::new(pb::CreateChallengeResponse {
            challenge: Some(challenge(&made)),
            game: game.as_ref().map(convert::game),
        }))
    }

    async fn accept_challenge(
        &self,
        request: Request<pb::AcceptChallengeRequest>,
    ) -> Result<Response<pb::AcceptChallengeResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let r = request.get_ref();
        let color = convert::color("color", r.color)?;
        let accepted = self
            .challenges
            .accept(&caller.id, &r.challenge_id, color)
            .await?;
        Ok(Response::new(pb::AcceptChallengeResponse {
            challenge: Some(challenge(&accepted.challenge)),
            game: accepted.game.as_ref().map(convert::game),
        }))
    }

    async fn decline_challenge(
        &self,
        request: Request<pb::DeclineChallengeRequest>,
    ) -> Result<Response<pb::DeclineChallengeResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let r = request.get_ref();
        let reason = pb::DeclineReason::try_from(r.reason).map_err(|_| {
            invalid_argument("reason", Reason::UnknownEnumValue, "unknown decline reason")
        })?;
        let declined = self
            .challenges
            .decline(&caller.id, &r.challenge_id, reason.as_str_name())
            .await?;
        Ok(Response::new(pb::DeclineChallengeResponse {
            challenge: Some(challenge(&declined)),
        }))
    }

    async fn cancel_challenge(
        &self,
        request: Request<pb::CancelChallengeRequest>,
    ) -> Result<Response<pb::CancelChallengeResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let id = &request.get_ref().challenge_id;
        let canceled = self.challenges.cancel(&caller.id, id).await?;
        Ok(Response::new(pb::CancelChallengeResponse {
            challenge: Some(challenge(&canceled)),
        }))
    }

    async fn list_challenges(
        &self,
        request: Request<pb::ListChallengesRequest>,
    ) -> Result<Response<pb::ListChallengesResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let (incoming, outgoing) = self.challenges.list(&caller.id).await?;
        Ok(Response::new(pb::ListChallengesResponse {
            incoming: incoming.iter().map(challenge).collect(),
            outgoing: outgoing.iter().map(challenge).collect(),
        }))
    }

    type WatchEventsStream = EventStream;

    async fn watch_events(
        &self,
        request: Request<pb::WatchEventsRequest>,
    ) -> Result<Response<EventStream>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        let start =
            player_events::start(&self.players, &caller.id, &request.get_ref().after).await?;
        let stream = self.streams.watch_events(
            &request,
            caller.id,
            start,
            (self.challenges.clone(), self.players.clone()),
        )?;
        Ok(Response::new(stream))
    }

    type SeekStream = SeekStream;

    async fn seek(
        &self,
        request: Request<pb::SeekRequest>,
    ) -> Result<Response<SeekStream>, Status> {
        admit_create(&self.creates, &request)?;
        let caller = caller::player(&self.players, &request).await?;
        let spec = seek_spec(request.get_ref())?;
        let made = self.seeks.seek(&caller.id, spec).await?;
        tracing::info!(seek_id = %made.id, "seek made");
        match self
            .streams
            .seek(&request, self.seeks.clone(), made.clone())
        {
            Ok(stream) => Ok(Response::new(stream)),
            Err(refused) => {
                self.seeks.end_stream(&made).await;
                Err(refused)
            }
        }
    }

    async fn cancel_seek(
        &self,
        request: Request<pb::CancelSeekRequest>,
    ) -> Result<Response<pb::CancelSeekResponse>, Status> {
        let caller = caller::player(&self.players, &request).await?;
        self.seeks
            .withdraw(&caller.id, &request.get_ref().seek_id)
            .await?;
        Ok(Response::new(pb::CancelSeekResponse {}))
    }

    async fn list_seeks(
        &self,
        request: Request<pb::ListSeeksRequest>,
    ) -> Result<Response<pb::ListSeeksResponse>, Status> {
        let variant = lobby_variant(request.get_ref().variant)?;
        let seeks = self.seeks.lobby().await?;
        Ok(Response::new(pb::ListSeeksResponse {
            seeks: seeks
                .iter()
                .filter(|s| variant.is_none_or(|v| s.variant == v))
                .map(convert::seek)
                .collect(),
        }))
    }

    type WatchLobbyStream = LobbyStream;

    async fn watch_lobby(
        &self,
        request: Request<pb::WatchLobbyRequest>,
    ) -> Result<Response<LobbyStream>, Status> {
        let variant = lobby_variant(request.get_ref().variant)?;
        let stream = self.streams.lobby(&request, &self.seeks, variant)?;
        Ok(Response::new(stream))
    }

    async fn get_rating_history(
        &self,
        request: Request<pb::GetRatingHistoryRequest>,
    ) -> Result<Response<pb::GetRatingHistoryResponse>, Status> {
        let r = request.get_ref();
        let limit = limit("limit", r.limit, 100, 1000)?;
        let history = self
            .players
            .rating_history(&r.player, &r.perf, limit)
            .await?;
        Ok(Response::new(pb::GetRatingHistoryResponse {
            points: history
                .iter()
                .map(|point| pb::RatingPoint {
                    game_id: point.game_id.clone(),
                    rating: point.rating.round() as i32,
                    deviation: point.deviation.round() as i32,
                    diff: convert::clamp_i32(point.diff),
                    at: convert::timestamp(point.at),
                })
                .collect(),
        }))
    }

    async fn get_leaderboard(
        &self,
        request: Request<pb::GetLeaderboardRequest>,
    ) -> Result<Response<pb::GetLeaderboardResponse>, Status> {
        let r = request.get_ref();
        let limit = limit("limit", r.limit, 100, 200)?;
        let ranked = self.players.leaderboard(&r.perf, limit).await?;
        Ok(Response::new(pb::GetLeaderboardResponse {
            entries: ranked
                .iter()
                .map(|line| pb::LeaderboardEntry {
                    player_id: line.player_id.clone(),
                    rating: Some(perf_rating(&r.perf, &line.rating)),
                })
                .collect(),
        }))
    }
}
