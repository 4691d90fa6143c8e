//! Domain values to and from their protobuf messages.

use std::time::Duration;

use prost_types::Timestamp;
use tonic::Status;

pub use super::vocabulary::{illegal_reason, variant, variant_to_pb};
use super::{
    error::{invalid_argument, invalid_position},
    proto as pb, starts,
    vocabulary::termination,
};
pub use crate::games::View;
use crate::{
    engine::Level,
    games::{
        Ending, EngineSeat, FIRST_MOVE_GRACE, GameClock, GameView, MoveView, OutcomeView, SeatSpec,
        Status as GameStatus, TimeControl,
    },
    players::Challenge,
    reason::Reason,
    rules::{
        DrawClaim, GameEnd, MoveDescription, Ranks, RuleChoices, Side, Variant, Verdict,
        referee::{InvalidPosition, Referee, referee_under},
        xiangqi::XiangqiRules,
    },
    store::{ChatRoom, StoredChatLine, StoredSeek},
};

/// How a move's coordinates number xiangqi's ranks; unknown is
/// INVALID_ARGUMENT.
pub fn move_ranks(field: &str, value: i32) -> Result<Ranks, Status> {
    match pb::MoveRanks::try_from(value) {
        Ok(pb::MoveRanks::Unspecified) => Ok(Ranks::AsRules),
        Ok(pb::MoveRanks::FromOne) => Ok(Ranks::FromOne),
        Err(_) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            format!("unknown ranks {value}: MOVE_RANKS_UNSPECIFIED or MOVE_RANKS_FROM_ONE"),
        )),
    }
}

/// A request's chat room; UNSPECIFIED or unknown is INVALID_ARGUMENT.
pub fn chat_room(field: &str, value: i32) -> Result<ChatRoom, Status> {
    match pb::ChatRoom::try_from(value) {
        Ok(pb::ChatRoom::Player) => Ok(ChatRoom::Player),
        Ok(pb::ChatRoom::Spectator) => Ok(ChatRoom::Spectator),
        Ok(pb::ChatRoom::Unspecified) => Err(invalid_argument(
            field,
            Reason::MissingField,
            "a room is required: CHAT_ROOM_PLAYER or CHAT_ROOM_SPECTATOR",
        )),
        Err(_) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            format!("unknown room {value}: CHAT_ROOM_PLAYER or CHAT_ROOM_SPECTATOR"),
        )),
    }
}

/// A stored chat line.
pub fn chat_line(line: &StoredChatLine) -> pb::ChatLine {
    pb::ChatLine {
        seq: line.seq,
        room: match line.room {
            ChatRoom::Player => pb::ChatRoom::Player,
            ChatRoom::Spectator => pb::ChatRoom::Spectator,
        } as i32,
        player_id: line.player_id.clone().unwrap_or_default(),
        username: line.username.clone(),
        text: line.text.clone(),
        sent_at: timestamp(line.sent_at),
    }
}

/// The rule choices of a request about `variant`, from its `field` (a
/// `XiangqiRules`): UNSPECIFIED is Asian; set for chess, or unknown, it is
/// INVALID_ARGUMENT.
pub fn rule_choices(field: &str, variant: Variant, value: i32) -> Result<RuleChoices, Status> {
    let Some(xiangqi) = xiangqi_rules(field, value)? else {
        return Ok(RuleChoices::default());
    };
    if variant != Variant::Xiangqi {
        return Err(invalid_argument(
            field,
            Reason::VariantMismatch,
            format!("xiangqi rules do not apply to {variant}: leave the field unset"),
        ));
    }
    Ok(RuleChoices { xiangqi })
}

