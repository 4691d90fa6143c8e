//! Arbiter's messages in Lichess's JSON shapes: games, game states,
//! challenges, users. Times in milliseconds where Lichess sends them so
//! (clocks, dates), seconds where it does (a challenge's time control).
//! Xiangqi keeps every field a chess client reads and adds none it does
//! not: its moves are coordinates with ranks 1-10, as pychess-variants and
//! Fairy-Stockfish write them.

use std::time::Duration;

use serde_json::{Value, json};

use crate::{
    api::proto as pb,
    games::model::{Speed, TimeControl, perf},
    rules::{Ranks, Variant},
    store::StoredChatLine,
};

/// Chess's standard start: a game from it is `standard`, from any other
/// position `fromPosition`.
const CHESS_START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Lichess's variants of chess: ours, its protobuf value, Lichess's short
/// name (the key and name are the variant's `name` and `title`).
const CHESS_VARIANTS: [(Variant, pb::Variant, &str); 7] = [
    (Variant::Crazyhouse, pb::Variant::Crazyhouse, "Crazy"),
    (Variant::Antichess, pb::Variant::Antichess, "Anti"),
    (Variant::Atomic, pb::Variant::Atomic, "Atom"),
    (Variant::Horde, pb::Variant::Horde, "Horde"),
    (Variant::KingOfTheHill, pb::Variant::KingOfTheHill, "KotH"),
    (Variant::RacingKings, pb::Variant::RacingKings, "Race"),
    (Variant::ThreeCheck, pb::Variant::ThreeCheck, "3check"),
];

/// The Lichess variant of chess whose key is `key`.
pub(super) fn chess_variant(key: &str) -> Option<pb::Variant> {
    CHESS_VARIANTS
        .iter()
        .find(|(variant, _, _)| variant.name() == key)
        .map(|&(_, value, _)| value)
}

/// Lichess's clock value for a side without one.
const NO_CLOCK_MS: i64 = 2_147_483_647;

/// A player as a game or a challenge names them.
#[derive(Clone, Debug, Default)]
pub(super) struct Profile {
    pub id: String,
    pub username: String,
    pub bot: bool,
    pub ratings: Vec<pb::PerfRating>,
}

impl Profile {
    pub fn of(player: pb::Player) -> Profile {
        Profile {
            id: player.id,
            username: player.username,
            bot: player.bot,
            ratings: player.ratings,
        }
    }

    fn title(&self) -> Value {
        if self.bot { json!("BOT") } else { Value::Null }
    }

    fn rating_in(&self, perf: &str) -> Option<&pb::PerfRating> {
        self.ratings.iter().find(|rating| rating.perf == perf)
    }

    /// The light user of challenges: id, name, title, rating.
    pub fn light(&self, perf: &str) -> Value {
        let rating = self.rating_in(perf);
        json!({
            "id": self.id,
            "name": self.username,
            "title": self.title(),
            "rating": rating.map_or(1500, |r| r.rating),
            "provisional": rating.is_none_or(|r| r.provisional),
            "online": true,
        })
    }

    /// The account or public user: `perfs` keyed as Lichess keys chess's
    /// (`blitz`), other games' under their own names (`xiangqi_blitz`).
    pub fn user(&self, created_at_ms: i64) -> Value {
        let perfs: serde_json::Map<String, Value> = self
            .ratings
            .iter()
            .map(|rating| {
                (
                    perf_key(&rating.perf),
                    json!({
                        "games": rating.games,
                        "rating": rating.rating,
                        "rd": rating.deviation,
                        "prog": 0,
                        "prov": rating.provisional,
                    }),
                )
            })
            .collect();
        let mut user = json!({
            "id": self.id,
            "username": self.username,
            "perfs": perfs,
            "createdAt": created_at_ms,
            "url": format!("/@/{}", self.username),
        });
        if self.bot {
            user["title"] = json!("BOT");
        }
        user
    }
}

/// `chess_ultrabullet` → `ultraBullet`, `chess_blitz` → `blitz`;
/// other games' perfs as they are.
fn perf_key(perf: &str) -> String {
    match perf.strip_prefix("chess_") {
        Some("ultrabullet") => "ultraBullet".to_owned(),
        Some(speed) => speed.to_owned(),
        None => perf.to_owned(),
    }
}

fn is_xiangqi(variant: i32) -> bool {
    variant == pb::Variant::Xiangqi as i32
}

