//! The `arbiter.v1.Rules` service's routes: `LegalMoves` on its own, with its
//! own encoder (see `legal_moves`); every other method to the generated
//! service.
//!
//! The `arbiter.v1.Games` service's routes: `WatchGame` on its own, its
//! answer's body the hub's frames as they are; ImportGame, which alone may
//! send large requests, to a copy of the generated service with a limit of
//! its own; every other method to the generated service.

use std::{
    convert::Infallible,
    pin::Pin,
    sync::{Arc, Mutex},
    task::{Context, Poll},
};

use bytes::Bytes;
use http::HeaderMap;
use http_body::Frame;
use tokio_stream::Stream;
use tonic::{
    Request, Response, Status,
    body::Body,
    server::{Grpc, NamedService},
};
use tonic_prost::ProstCodec;
use tower_service::Service;

use super::{
    games::GamesService,
    legal_moves::{LegalMovesCodec, LegalMovesMethod},
    proto::{self as pb, games_server::GamesServer, rules_server::RulesServer},
    request::REQUEST_COMPRESSION,
    rules::RulesService,
    watch::{WatchStream, Watchers},
};

/// A `WatchGame` answer's body: the stream's frames as they are, then the
/// trailers with its status.
struct WatchBody {
    stream: WatchStream,
    ended: bool,
}

impl http_body::Body for WatchBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let status = match Pin::new(&mut self.stream).poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Some(Ok(frame))) => return Poll::Ready(Some(Ok(Frame::data(frame)))),
            Poll::Ready(Some(Err(status))) => status,
            Poll::Ready(None) => Status::ok(""),
        };
        self.ended = true;
        let mut trailers = HeaderMap::new();
        Poll::Ready(Some(
            status
                .add_header(&mut trailers)
                .map(|()| Frame::trailers(trailers)),
        ))
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

/// An open watch stream, from the method to the route that sends it.
type Opened = Arc<Mutex<Option<WatchStream>>>;

/// The `WatchGame` method for [`Grpc::server_streaming`]: opens the stream
/// and leaves it in `opened`, answering tonic with an empty one (tonic
/// would copy every message into a buffer of the answer's own).
struct WatchMethod {
    watchers: Arc<Watchers>,
    opened: Opened,
}

type NoMessages = tokio_stream::Empty<Result<pb::WatchGameResponse, Status>>;

impl Service<Request<pb::WatchGameRequest>> for WatchMethod {
    type Response = Response<NoMessages>;
    type Error = Status;
    type Future = Pin<Box<dyn Future<Output = Result<Response<NoMessages>, Status>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<pb::WatchGameRequest>) -> Self::Future {
        let watchers = Arc::clone(&self.watchers);
        let opened = Arc::clone(&self.opened);
        Box::pin(async move {
            let stream = watchers.watch(&request).await?;
            *opened.lock().unwrap_or_else(|e| e.into_inner()) = Some(stream);
            Ok(Response::new(tokio_stream::empty()))
        })
    }
}

/// The `arbiter.v1.Games` service: `WatchGame` here, the rest generated.
/// ImportGame takes a whole PGN and ImportGames pieces of a collection, so
/// they alone may send large requests: they go to a copy of the generated
/// service with a limit of its own.
#[derive(Clone, Debug)]
pub struct GamesRoutes {
    generated: GamesServer<GamesService>,
    importing: GamesServer<GamesService>,
    watchers: Arc<Watchers>,
    max_decoding_message_size: usize,
}

impl GamesRoutes {
    /// Requests larger than `max_decoding_message_size` bytes are refused,
    /// ImportGame's and ImportGames's over `max_import_message_size`.
    pub fn new(
        service: Arc<GamesService>,
        max_decoding_message_size: usize,
        max_import_message_size: usize,
    ) -> GamesRoutes {
        let watchers = Arc::clone(&service.watchers);
        let service = GamesServer::from_arc(service).accept_compressed(REQUEST_COMPRESSION);
        GamesRoutes {
            generated: service
                .clone()
                .max_decoding_message_size(max_decoding_message_size),
            importing: service.max_decoding_message_size(max_import_message_size),
            watchers,
            max_decoding_message_size,
        }
    }
}

impl NamedService for GamesRoutes {
    const NAME: &'static str = <GamesServer<GamesService> as NamedService>::NAME;
}

type RouteFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<Body>, Infallible>> + Send + 'static>>;

impl Service<http::Request<Body>> for GamesRoutes {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = RouteFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> RouteFuture {
        match request.uri().path() {
            "/arbiter.v1.Games/WatchGame" => {}
            "/arbiter.v1.Games/ImportGame" | "/arbiter.v1.Games/ImportGames" => {
                return self.importing.call(request);
            }
            _ => return self.generated.call(request),
        }
        let limit = self.max_decoding_message_size;
        let opened = Opened::default();
        let method = WatchMethod {
            watchers: Arc::clone(&self.watchers),
            opened: Arc::clone(&opened),
        };
        Box::pin(async move {
            let mut grpc = Grpc::new(ProstCodec::<pb::WatchGameResponse, _>::default())
                .max_decoding_message_size(limit)
                .accept_compressed(REQUEST_COMPRESSION);
            let answer = grpc.server_streaming(method, request).await;
            // tonic's head (and its answer to errors before the stream),
            // with the stream's frames as the body.
            let stream = opened.lock().unwrap_or_else(|e| e.into_inner()).take();
            Ok(match stream {
                Some(stream) => {
                    let (head, _) = answer.into_parts();
                    let body = WatchBody {
                        stream,
                        ended: false,
                    };
                    http::Response::from_parts(head, Body::new(body))
                }
                None => answer,
            })
        })
    }
}

/// The `arbiter.v1.Rules` service: `LegalMoves` here, the rest generated.
#[derive(Clone, Debug)]
pub struct RulesRoutes {
    generated: RulesServer<RulesService>,
    max_decoding_message_size: usize,
}

impl RulesRoutes {
    /// Requests larger than `max_decoding_message_size` bytes are refused.
    pub fn new(max_decoding_message_size: usize) -> RulesRoutes {
        RulesRoutes {
            generated: RulesServer::new(RulesService)
                .max_decoding_message_size(max_decoding_message_size)
                .accept_compressed(REQUEST_COMPRESSION),
            max_decoding_message_size,
        }
    }
}

impl NamedService for RulesRoutes {
    const NAME: &'static str = <RulesServer<RulesService> as NamedService>::NAME;
}

impl Service<http::Request<Body>> for RulesRoutes {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = RouteFuture;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> RouteFuture {
        if request.uri().path() != "/arbiter.v1.Rules/LegalMoves" {
            return self.generated.call(request);
        }
        let limit = self.max_decoding_message_size;
        Box::pin(async move {
            let mut grpc = Grpc::new(LegalMovesCodec)
                .max_decoding_message_size(limit)
                .accept_compressed(REQUEST_COMPRESSION);
            Ok(grpc.unary(LegalMovesMethod, request).await)
        })
    }
}
