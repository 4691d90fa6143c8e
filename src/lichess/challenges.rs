//! Challenges: to a player by username, to Arbiter's engine, and the
//! answers to them.

use serde_json::{Value, json};
use tokio_stream::StreamExt;

use super::{Services, account::Profiles, answer::Answer, form::Call, shapes};
use crate::api::proto::{self as pb, players_server::Players as _};

/// Lichess's AI levels, 1-8, on Arbiter's engine levels, 1-10.
fn engine_level(lichess: u64) -> Option<u32> {
    let level = u32::try_from(lichess)
        .ok()
        .filter(|l| (1..=8).contains(l))?;
    // 1 → 1 and 8 → 10, evenly between.
    Some(1 + ((level - 1) * 9 + 3) / 7)
}

/// The `color` asked for: `random` (the default), `white` or `black`.
fn color(call: &Call) -> Result<pb::ChallengeColor, Answer> {
    match call.field("color").unwrap_or("random") {
        "random" => Ok(pb::ChallengeColor::Unspecified),
        "white" => Ok(pb::ChallengeColor::White),
        "black" => Ok(pb::ChallengeColor::Black),
        other => Err(Answer::bad_request(format!(
            "color must be random, white or black, not {other:?}"
        ))),
    }
}

/// The terms of a challenge from `call`'s fields.
fn terms(call: &Call) -> Result<pb::CreateChallengeRequest, Answer> {
    let variant = match call.field("variant").unwrap_or("standard") {
        "standard" | "fromPosition" => pb::Variant::Chess,
        "chess960" => pb::Variant::Chess960,
        "xiangqi" => pb::Variant::Xiangqi,
        key if let Some(variant) = shapes::chess_variant(key) => variant,
        other => {
            return Err(Answer::bad_request(format!(
                "variant {other:?} is not played here: standard, fromPosition, chess960, xiangqi, \
                 crazyhouse, antichess, atomic, horde, kingOfTheHill, racingKings or threeCheck"
            )));
        }
    };
    let limit = call.number("clock.limit")?;
    let increment = call.number("clock.increment")?;
    let days = call.number("days")?;
    let time_control = match (limit, days) {
        (Some(_), Some(_)) => {
            return Err(Answer::bad_request("give clock.limit or days, not both"));
        }
        (Some(limit), None) => Some(pb::TimeControl {
            initial_ms: limit.saturating_mul(1000),
            increment_ms: increment.unwrap_or(0).saturating_mul(1000),
            ..Default::default()
        }),
        (None, Some(days)) => Some(pb::TimeControl {
            days_per_move: u32::try_from(days).unwrap_or(u32::MAX),
            ..Default::default()
        }),
        (None, None) => None,
    };
    let color = color(call)?;
    Ok(pb::CreateChallengeRequest {
        variant: variant as i32,
        fen: call.field("fen").unwrap_or_default().to_owned(),
        time_control,
        color: color as i32,
        rated: call.flag("rated")?.unwrap_or(false),
        ..Default::default()
    })
}

impl Services {
    /// `challenge` as Lichess shows it to the player `me`.
    pub(super) async fn challenge_json(
        &self,
        call: &Call,
        profiles: &mut Profiles,
        challenge: &pb::Challenge,
        me: &str,
    ) -> Value {
        let challenger = if challenge.for_others {
            None
        } else {
            profiles.get(self, call, &challenge.challenger_id).await
        };
        let destination = profiles.get(self, call, &challenge.destination_id).await;
        let direction = if challenge.challenger_id == me {
            "out"
        } else {
            "in"
        };
        shapes::challenge(
            challenge,
            challenger.as_ref(),
            destination.as_ref(),
            Some(direction),
        )
    }
}

/// Makes the challenge `request`.
async fn make(
    services: &Services,
    call: &Call,
    request: pb::CreateChallengeRequest,
) -> Result<pb::CreateChallengeResponse, Answer> {
    match services
        .players
        .create_challenge(call.request(request))
        .await
    {
        Ok(made) => Ok(made.into_inner()),
        Err(status) => Err(status.into()),
    }
}