/// The xiangqi rules a request's `field` sets (`None`: UNSPECIFIED);
/// INVALID_ARGUMENT when unknown.
pub fn xiangqi_rules(field: &str, value: i32) -> Result<Option<XiangqiRules>, Status> {
    match pb::XiangqiRules::try_from(value) {
        Ok(pb::XiangqiRules::Unspecified) => Ok(None),
        Ok(pb::XiangqiRules::Asian) => Ok(Some(XiangqiRules::Asian)),
        Ok(pb::XiangqiRules::RepetitionDraws) => Ok(Some(XiangqiRules::RepetitionDraws)),
        Ok(pb::XiangqiRules::AsianRefusing) => Ok(Some(XiangqiRules::AsianRefusing)),
        Err(_) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            format!(
                "unknown xiangqi rules {value}: XIANGQI_RULES_ASIAN, \
                 XIANGQI_RULES_REPETITION_DRAWS or XIANGQI_RULES_ASIAN_REFUSING"
            ),
        )),
    }
}

/// A game's xiangqi rules as the protobuf enum (UNSPECIFIED for chess).
pub fn xiangqi_rules_to_pb(variant: Variant, choices: RuleChoices) -> i32 {
    match (variant, choices.xiangqi) {
        (Variant::Xiangqi, XiangqiRules::Asian) => pb::XiangqiRules::Asian as i32,
        (Variant::Xiangqi, XiangqiRules::RepetitionDraws) => {
            pb::XiangqiRules::RepetitionDraws as i32
        }
        (Variant::Xiangqi, XiangqiRules::AsianRefusing) => pb::XiangqiRules::AsianRefusing as i32,
        _ => pb::XiangqiRules::Unspecified as i32,
    }
}

/// Most moves accepted in one position's history.
const MAX_MOVES: usize = 2_000;

/// The `position` of a request: present, with a known variant (recorded in
/// the RPC's span) and a history of at most `MAX_MOVES` moves.
pub fn position(position: Option<&pb::Position>) -> Result<(Variant, &pb::Position), Status> {
    let position = position.ok_or_else(|| {
        invalid_argument("position", Reason::MissingField, "a position is required")
    })?;
    let variant = variant("position.variant", position.variant)?;
    tracing::Span::current().record("variant", variant.name());
    if position.moves.len() > MAX_MOVES {
        return Err(invalid_argument(
            "position.moves",
            Reason::TooLong,
            format!("at most {MAX_MOVES} moves are accepted"),
        ));
    }
    Ok((variant, position))
}

pub fn side(s: Side) -> i32 {
    match s {
        Side::White => pb::Side::White as i32,
        Side::Black => pb::Side::Black as i32,
    }
}

fn opt_side(s: Option<Side>) -> i32 {
    s.map_or(pb::Side::Unspecified as i32, side)
}

pub fn timestamp(millis: i64) -> Option<Timestamp> {
    Some(Timestamp {
        seconds: millis.div_euclid(1000),
        nanos: (millis.rem_euclid(1000) * 1_000_000) as i32,
    })
}

pub fn move_description(d: MoveDescription) -> pb::Move {
    let letter = |c: Option<char>| c.map(String::from).unwrap_or_default();
    pb::Move {
        is_capture: d.is_capture(),
        coordinates: d.uci.into(),
        standard: d.san.into(),
        uci: d.uci.into(),
        san: d.san.into(),
        chinese: d.chinese.map(String::from).unwrap_or_default(),
        from: d.from.into(),
        to: d.to.into(),
        piece: d.piece.to_string(),
        captured: letter(d.captured),
        promotion: letter(d.promotion),
        is_check: d.is_check,
        is_castling: d.is_castling,
        is_en_passant: d.is_en_passant,
    }
}

fn ending(e: Ending) -> pb::Termination {
    match e {
        Ending::Rules(t) => termination(t),
        Ending::Resignation => pb::Termination::Resignation,
        Ending::Agreement => pb::Termination::Agreement,
        Ending::Aborted => pb::Termination::Aborted,
        Ending::AbortedByOperator => pb::Termination::AbortedByOperator,
        Ending::Timeout => pb::Termination::Timeout,
        Ending::TimeoutVsInsufficientMaterial => pb::Termination::TimeoutVsInsufficientMaterial,
        Ending::Unjoined => pb::Termination::Unjoined,
        Ending::Abandoned => pb::Termination::Abandoned,
    }
}

