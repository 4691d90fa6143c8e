//! The Lichess Bot and Board API on the API's port, so that programs written
//! for Lichess (bot frameworks, berserk, board drivers) play on Arbiter with
//! only their server address changed.
//!
//! Every endpoint is a translation: its JSON or form body becomes one or a
//! few calls of the gRPC services, made in process with the HTTP request's
//! headers as metadata (so `authorization: Bearer <player token>` names the
//! caller as it does over gRPC) and its connection's address (so the
//! per-address limits hold), and their answers become Lichess's shapes,
//! status codes and `{"error": …}` bodies. Streams are NDJSON with an
//! empty keep-alive line every [`KEEP_ALIVE`]. `docs/lichess.md` lists each
//! endpoint, its gRPC equivalent and where it differs from Lichess.

mod account;
mod answer;
mod challenges;
mod events;
mod export;
mod form;
mod play;
mod rate;
mod shapes;
mod variants;

use std::{convert::Infallible, pin::Pin, sync::Arc, time::Duration};

use http::{Method, Request, Response};
use tonic::body::Body;
use tower_service::Service;

use self::{answer::Answer, events::EventStreams, form::Call, rate::CallRate};
pub use self::{
    answer::{CredentialRefused, from_refusal},
    rate::{DEFAULT_LICHESS_BURST, DEFAULT_LICHESS_RATE},
};
use crate::api::{GamesService, PlayersService};

/// How often a stream sends an empty line when it has nothing to say:
/// Lichess's period, well inside the 15 s lichess-bot waits.
pub const KEEP_ALIVE: Duration = Duration::from_secs(7);

/// Whether `path` is one of the Lichess API's.
pub fn serves(path: &str) -> bool {
    path.starts_with("/api/") || path.starts_with("/game/export/")
}

/// The Lichess API over the gRPC services.
#[derive(Clone)]
pub struct LichessApi {
    inner: Arc<Services>,
}

#[derive(Clone)]
struct Services {
    players: Arc<PlayersService>,
    games: Arc<GamesService>,
    /// Each token's event stream, replaced by the token's next one.
    events: Arc<EventStreams>,
    /// The rate of the calls that are not moves.
    rate: Arc<CallRate>,
}

impl LichessApi {
    /// The API over `players` and `games`, its calls other than moves
    /// limited to `per_second` a token after a first `burst` (0: no limit).
    pub fn new(
        players: Arc<PlayersService>,
        games: Arc<GamesService>,
        (per_second, burst): (u32, u32),
    ) -> LichessApi {
        LichessApi {
            inner: Arc::new(Services {
                players,
                games,
                events: Arc::default(),
                rate: Arc::new(CallRate::new(per_second, burst)),
            }),
        }
    }
}

type Answering = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

impl Service<Request<Body>> for LichessApi {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Answering;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Answering {
        let services = Arc::clone(&self.inner);
        Box::pin(async move {
            let answer = match Call::read(request).await {
                Ok(call) => services.answer(call).await,
                Err(refused) => refused,
            };
            Ok(answer.into_response())
        })
    }
}

impl Services {
    async fn answer(&self, call: Call) -> Answer {
        let path = call.path.clone();
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        let method = call.method.clone();
        let is_move = matches!(
            (&method, segments.as_slice()),
            (
                &Method::POST,
                ["api", "bot" | "board", "game", _, "move", _]
            )
        );
        if !is_move && let Err(refused) = self.rate.admit(&call, call.remote_addr()) {
            return refused;
        }
        match (method, segments.as_slice()) {
            (Method::POST, ["api", "token", "test"]) => account::test_tokens(self, &call).await,
            (Method::GET, ["api", "account"]) => account::account(self, &call).await,
            (Method::GET, ["api", "account", "playing"]) => account::playing(self, &call).await,
            (Method::POST, ["api", "bot", "account", "upgrade"]) => {
                account::upgrade(self, &call).await
            }
            (Method::GET, ["api", "user", username]) => account::user(self, &call, username).await,
            (Method::GET, ["api", "stream", "event"]) => events::stream(self, &call).await,
            (Method::GET, ["api", "stream", "game", id]) => play::spectate(self, &call, id).await,
            (Method::GET, ["api", "bot" | "board", "game", "stream", id]) => {
                play::stream(self, &call, id).await
            }
            (Method::POST, ["api", "bot" | "board", "game", id, action @ ..]) => {
                play::act(self, &call, id, action).await
            }
            (Method::GET, ["game", "export", id]) => export::game(self, &call, id).await,
            (Method::POST, ["api", "games", "export", "_ids"]) => export::by_id(self, &call).await,
            (Method::GET, ["api", "games", "user", username]) => {
                export::user(self, &call, username).await
            }
            (Method::GET, ["api", "bot" | "board", "game", id, "chat"]) => {
                play::chat(self, &call, id).await
            }
            (Method::GET, ["api", "challenge"]) => challenges::list(self, &call).await,
            (Method::POST, ["api", "board", "seek"]) => challenges::seek(self, &call).await,
            (Method::POST, ["api", "challenge", "ai"]) => challenges::engine(self, &call).await,
            (Method::POST, ["api", "challenge", "open"]) => challenges::open(self, &call).await,
            (Method::POST, ["api", "challenge", id, "accept"]) => {
                challenges::accept(self, &call, id).await
            }
            (Method::POST, ["api", "challenge", id, "decline"]) => {
                challenges::decline(self, &call, id).await
            }
            (Method::POST, ["api", "challenge", id, "cancel"]) => {
                challenges::cancel(self, &call, id).await
            }
            (Method::POST, ["api", "challenge", username]) => {
                challenges::create(self, &call, username).await
            }
            _ => Answer::not_found("no such endpoint"),
        }
    }
}
