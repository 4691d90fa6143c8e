//! Games exported: one game (`GET /game/export/{id}`), a player's games
//! (`GET /api/games/user/{username}`, newest or oldest first) and games by id
//! (`POST /api/games/export/_ids`), streamed as PGN, or as NDJSON when the
//! client accepts `application/x-ndjson`.

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Status;

use super::{Services, answer::Answer, form::Call, shapes};
use crate::{
    api::proto::{self as pb, games_server::Games as _},
    games::GameId,
};

/// Games a page of ListGames holds: a stream reads the next page when its
/// reader has taken this one.
const PAGE: i32 = 50;
/// Exported games waiting for the reader.
const QUEUED: usize = 8;
/// Games `/api/games/export/_ids` exports at once, as Lichess's.
const MAX_IDS: usize = 300;

const NDJSON: &str = "application/x-ndjson";
const JSON: &str = "application/json";
const PGN: &str = "application/x-chess-pgn";

/// Which of a player's games, and how they are written.
struct Query {
    player: String,
    /// Only games with this player on the other side.
    vs: Option<String>,
    since: Option<prost_types::Timestamp>,
    until: Option<prost_types::Timestamp>,
    max: Option<u64>,
    rated: Option<bool>,
    /// Lichess speed keys (`blitz`, `rapid`…); empty: any.
    perfs: Vec<String>,
    color: Option<pb::Side>,
    status: pb::GameStatusFilter,
    oldest_first: bool,
    written: Written,
}

/// How each game is written.
#[derive(Clone, Copy)]
struct Written {
    ndjson: bool,
    moves: bool,
    pgn_in_json: bool,
    /// The PGN's tags.
    tags: bool,
    /// Each move's clock in the PGN.
    clocks: bool,
    /// The stored analysis's evaluations in the PGN.
    evals: bool,
    /// The opening in the JSON (the PGN always names it).
    opening: bool,
}

impl Written {
    /// The options of `call`, as JSON when it accepts `json` (else PGN);
    /// clocks and evaluations by default for one game, as on Lichess.
    fn read(call: &Call, json: &str, one_game: bool) -> Result<Written, Answer> {
        Ok(Written {
            ndjson: call.accepts(json),
            moves: call.flag("moves")?.unwrap_or(true),
            pgn_in_json: call.flag("pgnInJson")?.unwrap_or(false),
            tags: call.flag("tags")?.unwrap_or(true),
            clocks: call.flag("clocks")?.unwrap_or(one_game),
            evals: call.flag("evals")?.unwrap_or(one_game),
            opening: call.flag("opening")?.unwrap_or(one_game),
        })
    }
}

fn timestamp(call: &Call, name: &str) -> Result<Option<prost_types::Timestamp>, Answer> {
    Ok(call.number(name)?.map(|ms| prost_types::Timestamp {
        seconds: i64::try_from(ms / 1000).unwrap_or(i64::MAX),
        nanos: ((ms % 1000) * 1_000_000) as i32,
    }))
}