/// A termination filter: `None` for UNSPECIFIED, else the stored code.
pub fn termination_filter(field: &str, value: i32) -> Result<Option<String>, Status> {
    match pb::Termination::try_from(value) {
        Ok(pb::Termination::Unspecified) => Ok(None),
        Ok(t) => Ok(Ending::all()
            .find(|&e| ending(e) == t)
            .map(|e| e.code().to_owned())),
        Err(_) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            "unknown termination",
        )),
    }
}

/// Unix milliseconds of an optional timestamp.
pub fn millis(field: &str, t: Option<&Timestamp>) -> Result<Option<i64>, Status> {
    t.map(|t| {
        if !(0..1_000_000_000).contains(&t.nanos) {
            return Err(invalid_argument(
                field,
                Reason::ValueOutOfRange,
                "nanos must be 0 to 999,999,999",
            ));
        }
        t.seconds
            .checked_mul(1000)
            .and_then(|ms| ms.checked_add(i64::from(t.nanos / 1_000_000)))
            .ok_or_else(|| {
                invalid_argument(field, Reason::ValueOutOfRange, "timestamp out of range")
            })
    })
    .transpose()
}

fn claims(claimable: &[DrawClaim]) -> Vec<i32> {
    claimable
        .iter()
        .map(|c| match c {
            DrawClaim::ThreefoldRepetition => pb::DrawClaim::ThreefoldRepetition as i32,
            DrawClaim::FiftyMoves => pb::DrawClaim::FiftyMoves as i32,
        })
        .collect()
}

/// The outcome of a rules verdict in a game of `variant`.
pub fn verdict(v: &Verdict, variant: Variant) -> pb::Outcome {
    match v.end {
        None => pb::Outcome {
            status: pb::OutcomeStatus::Ongoing as i32,
            winner: pb::Side::Unspecified as i32,
            termination: pb::Termination::Unspecified as i32,
            claimable_draws: claims(&v.claimable),
            description: "ongoing".to_owned(),
        },
        Some(
            end @ GameEnd {
                winner,
                termination: t,
                ..
            },
        ) => pb::Outcome {
            status: if winner.is_some() {
                pb::OutcomeStatus::Decisive
            } else {
                pb::OutcomeStatus::Drawn
            } as i32,
            winner: opt_side(winner),
            termination: termination(t) as i32,
            claimable_draws: Vec::new(),
            description: end.describe(variant),
        },
    }
}

fn outcome(o: &OutcomeView) -> pb::Outcome {
    pb::Outcome {
        status: match o.status {
            GameStatus::Ongoing => pb::OutcomeStatus::Ongoing,
            GameStatus::Decisive => pb::OutcomeStatus::Decisive,
            GameStatus::Drawn => pb::OutcomeStatus::Drawn,
            GameStatus::Aborted => pb::OutcomeStatus::Aborted,
        } as i32,
        winner: opt_side(o.winner),
        termination: o.ending.map_or(pb::Termination::Unspecified, ending) as i32,
        claimable_draws: claims(&o.claimable),
        description: o.description.clone(),
    }
}

pub fn played_move(m: &MoveView) -> pb::PlayedMove {
    pb::PlayedMove {
        ply: m.ply,
        side: side(m.side),
        r#move: Some(move_description(m.description.clone())),
        fen_after: m.fen_after.clone(),
        played_at: timestamp(m.played_at),
    }
}

/// The `view` of a request; UNSPECIFIED is the method's `default`.
pub fn view(value: i32, default: View) -> Result<View, Status> {
    match pb::GameView::try_from(value) {
        Ok(pb::GameView::Unspecified) => Ok(default),
        Ok(pb::GameView::Basic) => Ok(View::Basic),
        Ok(pb::GameView::Full) => Ok(View::Full),
        Err(_) => Err(invalid_argument(
            "view",
            Reason::UnknownEnumValue,
            "unknown view: use GAME_VIEW_BASIC or GAME_VIEW_FULL",
        )),
    }
}

