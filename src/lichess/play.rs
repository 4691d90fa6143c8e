//! A player's game: its stream (`gameFull`, then a `gameState` whenever
//! the state changes, closed when the game ends) and the actions (move,
//! abort, resign, draw and takeback answers, claims, chat), the same for
//! the Bot and the Board API.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::{
    sync::{mpsc, watch},
    time::Instant,
};
use tokio_stream::{StreamExt, wrappers::ReceiverStream};
use tonic::Status;

use super::{Services, account::Profiles, answer::Answer, form::Call, shapes};
use crate::{
    api::{
        GamesService,
        proto::{self as pb, games_server::Games as GamesApi},
    },
    games::{Attendance, GameId, Games},
    rules::Side,
    store::StoredChatLine,
};

/// Lines waiting for the reader.
const QUEUED: usize = 16;
/// How long a player is away before their opponent hears they left (a
/// stream reconnecting at once is not told), at most the claim's wait.
const GONE_AFTER: Duration = Duration::from_secs(5);

fn no_such_game() -> Answer {
    Answer::not_found("No such game")
}

/// The side `player` holds in `game`, if any.
fn side_of(game: &pb::Game, player: &str) -> Option<Side> {
    let holds = |seat: &Option<pb::Seat>| seat.as_ref().is_some_and(|s| s.player_id == player);
    if holds(&game.white) {
        Some(Side::White)
    } else if holds(&game.black) {
        Some(Side::Black)
    } else {
        None
    }
}

fn is_over(game: &pb::Game) -> bool {
    game.outcome
        .as_ref()
        .is_some_and(|o| o.status != pb::OutcomeStatus::Ongoing as i32)
}

/// Game `id`'s events in `view`, and the game as the first tells it.
async fn watch(
    services: &Services,
    call: &Call,
    id: &str,
    view: pb::GameView,
) -> Result<(<GamesService as GamesApi>::WatchGameStream, pb::Game), Answer> {
    let watched = services
        .games
        .watch_game(call.request(pb::WatchGameRequest {
            game_id: id.to_owned(),
            view: view as i32,
            ..Default::default()
        }))
        .await;
    let mut events = watched?.into_inner();
    match events.next().await {
        Some(Ok(first)) => Ok((events, first.game.unwrap_or_default())),
        Some(Err(status)) => Err(status.into()),
        None => Err(no_such_game()),
    }
}

/// `GET /api/{bot,board}/game/stream/{id}`.
pub(super) async fn stream(services: &Services, call: &Call, id: &str) -> Answer {
    let (me, _) = match services.me(call).await {
        Ok(me) => me,
        Err(refused) => return refused,
    };
    let (events, game) = match watch(services, call, id, pb::GameView::Full).await {
        Ok(watched) => watched,
        Err(refused) => return refused,
    };
    let Some(side) = side_of(&game, &me.id) else {
        return no_such_game();
    };
    let player = |seat: &Option<pb::Seat>| {
        seat.as_ref()
            .map(|s| s.player_id.clone())
            .unwrap_or_default()
    };
    let mut profiles = Profiles::default();
    let white = profiles.get(services, call, &player(&game.white)).await;
    let black = profiles.get(services, call, &player(&game.black)).await;
    let full = shapes::game_full(&game, white.as_ref(), black.as_ref());
    let (tx, rx) = mpsc::channel(QUEUED);
    // Bounded: a queue of one line less than the channel's.
    let _ = tx.try_send(full);
    if !is_over(&game) {
        let last = shapes::game_state(&game);
        let games = &services.games.games;
        // Well formed: the watch found the game.
        let Ok(id) = GameId::parse(id) else {
            return no_such_game();
        };
        let attendance = match games.attend(&id, side).await {
            Ok(attendance) => attendance,
            Err(error) => return Answer::from(Status::from(error)),
        };
        let chat = Chat::open(games.clone(), &id, me.id).await;
        let opponent = Opponent::new(games.clone(), &id, side.other());
        tokio::spawn(follow(events, tx, last, (chat, opponent), attendance));
    }
    Answer::Stream(Box::pin(ReceiverStream::new(rx)))
}

