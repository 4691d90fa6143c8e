//! Whole collections of games: ExportGames streams the games a filter
//! selects as PGN; ImportGames reads a PGN collection sent in pieces and
//! answers game by game.

use std::{collections::HashMap, pin::Pin, sync::Arc, time::Duration};

use tokio::sync::mpsc;
use tokio_stream::{Stream, wrappers::ReceiverStream};
use tonic::{Status, Streaming};
use tonic_types::StatusExt;

use super::{
    convert,
    error::{ErrorStatus, shutting_down},
    proto as pb,
    request::{GAMES_PAGES, next_token},
    streams::Place,
};
use crate::{
    games::{
        CollectedGame, CollectionGame, GameError, Games, Imported, MAX_COLLECTION_GAME_BYTES,
        PgnOptions, PgnSplitter,
    },
    peers::{Peer, PeerRate},
    reason::Reason,
    rules::{Variant, xiangqi::XiangqiRules},
    store::GameFilter,
};

/// ExportGames's games, each as ExportGame writes it.
pub type ExportStream =
    Pin<Box<dyn Stream<Item = Result<pb::ExportGamesResponse, Status>> + Send + 'static>>;

/// ImportGames's answers, one a game.
pub type ImportStream =
    Pin<Box<dyn Stream<Item = Result<pb::ImportGamesResponse, Status>> + Send + 'static>>;

/// Exported games waiting for the reader: the store is read a page ahead
/// at most.
const EXPORT_QUEUE: usize = 8;

/// Games read before they are stored together.
const IMPORT_BATCH: usize = 64;

/// How long a part of a batch waits for the client's next piece before it
/// is stored anyway (a slow client still sees its games answered).
const BATCH_WAIT: Duration = Duration::from_millis(200);

/// Answers waiting for the client: a reader that stops reading stops the
/// import a batch later.
const IMPORT_QUEUE: usize = IMPORT_BATCH;

/// Games one ImportGames call imports by default.
pub const DEFAULT_IMPORT_MAX_GAMES: u32 = 100_000;

/// KiB a second an address's ImportGames calls are read at, together, by
/// default.
pub const DEFAULT_IMPORT_KIB_PER_SECOND: u32 = 1024;

/// The bounds of ImportGames calls.
#[derive(Debug)]
pub struct ImportBounds {
    /// Games one call may read.
    pub max_games: u32,
    /// KiB a second an address's calls are read at together (`None`: no
    /// limit).
    pub rate: Option<Arc<PeerRate>>,
}

impl ImportBounds {
    /// At most `max_games` games a call, read at `kib_per_second` per
    /// address (0: no limit), a message of `max_message_bytes` at once.
    pub fn new(max_games: u32, kib_per_second: u32, max_message_bytes: usize) -> ImportBounds {
        let message_kib = u32::try_from(max_message_bytes.div_ceil(1024)).unwrap_or(u32::MAX);
        ImportBounds {
            max_games,
            rate: PeerRate::new(kib_per_second, kib_per_second.max(message_kib)).map(Arc::new),
        }
    }
}

/// How ExportGames writes its games, and how many.
#[derive(Clone, Copy, Debug)]
pub struct Export {
    pub pgn: PgnOptions,
    /// 0: all.
    pub max_games: u32,
}

/// Resolves when the server shuts down.
pub type Shutdown = Pin<Box<dyn Future<Output = ()> + Send + Sync>>;

/// The stream of ExportGames: the games `filter` selects, each as
/// `terms` write it, holding its watch-stream `place` until it ends or the
/// server shuts down.
pub fn export_stream(
    games: Games,
    filter: GameFilter,
    terms: Export,
    place: Option<Place>,
    shutdown: Shutdown,
) -> ExportStream {
    let (tx, rx) = mpsc::channel(EXPORT_QUEUE);
    tokio::spawn(async move {
        let _place = place;
        tokio::select! {
            () = tx.closed() => {}
            () = shutdown => {
                let _ = tx.send(Err(shutting_down("the server is shutting down: export again from the last resume_token"))).await;
            }
            () = send_exports(&games, filter, terms, &tx) => {}
        }
    });
    Box::pin(ReceiverStream::new(rx))
}