/// The whole game, its moves included.
pub fn game(g: &GameView) -> pb::Game {
    game_in(g, View::Full)
}

/// The game as `view` shows it.
pub fn game_in(g: &GameView, view: View) -> pb::Game {
    let moves = match view {
        View::Full => g.moves.iter().map(played_move).collect(),
        View::Basic => Vec::new(),
    };
    pb::Game {
        id: g.id.to_string(),
        variant: variant_to_pb(g.variant),
        start_fen: g.start_fen.clone(),
        fen: g.fen.clone(),
        turn: opt_side(g.turn),
        ply: g.ply,
        moves,
        outcome: Some(outcome(&g.outcome)),
        white: Some(pb::Seat {
            side: side(Side::White),
            display_name: g.white_name.clone(),
            engine: g.white_engine.map(engine_player),
            open: g.open_seat == Some(Side::White),
            player_id: g.white_player.clone().unwrap_or_default(),
            rating: g.white_rating.map_or(0, |r| clamp_i32(r.before)),
            rating_diff: g.white_rating.map_or(0, |r| clamp_i32(r.diff)),
        }),
        black: Some(pb::Seat {
            side: side(Side::Black),
            display_name: g.black_name.clone(),
            engine: g.black_engine.map(engine_player),
            open: g.open_seat == Some(Side::Black),
            player_id: g.black_player.clone().unwrap_or_default(),
            rating: g.black_rating.map_or(0, |r| clamp_i32(r.before)),
            rating_diff: g.black_rating.map_or(0, |r| clamp_i32(r.diff)),
        }),
        draw_offer: opt_side(g.draw_offer),
        takeback_offer: opt_side(g.takeback_offer),
        clock: g.clock.map(|c| clock(&c, g.turn, g.ply as usize)),
        is_check: g.is_check,
        created_at: timestamp(g.created_at),
        updated_at: timestamp(g.updated_at),
        version: g.version,
        xiangqi_rules: xiangqi_rules_to_pb(g.variant, g.rules),
        rematch_of: g.rematch_of.clone().unwrap_or_default(),
        rematch: g.rematch.clone().unwrap_or_default(),
        rematch_offer: opt_side(g.rematch_offer),
        chess960_start: starts::chess960_number(g.variant, &g.start_fen),
        rated: g.rated,
    }
}

/// `n` within `i32`'s range.
pub fn clamp_i32(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(if n < 0 { i32::MIN } else { i32::MAX })
}

/// A time control as the API writes it.
pub fn time_control_to_pb(control: TimeControl) -> pb::TimeControl {
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    match control {
        TimeControl::Clock {
            initial,
            increment,
            delay,
            grace,
        } => pb::TimeControl {
            initial_ms: millis(initial),
            increment_ms: millis(increment),
            delay_ms: millis(delay),
            days_per_move: 0,
            first_move_grace_ms: millis(grace),
        },
        TimeControl::Correspondence { days_per_move } => pb::TimeControl {
            days_per_move: days_per_move.unwrap_or(0),
            ..Default::default()
        },
    }
}

fn clock(c: &GameClock, turn: Option<Side>, ply: usize) -> pb::Clock {
    pb::Clock {
        control: Some(time_control_to_pb(c.control)),
        white_ms: c.remaining[0],
        black_ms: c.remaining[1],
        running: opt_side(turn.filter(|_| c.runs(ply))),
        since: timestamp(c.turn_started_at),
        deadline: turn
            .and_then(|t| c.deadline(t, ply))
            .and_then(|(d, _)| timestamp(d)),
    }
}