/// Arbiter's perf name of a game of `variant` at `speed`.
pub(super) fn perf_of(variant: i32, speed: Speed) -> String {
    let variant = match pb::Variant::try_from(variant) {
        Ok(pb::Variant::Xiangqi) => Variant::Xiangqi,
        Ok(pb::Variant::Chess960) => Variant::Chess960,
        Ok(value) => CHESS_VARIANTS
            .iter()
            .find(|(_, v, _)| *v == value)
            .map_or(Variant::Chess, |&(variant, _, _)| variant),
        Err(_) => Variant::Chess,
    };
    perf(variant, speed)
}

/// `variant{key,name,short}`.
pub(super) fn variant(variant: i32, start_fen: &str) -> Value {
    if is_xiangqi(variant) {
        json!({"key": "xiangqi", "name": "Xiangqi", "short": "Xiangqi"})
    } else if variant == pb::Variant::Chess960 as i32 {
        json!({"key": "chess960", "name": "Chess960", "short": "960"})
    } else if let Some((lichess, _, short)) =
        CHESS_VARIANTS.iter().find(|(_, v, _)| *v as i32 == variant)
    {
        json!({"key": lichess.name(), "name": lichess.title(), "short": short})
    } else if start_fen.is_empty() || start_fen == CHESS_START {
        json!({"key": "standard", "name": "Standard", "short": "Std"})
    } else {
        json!({"key": "fromPosition", "name": "From Position", "short": "FEN"})
    }
}

/// The speed of a game or challenge with `control` (none: unlimited, which
/// Lichess counts as correspondence).
pub(super) fn speed(control: Option<&pb::TimeControl>) -> Speed {
    let Some(control) = control.filter(|c| c.days_per_move == 0 && c.initial_ms > 0) else {
        return Speed::Correspondence;
    };
    Speed::of(TimeControl::Clock {
        initial: Duration::from_millis(control.initial_ms),
        increment: Duration::from_millis(control.increment_ms),
        delay: Duration::from_millis(control.delay_ms),
        grace: Duration::ZERO,
    })
}

/// Lichess's name of `speed` (`ultraBullet`, `blitz`).
pub(super) fn speed_key(speed: Speed) -> &'static str {
    match speed {
        Speed::UltraBullet => "ultraBullet",
        other => other.name(),
    }
}

/// Lichess's perf name of a game: the speed's, capitalised (`Blitz`), or
/// the variant's.
fn perf_name(variant: i32, speed: Speed) -> &'static str {
    if is_xiangqi(variant) {
        return "Xiangqi";
    }
    match speed {
        Speed::UltraBullet => "UltraBullet",
        Speed::Bullet => "Bullet",
        Speed::Blitz => "Blitz",
        Speed::Rapid => "Rapid",
        Speed::Classical => "Classical",
        Speed::Correspondence => "Correspondence",
    }
}

/// Lichess's status of a game: its name and number.
pub(super) fn status(game: &pb::Game) -> (&'static str, u32) {
    use pb::Termination as T;
    let Some(outcome) = game.outcome.as_ref() else {
        return ("started", 20);
    };
    // A game exists here once both seats are taken: on Lichess that is
    // `started` (bots take any other status for the game's end).
    if outcome.status == pb::OutcomeStatus::Ongoing as i32 {
        return ("started", 20);
    }
    match T::try_from(outcome.termination).unwrap_or(T::Unspecified) {
        T::Checkmate => ("mate", 30),
        T::Resignation => ("resign", 31),
        T::Abandoned => ("timeout", 33),
        T::Stalemate => ("stalemate", 32),
        T::Timeout => ("outoftime", 35),
        T::Aborted | T::AbortedByOperator => ("aborted", 25),
        T::Unjoined => ("noStart", 37),
        T::PerpetualCheck
        | T::PerpetualChase
        | T::Explosion
        | T::AllPiecesLost
        | T::KingInTheCentre
        | T::ThreeChecks
        | T::RaceFinished
        | T::HordeDestroyed => ("variantEnd", 60),
        T::InsufficientMaterial
        | T::ThreefoldRepetition
        | T::FivefoldRepetition
        | T::FiftyMoves
        | T::SeventyFiveMoves
        | T::MoveLimit
        | T::Agreement
        | T::TimeoutVsInsufficientMaterial => ("draw", 34),
        T::Unspecified => ("unknownFinish", 38),
    }
}

/// `white` or `black` for a side, as Lichess names colours.
pub(super) fn color(side: i32) -> Option<&'static str> {
    match pb::Side::try_from(side) {
        Ok(pb::Side::White) => Some("white"),
        Ok(pb::Side::Black) => Some("black"),
        _ => None,
    }
}