/// The chat of a player's game stream: the lines they may read, from those
/// said after the stream opened.
struct Chat {
    games: Games,
    id: GameId,
    reader: String,
    bell: watch::Receiver<u64>,
    /// The last line told.
    after: i64,
    /// The bell rang and the lines since are not all read (a read cut
    /// short by the stream's other work goes on at the next call).
    rung: bool,
    /// Lines read and not told yet.
    read: Vec<Value>,
}

impl Chat {
    async fn open(games: Games, id: &GameId, reader: String) -> Chat {
        let bell = games.listen_chat(id);
        let mut chat = Chat {
            games,
            id: id.clone(),
            reader,
            bell,
            after: 0,
            rung: false,
            read: Vec::new(),
        };
        // Skips the lines said before.
        while chat.read().await.is_some_and(|lines| !lines.is_empty()) {}
        chat
    }

    /// The lines after the last told (None: the chat cannot be read now).
    async fn read(&mut self) -> Option<Vec<StoredChatLine>> {
        let lines = self
            .games
            .chat(&self.id, Some(&self.reader), self.after)
            .await
            .ok()?;
        if let Some(last) = lines.last() {
            self.after = last.seq;
        }
        Some(lines)
    }

    /// The `chatLine`s of the lines said since the last told, once the bell
    /// rings.
    async fn next_lines(&mut self) -> Vec<Value> {
        if !self.rung {
            if self.bell.changed().await.is_err() {
                return std::future::pending().await;
            }
            self.rung = true;
        }
        while let Some(lines) = self.read().await
            && !lines.is_empty()
        {
            self.read.extend(lines.iter().map(shapes::chat_line));
        }
        self.rung = false;
        std::mem::take(&mut self.read)
    }
}

/// The opponent's presence, told in `opponentGone` lines when it changes.
struct Opponent {
    games: Games,
    id: GameId,
    side: Side,
    bell: watch::Receiver<u64>,
    /// The last line told: gone, and the seconds until the claim.
    told: Option<(bool, u64)>,
    /// When to look again without the bell (the claim's wait ending).
    look_at: Option<Instant>,
}

impl Opponent {
    fn new(games: Games, id: &GameId, side: Side) -> Opponent {
        let bell = games.listen_presence(id);
        Opponent {
            games,
            id: id.clone(),
            side,
            bell,
            told: None,
            look_at: None,
        }
    }

    /// The next `opponentGone` line: when the bell rings or a wait ends.
    async fn next_line(&mut self) -> Value {
        loop {
            let wait = self.look_at;
            tokio::select! {
                rung = self.bell.changed() => {
                    if rung.is_err() {
                        return std::future::pending().await;
                    }
                }
                () = async {
                    match wait {
                        Some(at) => tokio::time::sleep_until(at).await,
                        None => std::future::pending().await,
                    }
                } => {}
            }
            if let Some(line) = self.look().await {
                return line;
            }
        }
    }

    /// Looks at the opponent's presence: the line to tell, if it changed.
    async fn look(&mut self) -> Option<Value> {
        self.look_at = None;
        let absence = self.games.absence(&self.id, self.side).await.ok()?;
        let now = Instant::now();
        let gone_after = GONE_AFTER.min(self.games.claim_victory_after());
        let seen = match absence {
            Some(absence) if absence.away >= gone_after => {
                if !absence.claim_in.is_zero() {
                    self.look_at = Some(now + absence.claim_in);
                }
                (true, absence.claim_in.as_secs_f64().ceil() as u64)
            }
            Some(absence) => {
                self.look_at = Some(now + (gone_after - absence.away));
                (false, 0)
            }
            None => (false, 0),
        };
        let told_gone = self.told.is_some_and(|(gone, _)| gone);
        if self.told == Some(seen) || (!seen.0 && !told_gone) {
            return None;
        }
        self.told = Some(seen);
        Some(shapes::opponent_gone(seen.0, seen.1))
    }
}