/// The time control of CreateGame.
pub fn time_control(tc: &pb::TimeControl) -> Result<TimeControl, Status> {
    const MAX_INITIAL_MS: u64 = 30 * 86_400_000;
    let field = "time_control";
    match (tc.initial_ms, tc.days_per_move) {
        (0, 0) => Err(invalid_argument(
            field,
            Reason::InvalidTimeControl,
            "set initial_ms (a clock) or days_per_move (correspondence)",
        )),
        (_, 0) if tc.increment_ms > 0 && tc.delay_ms > 0 => Err(invalid_argument(
            field,
            Reason::InvalidTimeControl,
            "a clock has an increment or a delay, not both",
        )),
        (initial, 0)
            if initial <= MAX_INITIAL_MS
                && tc.increment_ms <= MAX_INITIAL_MS
                && tc.delay_ms <= MAX_INITIAL_MS
                && tc.first_move_grace_ms <= MAX_INITIAL_MS =>
        {
            Ok(TimeControl::Clock {
                initial: Duration::from_millis(initial),
                increment: Duration::from_millis(tc.increment_ms),
                delay: Duration::from_millis(tc.delay_ms),
                grace: match tc.first_move_grace_ms {
                    0 => FIRST_MOVE_GRACE,
                    ms => Duration::from_millis(ms),
                },
            })
        }
        (_, 0) => Err(invalid_argument(
            field,
            Reason::InvalidTimeControl,
            "times are limited to 30 days",
        )),
        (0, days)
            if days <= 365
                && tc.increment_ms == 0
                && tc.delay_ms == 0
                && tc.first_move_grace_ms == 0 =>
        {
            Ok(TimeControl::Correspondence {
                days_per_move: Some(days),
            })
        }
        (0, _) => Err(invalid_argument(
            field,
            Reason::InvalidTimeControl,
            "correspondence takes 1 to 365 days_per_move and no increment or delay",
        )),
        _ => Err(invalid_argument(
            field,
            Reason::InvalidTimeControl,
            "initial_ms (a clock) and days_per_move (correspondence) exclude each other",
        )),
    }
}

pub fn engine_player(engine: EngineSeat) -> pb::EnginePlayer {
    pb::EnginePlayer {
        level: u32::from(engine.level.get()),
        movetime_ms: u32::try_from(engine.movetime.as_millis()).unwrap_or(u32::MAX),
    }
}

/// A seat of CreateGame; `field` names it in errors.
pub fn seat(field: &str, seat: Option<pb::SeatRequest>) -> Result<SeatSpec, Status> {
    let seat = seat.unwrap_or_default();
    let engine = match seat.engine {
        None => None,
        Some(e) => {
            let level = match e.level {
                0 => Level::MAX,
                n => Level::new(n).ok_or_else(|| {
                    invalid_argument(
                        &format!("{field}.engine.level"),
                        Reason::ValueOutOfRange,
                        "level must be 0 (full strength) or 1 to 10",
                    )
                })?,
            };
            let movetime = match Duration::from_millis(u64::from(e.movetime_ms)) {
                d if d.is_zero() => EngineSeat::DEFAULT_MOVETIME,
                d if d > EngineSeat::MAX_MOVETIME => {
                    return Err(invalid_argument(
                        &format!("{field}.engine.movetime_ms"),
                        Reason::ValueOutOfRange,
                        format!(
                            "movetime_ms must be at most {}",
                            EngineSeat::MAX_MOVETIME.as_millis()
                        ),
                    ));
                }
                d => d,
            };
            Some(EngineSeat { level, movetime })
        }
    };
    Ok(SeatSpec {
        display_name: seat.display_name,
        engine,
        open: seat.open,
        player: None,
    })
}

/// The referee of `position`, or its problems; INVALID_ARGUMENT if the
/// request does not name a position.
pub(super) fn setup(
    position: Option<&pb::Position>,
) -> Result<Result<Box<dyn Referee>, InvalidPosition>, Status> {
    let (variant, position) = self::position(position)?;
    let choices = rule_choices("position.xiangqi_rules", variant, position.xiangqi_rules)?;
    Ok(referee_under(
        variant,
        choices,
        Some(&position.fen),
        &position.moves,
    ))
}