impl Query {
    fn read(call: &Call, player: String, vs: Option<String>) -> Result<Query, Answer> {
        let finished = call.flag("finished")?.unwrap_or(true);
        let ongoing = call.flag("ongoing")?.unwrap_or(false);
        let status = match (finished, ongoing) {
            (true, true) => pb::GameStatusFilter::Unspecified,
            (true, false) => pb::GameStatusFilter::Finished,
            (false, true) => pb::GameStatusFilter::Ongoing,
            (false, false) => {
                return Err(Answer::bad_request(
                    "finished and ongoing cannot both be false",
                ));
            }
        };
        let oldest_first = match call.field("sort") {
            None | Some("dateDesc") => false,
            Some("dateAsc") => true,
            Some(other) => {
                return Err(Answer::bad_request(format!(
                    "sort must be dateDesc or dateAsc, not {other:?}"
                )));
            }
        };
        let color = match call.field("color") {
            None => None,
            Some("white") => Some(pb::Side::White),
            Some("black") => Some(pb::Side::Black),
            Some(other) => {
                return Err(Answer::bad_request(format!(
                    "color must be white or black, not {other:?}"
                )));
            }
        };
        Ok(Query {
            player,
            vs,
            since: timestamp(call, "since")?,
            until: timestamp(call, "until")?,
            max: call.number("max")?,
            rated: call.flag("rated")?,
            perfs: call
                .field("perfType")
                .map(|perfs| perfs.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
            color,
            status,
            oldest_first,
            written: Written::read(call, NDJSON, false)?,
        })
    }

    /// Whether `game` (as listed) is one the query asks for.
    fn wants(&self, game: &pb::Game) -> bool {
        fn player(seat: Option<&pb::Seat>) -> Option<&str> {
            seat.map(|s| s.player_id.as_str())
        }
        let (white, black) = (player(game.white.as_ref()), player(game.black.as_ref()));
        let side = if white == Some(self.player.as_str()) {
            pb::Side::White
        } else {
            pb::Side::Black
        };
        let opponent = if side == pb::Side::White {
            black
        } else {
            white
        };
        let speed = shapes::speed_key(shapes::speed(
            game.clock.as_ref().and_then(|c| c.control.as_ref()),
        ));
        self.color.is_none_or(|color| color == side)
            && self.vs.as_deref().is_none_or(|vs| opponent == Some(vs))
            && (self.perfs.is_empty() || self.perfs.iter().any(|perf| perf == speed))
    }
}

/// `GET /game/export/{id}`: the game's PGN, or its JSON when asked for.
pub(super) async fn game(services: &Services, call: &Call, id: &str) -> Answer {
    let written = match Written::read(call, JSON, true) {
        Ok(written) => written,
        Err(refused) => return refused,
    };
    match write(services, call, id, written).await {
        Ok(text) if written.ndjson => Answer::Texts {
            texts: Box::pin(tokio_stream::once(text)),
            content_type: JSON,
        },
        Ok(pgn) => Answer::Pgn(pgn),
        Err(status) => status.into(),
    }
}

/// `GET /api/games/user/{username}`.
pub(super) async fn user(services: &Services, call: &Call, username: &str) -> Answer {
    let player = match services.profile(call, username).await {
        Ok(player) => player.id,
        Err(status) => return status.into(),
    };
    let vs = match call.field("vs") {
        None => None,
        Some(vs) => match services.profile(call, vs).await {
            Ok(opponent) => Some(opponent.id),
            Err(status) => return status.into(),
        },
    };
    let query = match Query::read(call, player, vs) {
        Ok(query) => query,
        Err(refused) => return refused,
    };
    let ndjson = query.written.ndjson;
    exporting(services, call, ndjson, async move |services, call, tx| {
        send_games(&services, &call, &query, &tx).await;
    })
}

/// `POST /api/games/export/_ids`: the games the body names
/// (comma-separated), in its order; unknown ones are left out.
pub(super) async fn by_id(services: &Services, call: &Call) -> Answer {
    let body = String::from_utf8_lossy(&call.body);
    let ids: Vec<String> = body
        .split(',')
        .map(str::trim)
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    if ids.len() > MAX_IDS {
        return Answer::bad_request(format!("at most {MAX_IDS} game ids at once"));
    }
    let written = match Written::read(call, NDJSON, false) {
        Ok(written) => written,
        Err(refused) => return refused,
    };
    exporting(
        services,
        call,
        written.ndjson,
        async move |services, call, tx| {
            for id in &ids {
                if let Ok(text) = write(&services, &call, id, written).await
                    && tx.send(text).await.is_err()
                {
                    return;
                }
            }
        },
    )
}

/// A stream of exported games, NDJSON or PGN, that `send` writes into
/// while the reader stays; it holds one of the address's stream places.
fn exporting<F>(
    services: &Services,
    call: &Call,
    ndjson: bool,
    send: impl FnOnce(Services, Call, mpsc::Sender<String>) -> F,
) -> Answer
where
    F: Future<Output = ()> + Send + 'static,
{
    let place = match services.games.export_place(call.remote_addr()) {
        Ok(place) => place,
        Err(status) => return status.into(),
    };
    let (tx, rx) = mpsc::channel(QUEUED);
    let closed = tx.clone();
    let sending = send(services.clone(), call.clone(), tx);
    tokio::spawn(async move {
        let _place = place;
        tokio::select! {
            () = closed.closed() => {}
            () = sending => {}
        }
    });
    Answer::Texts {
        texts: Box::pin(ReceiverStream::new(rx)),
        content_type: if ndjson { NDJSON } else { PGN },
    }
}

/// Sends the games `query` asks for, page after page, until the last or
/// `max`; an error ends the stream early, as a cut connection would.
async fn send_games(services: &Services, call: &Call, query: &Query, tx: &mpsc::Sender<String>) {
    let mut sent = 0;
    let mut page_token = String::new();
    loop {
        let listed = services
            .games
            .list_games(call.request(pb::ListGamesRequest {
                status: query.status as i32,
                page_size: PAGE,
                page_token: page_token.clone(),
                created_after: query.since,
                created_before: query.until,
                player_id: query.player.clone(),
                oldest_first: query.oldest_first,
                rated: query.rated,
                ..Default::default()
            }))
            .await;
        let Ok(listed) = listed.map(tonic::Response::into_inner) else {
            return;
        };
        for game in listed.games.iter().filter(|game| query.wants(game)) {
            if query.max.is_some_and(|max| sent >= max) {
                return;
            }
            let Ok(text) = write(services, call, &game.id, query.written).await else {
                return;
            };
            if tx.send(text).await.is_err() {
                return;
            }
            sent += 1;
        }
        if listed.next_page_token.is_empty() {
            return;
        }
        page_token = listed.next_page_token;
    }
}

/// Game `id` written as `written` asks: a JSON line, or a PGN and its
/// blank line.
async fn write(
    services: &Services,
    call: &Call,
    id: &str,
    written: Written,
) -> Result<String, Status> {
    let pgn = if !written.ndjson || written.pgn_in_json {
        let exported = services
            .games
            .export_game(call.request(pb::ExportGameRequest {
                game_id: id.to_owned(),
                analysis: written.evals,
                clocks: Some(written.clocks),
                ..Default::default()
            }))
            .await?;
        let pgn = exported.into_inner().pgn;
        Some(if written.tags {
            pgn
        } else {
            without_tags(&pgn).to_owned()
        })
    } else {
        None
    };
    if !written.ndjson {
        let mut pgn = pgn.unwrap_or_default();
        pgn.push_str("\n\n");
        return Ok(pgn);
    }
    let view = if written.moves {
        pb::GameView::Full
    } else {
        pb::GameView::Basic
    };
    let game = services
        .games
        .get_game(call.request(pb::GetGameRequest {
            game_id: id.to_owned(),
            view: view as i32,
        }))
        .await?
        .into_inner()
        .game
        .unwrap_or_default();
    let mut value: Value = shapes::exported(&game, written.moves);
    if let Some(pgn) = pgn {
        value["pgn"] = Value::from(pgn);
    }
    let clocks = written.clocks && game.clock.is_some();
    let opening = written.opening && game.variant == pb::Variant::Chess as i32;
    if clocks || opening {
        let view = services.games.games.get(&GameId::parse(id)?).await?;
        if clocks {
            // Each mover's time left after each move, in centiseconds.
            let clocks: Vec<i64> = view.clocks_after_moves().iter().map(|ms| ms / 10).collect();
            value["clocks"] = Value::from(clocks);
        }
        if opening && let Some(named) = view.opening() {
            value["opening"] = serde_json::json!({
                "eco": named.eco,
                "name": named.name,
                "ply": named.uci.split_whitespace().count(),
            });
        }
    }
    Ok(format!("{value}\n"))
}

/// A PGN's movetext: what follows its tags and the blank line after them.
fn without_tags(pgn: &str) -> &str {
    pgn.split_once("\n\n").map_or(pgn, |(_, movetext)| movetext)
}