/// Sends a `gameState` whenever the game's state differs from the `last`
/// one sent, a `chatLine` for each line said and an `opponentGone` when the
/// opponent leaves or comes back, until the game ends or the reader goes;
/// the player is at the board meanwhile.
async fn follow(
    mut events: impl tokio_stream::Stream<Item = Result<pb::WatchGameResponse, Status>> + Unpin,
    tx: mpsc::Sender<Value>,
    mut last: Value,
    (mut chat, mut opponent): (Chat, Opponent),
    _attendance: Attendance,
) {
    if let Some(line) = opponent.look().await
        && tx.send(line).await.is_err()
    {
        return;
    }
    loop {
        let next = tokio::select! {
            () = tx.closed() => return,
            lines = chat.next_lines() => {
                for line in lines {
                    if tx.send(line).await.is_err() {
                        return;
                    }
                }
                continue;
            }
            line = opponent.next_line() => {
                if tx.send(line).await.is_err() {
                    return;
                }
                continue;
            }
            next = events.next() => next,
        };
        let Some(Ok(event)) = next else { return };
        let Some(game) = event.game else { continue };
        let state = shapes::game_state(&game);
        if state != last {
            if tx.send(state.clone()).await.is_err() {
                return;
            }
            last = state;
        }
        if is_over(&game) {
            return;
        }
        // A change in the game restarts the opponent's time away.
        if opponent.told.is_some_and(|(gone, _)| gone)
            && let Some(line) = opponent.look().await
            && tx.send(line).await.is_err()
        {
            return;
        }
    }
}

/// `GET /api/stream/game/{id}`: anyone may watch. The game first, then a
/// line per move, then the game again when it ends.
pub(super) async fn spectate(services: &Services, call: &Call, id: &str) -> Answer {
    let (mut events, game) = match watch(services, call, id, pb::GameView::Basic).await {
        Ok(watched) => watched,
        Err(refused) => return refused,
    };
    let (tx, rx) = mpsc::channel(QUEUED);
    let _ = tx.try_send(shapes::spectated(&game));
    if !is_over(&game) {
        tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    () = tx.closed() => return,
                    next = events.next() => next,
                };
                let Some(Ok(event)) = next else { return };
                let Some(game) = event.game else { continue };
                if let Some(played) = event.r#move.as_ref()
                    && tx
                        .send(shapes::spectated_move(&game, played))
                        .await
                        .is_err()
                {
                    return;
                }
                if is_over(&game) {
                    let _ = tx.send(shapes::spectated(&game)).await;
                    return;
                }
            }
        });
    }
    Answer::Stream(Box::pin(ReceiverStream::new(rx)))
}

/// Calls the Games RPC `$rpc` with a `pb::$request` for game `$id` (and
/// the fields given), answering only whether it was done.
macro_rules! on_game {
    ($services:expr, $call:expr, $id:expr, $rpc:ident, $request:ident $(, $field:ident: $value:expr)*) => {
        $services
            .games
            .$rpc($call.request(pb::$request {
                game_id: $id.to_owned(),
                $($field: $value,)*
                ..Default::default()
            }))
            .await
            .map(drop)
    };
}

/// `POST /api/{bot,board}/game/{id}/…`.
pub(super) async fn act(services: &Services, call: &Call, id: &str, action: &[&str]) -> Answer {
    let acted = match action {
        ["move", uci] => make_move(services, call, id, uci).await,
        ["abort"] => on_game!(services, call, id, abort, AbortRequest),
        ["resign"] => on_game!(services, call, id, resign, ResignRequest),
        ["draw", answer @ ("yes" | "no")] => {
            offer(services, call, id, Offer::Draw, *answer == "yes").await
        }
        ["takeback", answer @ ("yes" | "no")] => {
            offer(services, call, id, Offer::Takeback, *answer == "yes").await
        }
        ["claim-draw"] => on_game!(services, call, id, claim_draw, ClaimDrawRequest),
        ["claim-victory"] => on_game!(services, call, id, claim_victory, ClaimVictoryRequest),
        ["chat"] => say(services, call, id).await,
        _ => return Answer::not_found("no such endpoint"),
    };
    match acted {
        Ok(()) => Answer::ok(),
        Err(status) => status.into(),
    }
}