/// The stream of ImportGames's answers to the collection `pieces` brings,
/// from `peer`, within `bounds`, holding its watch-stream `place` until it
/// ends or the server shuts down.
pub fn import_stream(
    games: Games,
    bounds: &ImportBounds,
    peer: Option<Peer>,
    mut pieces: Streaming<pb::ImportGamesRequest>,
    place: Option<Place>,
    shutdown: Shutdown,
) -> ImportStream {
    let mut import = Import {
        games,
        peer,
        rate: bounds.rate.clone(),
        max_games: bounds.max_games,
        terms: None,
        progress: pb::ImportProgress::default(),
    };
    let (tx, rx) = mpsc::channel(IMPORT_QUEUE);
    tokio::spawn(async move {
        let _place = place;
        // Dropping a batch's store rolls it back: no game is half there.
        tokio::select! {
            () = tx.closed() => {}
            () = shutdown => {
                let _ = tx.send(Err(shutting_down("the server is shutting down: import the collection again (games imported are found, not stored twice)"))).await;
            }
            read = import.read(&mut pieces, &tx) => {
                if let Err(status) = read {
                    let _ = tx.send(Err(status)).await;
                }
            }
        }
        import.games.imported(import.progress.imported);
    });
    Box::pin(ReceiverStream::new(rx))
}

/// Sends the games `filter` selects, page after page, until the last or
/// `terms.max_games`; a game deleted meanwhile is left out, and a failure
/// ends the stream with its status.
async fn send_exports(
    games: &Games,
    mut filter: GameFilter,
    terms: Export,
    tx: &mpsc::Sender<Result<pb::ExportGamesResponse, Status>>,
) {
    let mut sent = 0;
    loop {
        let page = match games.list_ids(filter.clone()).await {
            Ok(page) => page,
            Err(error) => {
                let _ = tx.send(Err(error.into())).await;
                return;
            }
        };
        for (key, id) in page.items {
            if terms.max_games > 0 && sent >= terms.max_games {
                return;
            }
            let pgn = match games.export(&id, terms.pgn).await {
                Ok(pgn) => pgn,
                Err(GameError::NotFound(_)) => continue,
                Err(error) => {
                    let _ = tx.send(Err(error.into())).await;
                    return;
                }
            };
            let exported = pb::ExportGamesResponse {
                game_id: id.to_string(),
                pgn,
                resume_token: next_token(Some(key), GAMES_PAGES),
            };
            if tx.send(Ok(exported)).await.is_err() {
                return;
            }
            sent += 1;
        }
        match page.next {
            Some(next) => filter.cursor = Some(next),
            None => return,
        }
    }
}

/// One ImportGames call as it reads.
struct Import {
    games: Games,
    peer: Option<Peer>,
    rate: Option<Arc<PeerRate>>,
    max_games: u32,
    /// The variant and rules of every game, from the first message.
    terms: Option<(Option<Variant>, Option<XiangqiRules>)>,
    progress: pb::ImportProgress,
}

type ImportAnswers = mpsc::Sender<Result<pb::ImportGamesResponse, Status>>;

impl Import {
    /// Reads the collection to its end, answering a batch at a time.
    ///
    /// # Errors
    ///
    /// A bad first message, a stream that fails, more games than the call
    /// may import, or storage: the stream ends with it.
    async fn read(
        &mut self,
        pieces: &mut Streaming<pb::ImportGamesRequest>,
        tx: &ImportAnswers,
    ) -> Result<(), Status> {
        let mut splitter = PgnSplitter::new(MAX_COLLECTION_GAME_BYTES);
        let mut batch = Vec::new();
        loop {
            let piece = if batch.is_empty() {
                pieces.message().await?
            } else {
                match tokio::time::timeout(BATCH_WAIT, pieces.message()).await {
                    Ok(piece) => piece?,
                    Err(_) => {
                        self.store(&mut batch, tx).await?;
                        continue;
                    }
                }
            };
            let Some(piece) = piece else {
                break;
            };
            if self.terms.is_none() {
                self.terms = Some(terms(&piece)?);
            }
            self.pace(piece.pgn.len()).await;
            self.progress.bytes_read += piece.pgn.len() as u64;
            for game in splitter.feed(&piece.pgn) {
                self.collect(game, &mut batch, tx).await?;
            }
        }
        if let Some(game) = splitter.finish() {
            self.collect(game, &mut batch, tx).await?;
        }
        self.store(&mut batch, tx).await
    }