fn winner(game: &pb::Game) -> Option<&'static str> {
    game.outcome
        .as_ref()
        .filter(|o| o.status == pb::OutcomeStatus::Decisive as i32)
        .and_then(|o| color(o.winner))
}

/// A move of `game` as Lichess clients write it.
fn coordinates(variant: i32, played: &pb::PlayedMove) -> String {
    let uci = played
        .r#move
        .as_ref()
        .map_or_else(String::new, |m| m.uci.clone());
    if is_xiangqi(variant) {
        Ranks::FromOne.write(uci)
    } else {
        uci
    }
}

fn clock_ms(game: &pb::Game, side: pb::Side) -> i64 {
    match game.clock.as_ref() {
        Some(clock) if clock.control.as_ref().is_some_and(|c| c.initial_ms > 0) => {
            if side == pb::Side::White {
                clock.white_ms
            } else {
                clock.black_ms
            }
        }
        _ => NO_CLOCK_MS,
    }
}

fn increment_ms(game: &pb::Game) -> u64 {
    game.clock
        .as_ref()
        .and_then(|clock| clock.control.as_ref())
        .map_or(0, |control| control.increment_ms)
}

/// `gameState`: the moves from the start, the clocks, the status, the
/// offers.
pub(super) fn game_state(game: &pb::Game) -> Value {
    let moves: Vec<String> = game
        .moves
        .iter()
        .map(|played| coordinates(game.variant, played))
        .collect();
    let increment = increment_ms(game);
    let mut state = json!({
        "type": "gameState",
        "moves": moves.join(" "),
        "wtime": clock_ms(game, pb::Side::White),
        "btime": clock_ms(game, pb::Side::Black),
        "winc": increment,
        "binc": increment,
        "status": status(game).0,
        "wdraw": game.draw_offer == pb::Side::White as i32,
        "bdraw": game.draw_offer == pb::Side::Black as i32,
        "wtakeback": game.takeback_offer == pb::Side::White as i32,
        "btakeback": game.takeback_offer == pb::Side::Black as i32,
    });
    if let Some(winner) = winner(game) {
        state["winner"] = json!(winner);
    }
    state
}

pub(super) fn millis(at: Option<&prost_types::Timestamp>) -> i64 {
    at.map_or(0, |t| t.seconds * 1000 + i64::from(t.nanos) / 1_000_000)
}

/// One side of a game in `gameFull`: its player (`profile`), an engine
/// (`aiLevel`), or an anonymous seat by its name.
fn game_player(seat: Option<&pb::Seat>, profile: Option<&Profile>, perf: &str) -> Value {
    let seat = seat.cloned().unwrap_or_default();
    if let Some(engine) = seat.engine {
        return json!({ "aiLevel": engine.level });
    }
    match profile {
        Some(profile) => {
            let mut player = profile.light(perf);
            if seat.rating != 0 {
                player["rating"] = json!(seat.rating);
            }
            player
        }
        None => json!({ "id": Value::Null, "name": seat.display_name }),
    }
}

/// `gameFull`: the game's terms and players, then its state.
pub(super) fn game_full(
    game: &pb::Game,
    white: Option<&Profile>,
    black: Option<&Profile>,
) -> Value {
    let control = game.clock.as_ref().and_then(|c| c.control.as_ref());
    let speed = speed(control);
    let perf = perf_of(game.variant, speed);
    let clock = control
        .filter(|c| c.initial_ms > 0)
        .map(|c| json!({ "initial": c.initial_ms, "increment": c.increment_ms }));
    let days = control.map_or(0, |c| c.days_per_move);
    let mut full = json!({
        "type": "gameFull",
        "id": game.id,
        "variant": variant(game.variant, &game.start_fen),
        "clock": clock,
        "daysPerTurn": (days > 0).then_some(days),
        "speed": speed_key(speed),
        "perf": { "name": perf_name(game.variant, speed) },
        "rated": game.rated,
        "createdAt": millis(game.created_at.as_ref()),
        "white": game_player(game.white.as_ref(), white, &perf),
        "black": game_player(game.black.as_ref(), black, &perf),
        "initialFen": if game.start_fen.is_empty() || game.start_fen == CHESS_START {
            "startpos".to_owned()
        } else {
            game.start_fen.clone()
        },
        "state": game_state(game),
    });
    // Absent rather than null, as Lichess sends them: clients read
    // `clock.initial` with a default only when `clock` is missing.
    if let Value::Object(fields) = &mut full {
        fields.retain(|_, value| !value.is_null());
    }
    full
}