/// `POST /api/challenge/{username}`.
pub(super) async fn create(services: &Services, call: &Call, username: &str) -> Answer {
    let mut request = match terms(call) {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    request.destination_id = username.to_lowercase();
    challenge(services, call, request).await
}

/// `POST /api/challenge/open`: a challenge for two other players, any (or
/// the two `users` names, the first playing white); the first to accept
/// takes a seat, the second starts the game.
pub(super) async fn open(services: &Services, call: &Call) -> Answer {
    let mut request = match terms(call) {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    request.for_others = true;
    request.open_to = call
        .field("users")
        .map(|users| {
            users
                .split(',')
                .map(|user| user.trim().to_lowercase())
                .filter(|user| !user.is_empty())
                .collect()
        })
        .unwrap_or_default();
    challenge(services, call, request).await
}

/// Makes the challenge `request` and answers with it.
async fn challenge(
    services: &Services,
    call: &Call,
    request: pb::CreateChallengeRequest,
) -> Answer {
    let made = match make(services, call, request).await {
        Ok(made) => made,
        Err(refused) => return refused,
    };
    let challenge = made.challenge.unwrap_or_default();
    let json = services
        .challenge_json(
            call,
            &mut Profiles::default(),
            &challenge,
            &challenge.challenger_id,
        )
        .await;
    Answer::json(json)
}

/// `POST /api/challenge/ai`: a game against Arbiter's engine, started at
/// once.
pub(super) async fn engine(services: &Services, call: &Call) -> Answer {
    let mut request = match terms(call) {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    let level = match call.number("level") {
        Ok(Some(level)) => level,
        Ok(None) => return Answer::bad_request("level is required (1 to 8)"),
        Err(refused) => return refused,
    };
    let Some(level) = engine_level(level) else {
        return Answer::bad_request("level must be 1 to 8");
    };
    request.engine = Some(pb::EnginePlayer {
        level,
        ..Default::default()
    });
    let made = match make(services, call, request).await {
        Ok(made) => made,
        Err(refused) => return refused,
    };
    let Some(game) = made.game else {
        return Answer::error(
            http::StatusCode::INTERNAL_SERVER_ERROR,
            "the engine's game did not start",
        );
    };
    let me = made.challenge.unwrap_or_default().challenger_id;
    let side = if game.white.as_ref().is_some_and(|s| s.player_id == me) {
        "white"
    } else {
        "black"
    };
    let control = game.clock.as_ref().and_then(|c| c.control.as_ref());
    let speed = shapes::speed(control);
    let (status_name, status_id) = shapes::status(&game);
    Answer::json(json!({
        "id": game.id,
        "fullId": game.id,
        "variant": shapes::variant(game.variant, &game.start_fen),
        "speed": shapes::speed_key(speed),
        "perf": shapes::speed_key(speed),
        "rated": game.rated,
        "fen": game.fen,
        "turns": game.ply,
        "source": "ai",
        "status": { "id": status_id, "name": status_name },
        "createdAt": shapes::millis(game.created_at.as_ref()),
        "player": side,
    }))
}

/// `POST /api/board/seek`: a real-time seek (`time` in minutes,
/// `increment` in seconds) held while the request stays open, answered with
/// keep-alive lines until the pool pairs it, when the answer ends (the game
/// comes on the event stream); a correspondence seek (`days`) answered at
/// once with its id.
pub(super) async fn seek(services: &Services, call: &Call) -> Answer {
    let request = match seek_terms(call) {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    let correspondence = request
        .time_control
        .as_ref()
        .is_some_and(|c| c.days_per_move > 0);
    let mut sought = match services.players.seek(call.request(request)).await {
        Ok(sought) => sought.into_inner(),
        Err(status) => return status.into(),
    };
    if correspondence {
        return match sought.next().await {
            Some(Ok(first)) => Answer::json(json!({ "id": first.seek.unwrap_or_default().id })),
            Some(Err(status)) => status.into(),
            None => Answer::error(http::StatusCode::SERVICE_UNAVAILABLE, "the seek ended"),
        };
    }
    // Only keep-alives: the seek's messages are not Lichess's.
    Answer::Stream(Box::pin(sought.filter_map(|_| None::<Value>)))
}

/// A seek's terms from `call`'s fields.
fn seek_terms(call: &Call) -> Result<pb::SeekRequest, Answer> {
    let variant = match call.field("variant").unwrap_or("standard") {
        "standard" => pb::Variant::Chess,
        "chess960" => pb::Variant::Chess960,
        "xiangqi" => pb::Variant::Xiangqi,
        key if let Some(variant) = shapes::chess_variant(key) => variant,
        other => {
            return Err(Answer::bad_request(format!(
                "variant {other:?} is not sought here: standard, chess960, xiangqi, crazyhouse, \
                 antichess, atomic, horde, kingOfTheHill, racingKings or threeCheck"
            )));
        }
    };
    let time_control = match (call.field("time"), call.number("days")?) {
        (Some(minutes), None) => {
            let minutes: f64 = minutes
                .parse()
                .ok()
                .filter(|m: &f64| m.is_finite() && *m > 0.0 && *m <= 180.0)
                .ok_or_else(|| {
                    Answer::bad_request("time must be minutes, above 0 and at most 180")
                })?;
            pb::TimeControl {
                // Whole milliseconds of at most three hours: no loss.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                initial_ms: (minutes * 60_000.0).round() as u64,
                increment_ms: call.number("increment")?.unwrap_or(0).saturating_mul(1000),
                ..Default::default()
            }
        }
        (None, Some(days)) => pb::TimeControl {
            days_per_move: u32::try_from(days).unwrap_or(u32::MAX),
            ..Default::default()
        },
        _ => return Err(Answer::bad_request("give time (and increment) or days")),
    };
    let (rating_min, rating_max) = match call.field("ratingRange") {
        None => (0, 0),
        Some(range) => range
            .split_once('-')
            .and_then(|(low, high)| Some((low.trim().parse().ok()?, high.trim().parse().ok()?)))
            .ok_or_else(|| Answer::bad_request("ratingRange must be low-high, e.g. 1500-1800"))?,
    };
    let color = color(call)?;
    Ok(pb::SeekRequest {
        variant: variant as i32,
        time_control: Some(time_control),
        rated: call.flag("rated")?.unwrap_or(false),
        rating_min,
        rating_max,
        color: color as i32,
        ..Default::default()
    })
}

/// `GET /api/challenge`: `in` (to the caller) and `out` (theirs).
pub(super) async fn list(services: &Services, call: &Call) -> Answer {
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    let listed = match services
        .players
        .list_challenges(call.request(pb::ListChallengesRequest::default()))
        .await
    {
        Ok(listed) => listed.into_inner(),
        Err(status) => return status.into(),
    };
    let mut profiles = Profiles::default();
    let mut incoming = Vec::with_capacity(listed.incoming.len());
    for challenge in &listed.incoming {
        incoming.push(
            services
                .challenge_json(call, &mut profiles, challenge, &me.id)
                .await,
        );
    }
    let mut outgoing = Vec::with_capacity(listed.outgoing.len());
    for challenge in &listed.outgoing {
        outgoing.push(
            services
                .challenge_json(call, &mut profiles, challenge, &me.id)
                .await,
        );
    }
    Answer::json(json!({ "in": incoming, "out": outgoing }))
}

/// `POST /api/challenge/{id}/accept`, with the `color` the first player
/// to accept a challenge made for others asks for.
pub(super) async fn accept(services: &Services, call: &Call, id: &str) -> Answer {
    let color = match color(call) {
        Ok(color) => color,
        Err(refused) => return refused,
    };
    let request = call.request(pb::AcceptChallengeRequest {
        challenge_id: id.to_owned(),
        color: color as i32,
    });
    match services.players.accept_challenge(request).await {
        Ok(_) => Answer::ok(),
        Err(status) => status.into(),
    }
}

/// `POST /api/challenge/{id}/decline`, with a `reason` key.
pub(super) async fn decline(services: &Services, call: &Call, id: &str) -> Answer {
    let reason = shapes::decline_reason(call.field("reason").unwrap_or("generic"));
    let request = call.request(pb::DeclineChallengeRequest {
        challenge_id: id.to_owned(),
        reason: reason as i32,
    });
    match services.players.decline_challenge(request).await {
        Ok(_) => Answer::ok(),
        Err(status) => status.into(),
    }
}

/// `POST /api/challenge/{id}/cancel`.
pub(super) async fn cancel(services: &Services, call: &Call, id: &str) -> Answer {
    let request = call.request(pb::CancelChallengeRequest {
        challenge_id: id.to_owned(),
    });
    match services.players.cancel_challenge(request).await {
        Ok(_) => Answer::ok(),
        Err(status) => status.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lichess_levels_span_the_engines() {
        let levels: Vec<u32> = (1..=8).filter_map(engine_level).collect();
        assert_eq!(levels, [1, 2, 4, 5, 6, 7, 9, 10]);
        assert_eq!(engine_level(0), None);
        assert_eq!(engine_level(9), None);
    }
}