    /// Waits until the caller's address may have `bytes` more read.
    async fn pace(&self, bytes: usize) {
        if let (Some(rate), Some(peer)) = (&self.rate, self.peer) {
            let kib = u32::try_from(bytes.div_ceil(1024)).unwrap_or(u32::MAX);
            rate.take(peer, kib).await;
        }
    }

    /// Adds a game to the batch, storing the batch once it is full.
    async fn collect(
        &mut self,
        game: CollectedGame,
        batch: &mut Vec<CollectedGame>,
        tx: &ImportAnswers,
    ) -> Result<(), Status> {
        let read = self.progress.games_read + batch.len() as u32;
        if read >= self.max_games {
            self.store(batch, tx).await?;
            return Err(ErrorStatus::new(
                Reason::TooManyGames,
                format!(
                    "an ImportGames call imports at most {} games: import the rest in another \
                     call",
                    self.max_games
                ),
            )
            .metadata("limit", self.max_games)
            .into());
        }
        batch.push(game);
        if batch.len() >= IMPORT_BATCH {
            self.store(batch, tx).await?;
        }
        Ok(())
    }

    /// Stores the batch and answers for its games.
    async fn store(
        &mut self,
        batch: &mut Vec<CollectedGame>,
        tx: &ImportAnswers,
    ) -> Result<(), Status> {
        if batch.is_empty() {
            return Ok(());
        }
        let (hint, rules) = self.terms.unwrap_or_default();
        let answers = self
            .games
            .import_batch(std::mem::take(batch), hint, rules)
            .await?;
        let answers: Vec<_> = answers.into_iter().map(|game| self.answer(game)).collect();
        let progress = &self.progress;
        tracing::info!(
            games_read = progress.games_read,
            imported = progress.imported,
            duplicates = progress.duplicates,
            refused = progress.refused,
            "collection batch stored"
        );
        for answer in answers {
            if tx.send(Ok(answer)).await.is_err() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// A game's answer, counted in the progress.
    fn answer(&mut self, game: CollectionGame) -> pb::ImportGamesResponse {
        let progress = &mut self.progress;
        let mut answer = pb::ImportGamesResponse {
            index: progress.games_read,
            tags: game.tags.into_iter().collect::<HashMap<_, _>>(),
            ..Default::default()
        };
        progress.games_read += 1;
        let result = match game.imported {
            Imported::New { id, tokens } => {
                progress.imported += 1;
                answer.game_id = id.to_string();
                [answer.white_token, answer.black_token] = tokens.unwrap_or_default();
                pb::ImportResult::Imported
            }
            Imported::Before(id) => {
                progress.duplicates += 1;
                answer.game_id = id.to_string();
                pb::ImportResult::Duplicate
            }
            Imported::Refused(error) => {
                progress.refused += 1;
                let status = Status::from(error);
                answer.reason = status
                    .get_error_details()
                    .error_info()
                    .map(|info| info.reason.clone())
                    .unwrap_or_default();
                answer.message = status.message().to_owned();
                pb::ImportResult::Refused
            }
        };
        answer.result = result as i32;
        answer.progress = Some(*progress);
        answer
    }
}

/// The variant and rules a collection's first message sets for its games.
fn terms(
    first: &pb::ImportGamesRequest,
) -> Result<(Option<Variant>, Option<XiangqiRules>), Status> {
    let hint = match first.variant {
        0 => None,
        v => Some(convert::variant("variant", v)?),
    };
    Ok((
        hint,
        convert::xiangqi_rules("xiangqi_rules", first.xiangqi_rules)?,
    ))
}