/// A game as the event stream and `/api/account/playing` tell it to the
/// player of `side`, whose opponent is `opponent`.
pub(super) fn game_event(game: &pb::Game, side: i32, opponent: Option<&Profile>) -> Value {
    let control = game.clock.as_ref().and_then(|c| c.control.as_ref());
    let speed = speed(control);
    let perf = perf_of(game.variant, speed);
    let (status_name, status_id) = status(game);
    let opponent_seat = if side == pb::Side::White as i32 {
        game.black.as_ref()
    } else {
        game.white.as_ref()
    };
    let opponent_json = match (opponent_seat.and_then(|s| s.engine), opponent) {
        (Some(engine), _) => {
            json!({ "id": Value::Null, "username": format!("AI level {}", engine.level), "ai": engine.level })
        }
        (None, Some(profile)) => json!({
            "id": profile.id,
            "username": profile.username,
            "rating": profile.light(&perf)["rating"],
        }),
        (None, None) => json!({
            "id": Value::Null,
            "username": opponent_seat.map(|s| s.display_name.clone()).unwrap_or_default(),
        }),
    };
    let last_move = game
        .moves
        .last()
        .map(|played| coordinates(game.variant, played));
    let mut event = json!({
        "gameId": game.id,
        "fullId": game.id,
        "id": game.id,
        "color": color(side),
        "fen": game.fen,
        "hasMoved": game.moves.iter().any(|played| played.side == side),
        "isMyTurn": game.turn == side && status_id < 25,
        "lastMove": last_move.unwrap_or_default(),
        "opponent": opponent_json,
        "perf": speed_key(speed),
        "rated": game.rated,
        "secondsLeft": (clock_ms(game, if side == pb::Side::White as i32 { pb::Side::White } else { pb::Side::Black }) / 1000),
        "source": if opponent_seat.is_some_and(|s| s.engine.is_some()) { "ai" } else { "friend" },
        "status": { "id": status_id, "name": status_name },
        "speed": speed_key(speed),
        "variant": variant(game.variant, &game.start_fen),
        "compat": { "bot": true, "board": true },
    });
    if let Some(winner) = winner(game) {
        event["winner"] = json!(winner);
    }
    event
}

/// A game as a spectator's stream starts with it (and ends with it, when
/// the game ends): its terms, position, players and status.
pub(super) fn spectated(game: &pb::Game) -> Value {
    let control = game.clock.as_ref().and_then(|c| c.control.as_ref());
    let speed = speed(control);
    let (status_name, status_id) = status(game);
    let mut value = json!({
        "id": game.id,
        "variant": variant(game.variant, &game.start_fen),
        "speed": speed_key(speed),
        "perf": speed_key(speed),
        "rated": game.rated,
        "fen": game.fen,
        "turns": game.ply,
        "player": color(game.turn),
        "status": { "id": status_id, "name": status_name },
        "createdAt": millis(game.created_at.as_ref()),
        "lastMove": game.moves.last().map(|played| coordinates(game.variant, played)).unwrap_or_default(),
        "players": players(game),
    });
    if let Some(winner) = winner(game) {
        value["winner"] = json!(winner);
    }
    value
}

/// `players{white,black}` of an exported or spectated game: each side's
/// user, rating and rating change, or engine level.
fn players(game: &pb::Game) -> Value {
    let player = |seat: Option<&pb::Seat>| {
        let seat = seat.cloned().unwrap_or_default();
        if let Some(engine) = seat.engine {
            return json!({ "aiLevel": engine.level });
        }
        let mut player = json!({
            "user": { "id": seat.player_id, "name": seat.display_name },
            "rating": seat.rating,
        });
        if seat.rating_diff != 0 {
            player["ratingDiff"] = json!(seat.rating_diff);
        }
        player
    };
    json!({ "white": player(game.white.as_ref()), "black": player(game.black.as_ref()) })
}