/// A move in Lichess's coordinates, then the draw offer that may come with
/// it (`offeringDraw=true`).
async fn make_move(services: &Services, call: &Call, id: &str, text: &str) -> Result<(), Status> {
    on_game!(services, call, id, make_move, MakeMoveRequest,
        r#move: text.to_owned(),
        ranks: pb::MoveRanks::FromOne as i32)?;
    if call.flag("offeringDraw").ok().flatten() == Some(true) {
        on_game!(services, call, id, offer_draw, OfferDrawRequest)?;
    }
    Ok(())
}

#[derive(Clone, Copy)]
enum Offer {
    Draw,
    Takeback,
}

/// `yes`: accepts the opponent's offer, or makes one; `no`: declines the
/// opponent's, if they made one.
async fn offer(
    services: &Services,
    call: &Call,
    id: &str,
    offer: Offer,
    yes: bool,
) -> Result<(), Status> {
    let game = services.game(call, id).await?;
    let pending = match offer {
        Offer::Draw => game.draw_offer,
        Offer::Takeback => game.takeback_offer,
    };
    let (me, _) = services
        .me(call)
        .await
        .map_err(|_| Status::unauthenticated("No such token"))?;
    let mine = side_of(&game, &me.id).ok_or_else(|| Status::not_found("No such game"))?;
    let mine = match mine {
        Side::White => pb::Side::White,
        Side::Black => pb::Side::Black,
    };
    let theirs = pending != 0 && pending != mine as i32;
    match (offer, theirs) {
        (_, false) if !yes => Ok(()),
        (Offer::Draw, true) => {
            on_game!(services, call, id, respond_to_draw, RespondToDrawRequest, accept: yes)
        }
        (Offer::Takeback, true) => {
            on_game!(services, call, id, respond_to_takeback, RespondToTakebackRequest, accept: yes)
        }
        (Offer::Draw, false) => on_game!(services, call, id, offer_draw, OfferDrawRequest),
        (Offer::Takeback, false) => {
            on_game!(services, call, id, propose_takeback, ProposeTakebackRequest)
        }
    }
}

/// `POST …/chat`: a line in the players' or the spectators' room.
async fn say(services: &Services, call: &Call, id: &str) -> Result<(), Status> {
    let room = match call.field("room") {
        Some("player") => pb::ChatRoom::Player,
        Some("spectator") => pb::ChatRoom::Spectator,
        _ => return Err(Status::invalid_argument("room must be player or spectator")),
    };
    let text = call.field("text").unwrap_or_default().to_owned();
    services
        .games
        .send_chat(call.request(pb::SendChatRequest {
            game_id: id.to_owned(),
            room: room as i32,
            text,
        }))
        .await
        .map(drop)
}

/// `GET /api/{bot,board}/game/{id}/chat`: the lines the caller may read,
/// oldest first.
pub(super) async fn chat(services: &Services, call: &Call, id: &str) -> Answer {
    let mut lines = Vec::new();
    let mut after = 0;
    loop {
        let read = services
            .games
            .list_chat(call.request(pb::ListChatRequest {
                game_id: id.to_owned(),
                after,
            }))
            .await;
        let read = match read {
            Ok(read) => read.into_inner().lines,
            Err(status) => return status.into(),
        };
        let Some(last) = read.last() else { break };
        after = last.seq;
        lines.extend(
            read.iter()
                .map(|line| json!({ "user": line.username, "text": line.text })),
        );
    }
    Answer::json(Value::Array(lines))
}

impl Services {
    /// Game `id` without its moves.
    async fn game(&self, call: &Call, id: &str) -> Result<pb::Game, Status> {
        let game = self
            .games
            .get_game(call.request(pb::GetGameRequest {
                game_id: id.to_owned(),
                view: pb::GameView::Basic as i32,
            }))
            .await?
            .into_inner()
            .game;
        game.ok_or_else(|| Status::not_found("No such game"))
    }
}
