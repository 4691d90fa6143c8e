//! The account: which player a token names, their profile and games in
//! play, another player's profile, and the upgrade to a bot account.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};

use super::{
    Services,
    answer::Answer,
    form::Call,
    shapes::{self, Profile},
};
use crate::api::proto::{self as pb, games_server::Games as _, players_server::Players as _};

/// Tokens `/api/token/test` reads at once: it checks each, and a caller
/// must not test more than a few per call.
const MAX_TESTED_TOKENS: usize = 16;

/// What a player token may do, in Lichess's scope names: everything these
/// endpoints serve.
const SCOPES: &str = "bot:play,board:play,challenge:read,challenge:write,preference:read";

/// How long a looked-up profile is told again without reading it anew.
const PROFILE_FRESH: Duration = Duration::from_secs(60);
/// Profiles one answer or stream keeps.
const PROFILES_KEPT: usize = 64;

/// The profiles one answer or one stream looked up: a stream names the
/// same few players line after line, and a rating a minute old is as
/// Lichess tells it.
#[derive(Default)]
pub(super) struct Profiles {
    known: HashMap<String, (Instant, Profile)>,
}

impl Profiles {
    /// The profile of the player `id` names, if any (an anonymous seat or a
    /// player deleted since: none).
    pub(super) async fn get(
        &mut self,
        services: &Services,
        call: &Call,
        id: &str,
    ) -> Option<Profile> {
        if id.is_empty() {
            return None;
        }
        if let Some((at, profile)) = self.known.get(id)
            && at.elapsed() < PROFILE_FRESH
        {
            return Some(profile.clone());
        }
        let profile = services.profile(call, id).await.ok()?;
        if self.known.len() >= PROFILES_KEPT {
            self.known.retain(|_, (at, _)| at.elapsed() < PROFILE_FRESH);
            if self.known.len() >= PROFILES_KEPT {
                self.known.clear();
            }
        }
        self.known
            .insert(id.to_owned(), (Instant::now(), profile.clone()));
        Some(profile)
    }
}

impl Services {
    /// The player `id`'s profile, read with `call`'s credentials.
    pub(super) async fn profile(&self, call: &Call, id: &str) -> Result<Profile, tonic::Status> {
        let player = self
            .players
            .get_player(call.request(pb::GetPlayerRequest {
                player: id.to_owned(),
            }))
            .await?
            .into_inner()
            .player
            .unwrap_or_default();
        Ok(Profile::of(player))
    }

    /// The calling player's profile; a call without a player token is
    /// refused as Lichess refuses it.
    pub(super) async fn me(&self, call: &Call) -> Result<(Profile, i64), Answer> {
        if call.token().is_none() {
            return Err(Answer::no_such_token());
        }
        let player = self
            .players
            .get_player(call.request(pb::GetPlayerRequest::default()))
            .await?
            .into_inner()
            .player
            .unwrap_or_default();
        let created_at = shapes::millis(player.created_at.as_ref());
        Ok((Profile::of(player), created_at))
    }
}

/// `POST /api/token/test`: the tokens of the body (comma-separated), each
/// with its player and scopes, or null.
pub(super) async fn test_tokens(services: &Services, call: &Call) -> Answer {
    let body = String::from_utf8_lossy(&call.body);
    let tokens: Vec<&str> = body
        .split(',')
        .map(str::trim)
        .filter(|token| !token.is_empty())
        .collect();
    if tokens.len() > MAX_TESTED_TOKENS {
        return Answer::bad_request(format!(
            "at most {MAX_TESTED_TOKENS} tokens are tested at once"
        ));
    }
    let mut answers = Map::new();
    let mut refused = false;
    for token in tokens {
        let found = services.players.players.authenticate(token).await;
        let answer = match found {
            Ok(id) => json!({ "scopes": SCOPES, "userId": id, "expires": Value::Null }),
            Err(_) => {
                refused = true;
                Value::Null
            }
        };
        answers.insert(token.to_owned(), answer);
    }
    let answer = Answer::json(Value::Object(answers));
    if refused {
        answer.refusing_credential()
    } else {
        answer
    }
}

/// `GET /api/account`.
pub(super) async fn account(services: &Services, call: &Call) -> Answer {
    match services.me(call).await {
        Ok((me, created_at)) => Answer::json(me.user(created_at)),
        Err(refused) => refused,
    }
}

/// `GET /api/user/{username}`.
pub(super) async fn user(services: &Services, call: &Call, username: &str) -> Answer {
    match services
        .players
        .get_player(call.request(pb::GetPlayerRequest {
            player: username.to_owned(),
        }))
        .await
    {
        Ok(found) => {
            let player = found.into_inner().player.unwrap_or_default();
            let created_at = shapes::millis(player.created_at.as_ref());
            Answer::json(Profile::of(player).user(created_at))
        }
        Err(status) => status.into(),
    }
}

/// `GET /api/account/playing`: the caller's games in play.
pub(super) async fn playing(services: &Services, call: &Call) -> Answer {
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    let listed = services
        .games
        .list_games(call.request(pb::ListGamesRequest {
            status: pb::GameStatusFilter::Ongoing as i32,
            player_id: me.id.clone(),
            page_size: 50,
            ..Default::default()
        }))
        .await;
    let games = match listed {
        Ok(listed) => listed.into_inner().games,
        Err(status) => return status.into(),
    };
    let mut now_playing = Vec::with_capacity(games.len());
    let mut profiles = Profiles::default();
    for game in &games {
        now_playing.push(services.game_event(call, &mut profiles, game, &me.id).await);
    }
    Answer::json(json!({ "nowPlaying": now_playing }))
}

/// `POST /api/bot/account/upgrade`.
pub(super) async fn upgrade(services: &Services, call: &Call) -> Answer {
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    match services.players.players.make_bot(&me.id).await {
        Ok(()) => Answer::ok(),
        Err(error) => tonic::Status::from(error).into(),
    }
}

impl Services {
    /// `game` as the event stream tells it to the player `me`.
    pub(super) async fn game_event(
        &self,
        call: &Call,
        profiles: &mut Profiles,
        game: &pb::Game,
        me: &str,
    ) -> Value {
        let seat_of = |seat: &Option<pb::Seat>| seat.as_ref().map(|s| s.player_id.clone());
        let white = seat_of(&game.white).unwrap_or_default();
        let black = seat_of(&game.black).unwrap_or_default();
        let (side, opponent) = if white == me {
            (pb::Side::White as i32, black)
        } else {
            (pb::Side::Black as i32, white)
        };
        let opponent = profiles.get(self, call, &opponent).await;
        shapes::game_event(game, side, opponent.as_ref())
    }
}
