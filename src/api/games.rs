//! `arbiter.v1.Games`: games refereed and stored by the server.

use std::{pin::Pin, sync::Arc};

use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status, Streaming};

use super::{
    admission::{Creates, admit_create},
    caller::{caller, player},
    collections::{Export, ExportStream, ImportBounds, ImportStream, export_stream, import_stream},
    convert::{self, View},
    error::invalid_argument,
    frames::unframed,
    player::{PlayerStream, PlayerStreams},
    proto::{self as pb, games_server},
    request::trace_game,
    starts,
    watch::Watchers,
};
use crate::{
    games::{
        Games, MoveText, PgnNotation, PgnOptions, RematchAnswer, SeatClaim, SeatSpec, Start, Terms,
    },
    peers::Peer,
    players::Players,
    reason::Reason,
};

#[derive(Debug)]
pub struct GamesService {
    pub games: Games,
    /// The rate limit of CreateGame and ImportGame.
    pub creates: Creates,
    /// WatchGame's streams.
    pub watchers: Arc<Watchers>,
    /// The bounds of ImportGames calls.
    pub imports: ImportBounds,
    /// WatchPlayer's streams.
    pub player_streams: PlayerStreams,
    /// The players seats are bound to, and who calls.
    pub players: Players,
}

/// The claim on a seat a game action makes: its seat token, or else the
/// calling player.
fn claim<'a>(seat_token: &'a str, player: Option<&'a str>) -> SeatClaim<'a> {
    match player {
        Some(id) if seat_token.is_empty() => SeatClaim::Player(id),
        _ => SeatClaim::Token(seat_token),
    }
}

impl GamesService {
    /// A place among the watch streams of the caller at `addr` (none for
    /// a call without one) for a stream of exported games, given back when
    /// dropped.
    ///
    /// # Errors
    ///
    /// RESOURCE_EXHAUSTED when the caller's connection or address holds
    /// all the streams it may.
    pub fn export_place(
        &self,
        addr: Option<std::net::SocketAddr>,
    ) -> Result<Option<super::streams::Place>, Status> {
        addr.map(|addr| self.watchers.streams().take_place(addr))
            .transpose()
    }

    /// The player a game action is made by, when it comes without a seat
    /// token (a call with one is judged by its token alone).
    async fn acting_player<T>(
        &self,
        request: &Request<T>,
        seat_token: &str,
    ) -> Result<Option<String>, Status> {
        if !seat_token.is_empty() {
            return Ok(None);
        }
        Ok(caller(&self.players, request).await?.map(|c| c.id))
    }

    /// The seat CreateGame's `seat` asks for, bound to its player if it
    /// names one (the display name, left empty, is the player's).
    async fn seat<T>(
        &self,
        field: &'static str,
        seat: Option<pb::SeatRequest>,
        request: &Request<T>,
    ) -> Result<SeatSpec, Status> {
        let (player_id, for_caller) = seat
            .as_ref()
            .map_or((String::new(), false), |s| (s.player_id.clone(), s.caller));
        let mut spec = convert::seat(field, seat)?;
        let id = if for_caller {
            Some(player(&self.players, request).await?.id)
        } else {
            (!player_id.is_empty()).then_some(player_id)
        };
        if let Some(id) = id {
            let bound = self.players.get(&id).await?;
            if spec.display_name.trim().is_empty() {
                spec.display_name = bound.display_name;
            }
            spec.player = Some(bound.id);
        }
        Ok(spec)
    }
}

fn game(view: &crate::games::GameView) -> Option<pb::Game> {
    Some(convert::game(view))
}

/// The `view` of a game action's request: by default the game without its
/// move list (GAME_VIEW_BASIC), so that the answer does not grow with it.
fn action_view(value: i32) -> Result<View, Status> {
    convert::view(value, View::Basic)
}