/// The referee of `position`; INVALID_ARGUMENT with every problem if it is
/// not a valid position.
pub(super) fn record(position: Option<&pb::Position>) -> Result<Box<dyn Referee>, Status> {
    setup(position)?.map_err(|e| invalid_position("position.fen", "position.moves", &e))
}

/// A challenge as the API writes it.
pub fn challenge(c: &Challenge) -> pb::Challenge {
    use crate::players::ChallengeStatus;
    let s = &c.stored;
    let status = match c.status {
        ChallengeStatus::Open => pb::ChallengeStatus::Open,
        ChallengeStatus::Accepted => pb::ChallengeStatus::Accepted,
        ChallengeStatus::Declined => pb::ChallengeStatus::Declined,
        ChallengeStatus::Canceled => pb::ChallengeStatus::Canceled,
        ChallengeStatus::Expired => pb::ChallengeStatus::Expired,
    };
    pb::Challenge {
        id: s.id.clone(),
        challenger_id: s.challenger.clone(),
        destination_id: s.destination.clone().unwrap_or_default(),
        open_to: s.open_to.clone(),
        engine: c.engine().map(engine_player),
        variant: variant_to_pb(s.variant),
        fen: s.start_fen.clone().unwrap_or_default(),
        xiangqi_rules: xiangqi_rules_to_pb(s.variant, c.choices()),
        time_control: c.time_control().map(time_control_to_pb),
        color: color_to_pb(s.color),
        status: status as i32,
        decline_reason: s
            .decline_reason
            .as_deref()
            .and_then(pb::DeclineReason::from_str_name)
            .unwrap_or(pb::DeclineReason::Unspecified) as i32,
        game_id: s.game_id.clone().unwrap_or_default(),
        created_at: timestamp(s.created_at),
        expires_at: timestamp(s.expires_at),
        rated: s.rated,
        for_others: s.for_others,
        chess960_start: starts::chess960_number(
            s.variant,
            s.start_fen.as_deref().unwrap_or_default(),
        ),
    }
}

/// A colour asked for (a challenger's, a seeker's) as the API writes it.
pub fn color_to_pb(color: Option<Side>) -> i32 {
    let color = match color {
        None => pb::ChallengeColor::Unspecified,
        Some(Side::White) => pb::ChallengeColor::White,
        Some(Side::Black) => pb::ChallengeColor::Black,
    };
    color as i32
}

/// The colour a request asks for, from its `field`.
pub fn color(field: &str, value: i32) -> Result<Option<Side>, Status> {
    match pb::ChallengeColor::try_from(value) {
        Ok(pb::ChallengeColor::Unspecified) => Ok(None),
        Ok(pb::ChallengeColor::White) => Ok(Some(Side::White)),
        Ok(pb::ChallengeColor::Black) => Ok(Some(Side::Black)),
        Err(_) => Err(invalid_argument(
            field,
            Reason::UnknownEnumValue,
            format!("unknown colour {value}"),
        )),
    }
}

/// A seek as the API writes it.
pub fn seek(s: &StoredSeek) -> pb::Seek {
    let bound = |rating: Option<i64>| rating.map_or(0, clamp_i32);
    pb::Seek {
        id: s.id.clone(),
        player_id: s.player.clone(),
        rating: clamp_i32(s.rating),
        variant: variant_to_pb(s.variant),
        xiangqi_rules: xiangqi_rules_to_pb(
            s.variant,
            RuleChoices::named(s.xiangqi_rules.as_deref()),
        ),
        time_control: Some(time_control_to_pb(TimeControl::from_stored(&s.clock))),
        rated: s.rated,
        rating_min: bound(s.rating_min),
        rating_max: bound(s.rating_max),
        color: color_to_pb(s.color),
        created_at: timestamp(s.created_at),
    }
}