/// A game as Lichess exports it in JSON: its terms, players, status and
/// moves (chess in SAN, xiangqi in coordinates with ranks 1-10, as the game
/// streams write them).
pub(super) fn exported(game: &pb::Game, moves: bool) -> Value {
    let control = game.clock.as_ref().and_then(|c| c.control.as_ref());
    let speed = speed(control);
    let mut value = json!({
        "id": game.id,
        "rated": game.rated,
        "variant": variant(game.variant, &game.start_fen)["key"],
        "speed": speed_key(speed),
        "perf": speed_key(speed),
        "createdAt": millis(game.created_at.as_ref()),
        "lastMoveAt": millis(game.updated_at.as_ref()),
        "status": status(game).0,
        "players": players(game),
    });
    if let Some(winner) = winner(game) {
        value["winner"] = json!(winner);
    }
    if moves {
        let written: Vec<String> = game
            .moves
            .iter()
            .map(|played| match played.r#move.as_ref() {
                Some(m) if !is_xiangqi(game.variant) => m.san.clone(),
                _ => coordinates(game.variant, played),
            })
            .collect();
        value["moves"] = json!(written.join(" "));
    }
    if let Some(control) = control.filter(|c| c.initial_ms > 0) {
        let (initial, increment) = (control.initial_ms / 1000, control.increment_ms / 1000);
        value["clock"] = json!({
            "initial": initial,
            "increment": increment,
            "totalTime": initial + 40 * increment,
        });
    }
    if game.start_fen != CHESS_START && !game.start_fen.is_empty() && !is_xiangqi(game.variant) {
        value["initialFen"] = json!(game.start_fen);
    }
    value
}

/// A move as a spectator's stream tells it: the position after it, the
/// move, both clocks in seconds.
pub(super) fn spectated_move(game: &pb::Game, played: &pb::PlayedMove) -> Value {
    json!({
        "fen": game.fen,
        "lm": coordinates(game.variant, played),
        "wc": clock_ms(game, pb::Side::White) / 1000,
        "bc": clock_ms(game, pb::Side::Black) / 1000,
    })
}

/// `chatLine`: a line said in a game's chat.
pub(super) fn chat_line(line: &StoredChatLine) -> Value {
    json!({
        "type": "chatLine",
        "room": line.room.name(),
        "username": line.username,
        "text": line.text,
    })
}

/// The opponent left (`gone`, the claim allowed in `claim_in` seconds) or
/// came back.
pub(super) fn opponent_gone(gone: bool, claim_in: u64) -> Value {
    if gone {
        json!({"type": "opponentGone", "gone": true, "claimWinInSeconds": claim_in})
    } else {
        json!({"type": "opponentGone", "gone": false})
    }
}

/// A challenge; `direction` `in` or `out` as seen by the caller.
pub(super) fn challenge(
    challenge: &pb::Challenge,
    challenger: Option<&Profile>,
    destination: Option<&Profile>,
    direction: Option<&str>,
) -> Value {
    let control = challenge.time_control.as_ref();
    let speed = speed(control);
    let perf = perf_of(challenge.variant, speed);
    let time_control = match control {
        Some(c) if c.days_per_move > 0 => {
            json!({ "type": "correspondence", "daysPerTurn": c.days_per_move })
        }
        Some(c) if c.initial_ms > 0 => json!({
            "type": "clock",
            "limit": c.initial_ms / 1000,
            "increment": c.increment_ms / 1000,
            "show": format!("{}+{}", show_minutes(c.initial_ms), c.increment_ms / 1000),
        }),
        _ => json!({ "type": "unlimited" }),
    };
    let color = match pb::ChallengeColor::try_from(challenge.color) {
        Ok(pb::ChallengeColor::White) => "white",
        Ok(pb::ChallengeColor::Black) => "black",
        _ => "random",
    };
    let status = match pb::ChallengeStatus::try_from(challenge.status) {
        Ok(pb::ChallengeStatus::Accepted) => "accepted",
        Ok(pb::ChallengeStatus::Declined) => "declined",
        Ok(pb::ChallengeStatus::Canceled) => "canceled",
        Ok(pb::ChallengeStatus::Expired) => "offline",
        _ => "created",
    };
    let mut value = json!({
        "id": challenge.id,
        "url": format!("/{}", challenge.id),
        "status": status,
        "challenger": challenger.map(|p| p.light(&perf)),
        "destUser": destination.map(|p| p.light(&perf)),
        "variant": variant(challenge.variant, &challenge.fen),
        "rated": challenge.rated,
        "speed": speed_key(speed),
        "timeControl": time_control,
        "color": color,
        "finalColor": if color == "random" { Value::Null } else { json!(color) },
        "perf": { "name": perf_name(challenge.variant, speed) },
    });
    if let Some(direction) = direction {
        value["direction"] = json!(direction);
    }
    if challenge.for_others {
        value["open"] = if challenge.open_to.is_empty() {
            json!({})
        } else {
            json!({ "userIds": challenge.open_to })
        };
        value["urlWhite"] = json!(format!("/{}?color=white", challenge.id));
        value["urlBlack"] = json!(format!("/{}?color=black", challenge.id));
    }
    if !challenge.fen.is_empty() {
        value["initialFen"] = json!(challenge.fen);
    }
    if challenge.decline_reason != 0 {
        value["declineReason"] = json!(decline_reason_text(challenge.decline_reason));
        value["declineReasonKey"] = json!(decline_reason_key(challenge.decline_reason));
    }
    value
}