/// A seat's action: the request's game, seat and view read, `$act` taken
/// with the games, the game's id and the seat's claim (and the request as
/// `$r`), and the game after it answered as `pb::$response`.
macro_rules! seat_action {
    ($self:ident, $request:ident, $response:ident, |$games:ident, $id:ident, $seat:ident, $r:tt| $act:expr) => {{
        let r = $request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = action_view(r.view)?;
        let player = $self.acting_player(&$request, &r.seat_token).await?;
        let ($games, $id, $seat) = (&$self.games, &id, claim(&r.seat_token, player.as_deref()));
        let $r = r;
        let view = $act.await?;
        Ok(Response::new(pb::$response {
            game: Some(convert::game_in(&view, shown)),
        }))
    }};
}

/// The movetext notation a request names.
fn pgn_notation(value: i32) -> Result<PgnNotation, Status> {
    match pb::PgnNotation::try_from(value) {
        Ok(pb::PgnNotation::Unspecified | pb::PgnNotation::Standard) => Ok(PgnNotation::Standard),
        Ok(pb::PgnNotation::Coordinates) => Ok(PgnNotation::Coordinates),
        Ok(pb::PgnNotation::Chinese) => Ok(PgnNotation::Chinese),
        Err(_) => Err(invalid_argument(
            "notation",
            Reason::UnknownEnumValue,
            "unknown notation",
        )),
    }
}

/// A rematch call's answer as its response's fields: the finished game,
/// and once created the rematch, the caller's side and token in it.
fn rematch_answer(
    answer: &RematchAnswer,
    shown: View,
) -> (Option<pb::Game>, Option<pb::Game>, i32, String) {
    let game = Some(convert::game_in(&answer.game, shown));
    match &answer.rematch {
        None => (game, None, pb::Side::Unspecified as i32, String::new()),
        Some(seated) => {
            tracing::info!(rematch = %seated.game.id, "rematch");
            (
                game,
                Some(convert::game_in(&seated.game, shown)),
                convert::side(seated.side),
                seated.token.clone(),
            )
        }
    }
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<pb::WatchGameResponse, Status>> + Send>>;

#[tonic::async_trait]
impl games_server::Games for GamesService {
    async fn create_game(
        &self,
        request: Request<pb::CreateGameRequest>,
    ) -> Result<Response<pb::CreateGameResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let white = self
            .seat("white", request.get_ref().white.clone(), &request)
            .await?;
        let black = self
            .seat("black", request.get_ref().black.clone(), &request)
            .await?;
        // A seat bound to a player other than the caller is played with
        // that player's credential alone: its token is not handed out.
        let caller = caller(&self.players, &request).await?.map(|c| c.id);
        let hands_out = [&white, &black].map(|seat| seat.player.is_none() || seat.player == caller);
        let r = request.into_inner();
        let variant = convert::variant("variant", r.variant)?;
        tracing::Span::current().record("variant", variant.name());
        let choices = convert::rule_choices("xiangqi_rules", variant, r.xiangqi_rules)?;
        let start = match r.start {
            None => Start::Standard,
            Some(pb::create_game_request::Start::Fen(f)) if f.trim().is_empty() => Start::Standard,
            Some(pb::create_game_request::Start::Fen(f)) => Start::Fen(f),
            Some(pb::create_game_request::Start::PositionId(id)) => Start::SavedPosition(id),
            Some(pb::create_game_request::Start::Chess960Start(n)) => {
                Start::Chess960(starts::chess960_start(n)?)
            }
        };
        let time_control = r
            .time_control
            .as_ref()
            .map(convert::time_control)
            .transpose()?;
        let created = self
            .games
            .create_under(
                variant,
                choices,
                start,
                white,
                black,
                Terms {
                    engine_grants_takebacks: !r.engine_declines_takebacks,
                    rated: r.rated,
                },
                time_control,
            )
            .await?;
        tracing::info!(game_id = %created.game.id, %variant, "game created");
        Ok(Response::new(pb::CreateGameResponse {
            game: game(&created.game),
            white_token: if hands_out[0] {
                created.white_token
            } else {
                String::new()
            },
            black_token: if hands_out[1] {
                created.black_token
            } else {
                String::new()
            },
            join_code: created.join_code,
        }))
    }

    async fn get_game(
        &self,
        request: Request<pb::GetGameRequest>,
    ) -> Result<Response<pb::GetGameResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = convert::view(r.view, View::Full)?;
        let view = self.games.get(&id).await?;
        Ok(Response::new(pb::GetGameResponse {
            game: Some(convert::game_in(&view, shown)),
        }))
    }

    async fn list_games(
        &self,
        request: Request<pb::ListGamesRequest>,
    ) -> Result<Response<pb::ListGamesResponse>, Status> {
        self.list_page(request.get_ref()).await.map(Response::new)
    }

    async fn export_game(
        &self,
        request: Request<pb::ExportGameRequest>,
    ) -> Result<Response<pb::ExportGameResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let options = PgnOptions {
            notation: pgn_notation(r.notation)?,
            analysis: r.analysis,
            clocks: r.clocks.unwrap_or(true),
        };
        let pgn = self.games.export(&id, options).await?;
        Ok(Response::new(pb::ExportGameResponse { pgn }))
    }

    type ExportGamesStream = ExportStream;

    async fn export_games(
        &self,
        request: Request<pb::ExportGamesRequest>,
    ) -> Result<Response<ExportStream>, Status> {
        let r = request.get_ref();
        let filter = self
            .game_filter(&r.filter.clone().unwrap_or_default())
            .await?;
        let terms = Export {
            pgn: PgnOptions {
                notation: pgn_notation(r.notation)?,
                analysis: r.analysis,
                clocks: r.clocks.unwrap_or(true),
            },
            max_games: r.max_games,
        };
        let place = self.export_place(request.remote_addr())?;
        let shutdown = self.watchers.streams().shutdown();
        Ok(Response::new(export_stream(
            self.games.clone(),
            filter,
            terms,
            place,
            shutdown,
        )))
    }

    type ImportGamesStream = ImportStream;

    async fn import_games(
        &self,
        request: Request<Streaming<pb::ImportGamesRequest>>,
    ) -> Result<Response<ImportStream>, Status> {
        admit_create(&self.creates, &request)?;
        let place = self.export_place(request.remote_addr())?;
        let peer = request.remote_addr().map(Peer::of);
        let shutdown = self.watchers.streams().shutdown();
        Ok(Response::new(import_stream(
            self.games.clone(),
            &self.imports,
            peer,
            request.into_inner(),
            place,
            shutdown,
        )))
    }

    async fn import_game(
        &self,
        request: Request<pb::ImportGameRequest>,
    ) -> Result<Response<pb::ImportGameResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let r = request.get_ref();
        let hint = match r.variant {
            0 => None,
            v => Some(convert::variant("variant", v)?),
        };
        let rules = convert::xiangqi_rules("xiangqi_rules", r.xiangqi_rules)?;
        let imported = self.games.import(&r.pgn, hint, rules).await?;
        trace_game(&imported.game.id)?;
        tracing::info!(game_id = %imported.game.id, plies = imported.game.ply, "game imported");
        Ok(Response::new(pb::ImportGameResponse {
            game: game(&imported.game),
            white_token: imported.white_token,
            black_token: imported.black_token,
        }))
    }

    async fn make_move(
        &self,
        request: Request<pb::MakeMoveRequest>,
    ) -> Result<Response<pb::MakeMoveResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = action_view(r.view)?;
        let text = MoveText {
            text: &r.r#move,
            ranks: convert::move_ranks("ranks", r.ranks)?,
        };
        let player = self.acting_player(&request, &r.seat_token).await?;
        let (view, played) = self
            .games
            .make_move(
                &id,
                claim(&r.seat_token, player.as_deref()),
                text,
                r.expected_ply,
            )
            .await?;
        Ok(Response::new(pb::MakeMoveResponse {
            game: Some(convert::game_in(&view, shown)),
            r#move: Some(convert::played_move(&played)),
        }))
    }

    async fn resign(
        &self,
        request: Request<pb::ResignRequest>,
    ) -> Result<Response<pb::ResignResponse>, Status> {
        seat_action!(self, request, ResignResponse, |games, id, seat, _| games
            .resign(id, seat))
    }

    async fn claim_victory(
        &self,
        request: Request<pb::ClaimVictoryRequest>,
    ) -> Result<Response<pb::ClaimVictoryResponse>, Status> {
        seat_action!(self, request, ClaimVictoryResponse, |games, id, seat, _| {
            games.claim_victory(id, seat)
        })
    }

    async fn offer_draw(
        &self,
        request: Request<pb::OfferDrawRequest>,
    ) -> Result<Response<pb::OfferDrawResponse>, Status> {
        seat_action!(self, request, OfferDrawResponse, |games, id, seat, _| games
            .offer_draw(id, seat))
    }

    async fn respond_to_draw(
        &self,
        request: Request<pb::RespondToDrawRequest>,
    ) -> Result<Response<pb::RespondToDrawResponse>, Status> {
        seat_action!(
            self,
            request,
            RespondToDrawResponse,
            |games, id, seat, r| games.respond_to_draw(id, seat, r.accept)
        )
    }

    async fn propose_takeback(
        &self,
        request: Request<pb::ProposeTakebackRequest>,
    ) -> Result<Response<pb::ProposeTakebackResponse>, Status> {
        seat_action!(
            self,
            request,
            ProposeTakebackResponse,
            |games, id, seat, _| games.propose_takeback(id, seat)
        )
    }

    async fn respond_to_takeback(
        &self,
        request: Request<pb::RespondToTakebackRequest>,
    ) -> Result<Response<pb::RespondToTakebackResponse>, Status> {
        seat_action!(
            self,
            request,
            RespondToTakebackResponse,
            |games, id, seat, r| games.respond_to_takeback(id, seat, r.accept)
        )
    }

    async fn claim_draw(
        &self,
        request: Request<pb::ClaimDrawRequest>,
    ) -> Result<Response<pb::ClaimDrawResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = action_view(r.view)?;
        let player = self.acting_player(&request, &r.seat_token).await?;
        let view = self
            .games
            .claim_draw(&id, claim(&r.seat_token, player.as_deref()), &r.r#move)
            .await?;
        // A claim with a move plays it: it is the game's last move.
        let played = (!r.r#move.trim().is_empty())
            .then(|| view.moves.last().map(convert::played_move))
            .flatten();
        Ok(Response::new(pb::ClaimDrawResponse {
            game: Some(convert::game_in(&view, shown)),
            r#move: played,
        }))
    }

    async fn abort(
        &self,
        request: Request<pb::AbortRequest>,
    ) -> Result<Response<pb::AbortResponse>, Status> {
        seat_action!(self, request, AbortResponse, |games, id, seat, _| games
            .abort(id, seat))
    }

    async fn join_game(
        &self,
        request: Request<pb::JoinGameRequest>,
    ) -> Result<Response<pb::JoinGameResponse>, Status> {
        admit_create(&self.creates, &request)?;
        let r = request.get_ref();
        let shown = action_view(r.view)?;
        // A player's call binds the seat to them.
        let player = match caller(&self.players, &request).await? {
            Some(caller) => Some(self.players.get(&caller.id).await?),
            None => None,
        };
        let player = player
            .as_ref()
            .map(|p| (p.id.as_str(), p.display_name.as_str()));
        let joined = self
            .games
            .join(&r.join_code, &r.display_name, player)
            .await?;
        trace_game(&joined.game.id)?;
        tracing::info!(game_id = %joined.game.id, side = %joined.side, "open seat taken");
        Ok(Response::new(pb::JoinGameResponse {
            game: Some(convert::game_in(&joined.game, shown)),
            side: convert::side(joined.side),
            seat_token: joined.token,
        }))
    }

    async fn get_open_seat(
        &self,
        request: Request<pb::GetOpenSeatRequest>,
    ) -> Result<Response<pb::GetOpenSeatResponse>, Status> {
        // Looking codes up is guessing them as much as joining is.
        admit_create(&self.creates, &request)?;
        let (game, side) = self
            .games
            .open_seat_of(&request.get_ref().join_code)
            .await?;
        trace_game(&game.id)?;
        Ok(Response::new(pb::GetOpenSeatResponse {
            game: Some(convert::game_in(&game, View::Basic)),
            side: convert::side(side),
        }))
    }

    async fn offer_rematch(
        &self,
        request: Request<pb::OfferRematchRequest>,
    ) -> Result<Response<pb::OfferRematchResponse>, Status> {
        // Against an engine seat, or with the opponent's offer standing, an
        // offer creates the rematch.
        admit_create(&self.creates, &request)?;
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = action_view(r.view)?;
        let player = self.acting_player(&request, &r.seat_token).await?;
        let answer = self
            .games
            .offer_rematch(&id, claim(&r.seat_token, player.as_deref()))
            .await?;
        let (game, rematch, side, seat_token) = rematch_answer(&answer, shown);
        Ok(Response::new(pb::OfferRematchResponse {
            game,
            rematch,
            side,
            seat_token,
        }))
    }

    async fn respond_to_rematch(
        &self,
        request: Request<pb::RespondToRematchRequest>,
    ) -> Result<Response<pb::RespondToRematchResponse>, Status> {
        if request.get_ref().accept {
            admit_create(&self.creates, &request)?;
        }
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let shown = action_view(r.view)?;
        let player = self.acting_player(&request, &r.seat_token).await?;
        let answer = self
            .games
            .respond_to_rematch(&id, claim(&r.seat_token, player.as_deref()), r.accept)
            .await?;
        let (game, rematch, side, seat_token) = rematch_answer(&answer, shown);
        Ok(Response::new(pb::RespondToRematchResponse {
            game,
            rematch,
            side,
            seat_token,
        }))
    }

    type WatchPlayerStream = PlayerStream;

    async fn watch_player(
        &self,
        request: Request<pb::WatchPlayerRequest>,
    ) -> Result<Response<PlayerStream>, Status> {
        Ok(Response::new(
            self.player_streams.watch_player(&request).await?,
        ))
    }

    async fn send_chat(
        &self,
        request: Request<pb::SendChatRequest>,
    ) -> Result<Response<pb::SendChatResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let room = convert::chat_room("room", r.room)?;
        let speaker = self
            .players
            .get(&player(&self.players, &request).await?.id)
            .await?;
        let line = self
            .games
            .say(&id, room, (&speaker.id, &speaker.username), &r.text)
            .await?;
        Ok(Response::new(pb::SendChatResponse {
            line: Some(convert::chat_line(&line)),
        }))
    }

    async fn list_chat(
        &self,
        request: Request<pb::ListChatRequest>,
    ) -> Result<Response<pb::ListChatResponse>, Status> {
        let r = request.get_ref();
        let id = trace_game(&r.game_id)?;
        let reader = caller(&self.players, &request).await?.map(|c| c.id);
        let lines = self.games.chat(&id, reader.as_deref(), r.after).await?;
        Ok(Response::new(pb::ListChatResponse {
            lines: lines.iter().map(convert::chat_line).collect(),
        }))
    }

    type WatchGameStream = WatchStream;

    /// Served by [`GamesRoutes`](super::watch::GamesRoutes), which sends the
    /// hub's encoded messages as they are; this decodes them.
    async fn watch_game(
        &self,
        request: Request<pb::WatchGameRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let stream = self.watchers.watch(&request).await?;
        Ok(Response::new(Box::pin(
            stream.map(|frame| frame.and_then(|frame| unframed(&frame))),
        )))
    }
}