/// `3` for three minutes, `½` for thirty seconds, as Lichess shows them.
fn show_minutes(initial_ms: u64) -> String {
    match initial_ms {
        15_000 => "¼".to_owned(),
        30_000 => "½".to_owned(),
        45_000 => "¾".to_owned(),
        90_000 => "1.5".to_owned(),
        ms => (ms / 60_000).to_string(),
    }
}

/// The decline reasons Lichess names, and Arbiter's.
const DECLINE_REASONS: [(&str, pb::DeclineReason, &str); 5] = [
    (
        "generic",
        pb::DeclineReason::Unspecified,
        "I'm not accepting challenges at the moment.",
    ),
    (
        "later",
        pb::DeclineReason::Later,
        "I'm not accepting challenges right now, please ask again later.",
    ),
    (
        "tooFast",
        pb::DeclineReason::TooFast,
        "This time control is too fast for me, please challenge again with a slower game.",
    ),
    (
        "tooSlow",
        pb::DeclineReason::TooSlow,
        "This time control is too slow for me, please challenge again with a faster game.",
    ),
    (
        "variant",
        pb::DeclineReason::Variant,
        "I'm not willing to play this variant right now.",
    ),
];

fn decline_reason_key(reason: i32) -> &'static str {
    if reason == pb::DeclineReason::TimeControl as i32 {
        return "timeControl";
    }
    DECLINE_REASONS
        .iter()
        .find(|(_, r, _)| *r as i32 == reason)
        .map_or("generic", |(key, _, _)| key)
}

fn decline_reason_text(reason: i32) -> &'static str {
    if reason == pb::DeclineReason::TimeControl as i32 {
        return "I'm not accepting challenges with this time control.";
    }
    DECLINE_REASONS
        .iter()
        .find(|(_, r, _)| *r as i32 == reason)
        .map_or(DECLINE_REASONS[0].2, |(_, _, text)| text)
}

/// Arbiter's decline reason for Lichess's key (the reasons Arbiter has no
/// word for read as the generic one).
pub(super) fn decline_reason(key: &str) -> pb::DeclineReason {
    if key.eq_ignore_ascii_case("timeControl") {
        return pb::DeclineReason::TimeControl;
    }
    DECLINE_REASONS
        .iter()
        .find(|(k, _, _)| k.eq_ignore_ascii_case(key))
        .map_or(pb::DeclineReason::Unspecified, |(_, reason, _)| *reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(initial_s: u64, increment_s: u64) -> pb::TimeControl {
        pb::TimeControl {
            initial_ms: initial_s * 1000,
            increment_ms: increment_s * 1000,
            ..Default::default()
        }
    }

    #[test]
    fn speeds_are_lichess_names() {
        assert_eq!(speed_key(speed(Some(&clock(15, 0)))), "ultraBullet");
        assert_eq!(speed_key(speed(Some(&clock(180, 2)))), "blitz");
        assert_eq!(speed_key(speed(None)), "correspondence");
        assert_eq!(perf_key("chess_blitz"), "blitz");
        assert_eq!(perf_key("chess_ultrabullet"), "ultraBullet");
        assert_eq!(perf_key("xiangqi_rapid"), "xiangqi_rapid");
    }

    #[test]
    fn xiangqi_moves_are_written_with_ranks_from_one() {
        let played = pb::PlayedMove {
            r#move: Some(pb::Move {
                uci: "h2e2".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(coordinates(pb::Variant::Xiangqi as i32, &played), "h3e3");
        assert_eq!(coordinates(pb::Variant::Chess as i32, &played), "h2e2");
    }

    #[test]
    fn decline_reasons_read_both_ways() {
        for key in [
            "generic",
            "later",
            "tooFast",
            "tooSlow",
            "timeControl",
            "variant",
        ] {
            assert_eq!(decline_reason_key(decline_reason(key) as i32), key);
        }
        assert_eq!(decline_reason("noBot"), pb::DeclineReason::Unspecified);
    }
}
