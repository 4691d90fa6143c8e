//! `arbiter.v1.Engine`: best moves and analysis.

use std::{
    pin::Pin,
    time::{Duration, Instant},
};

use tokio_stream::{Stream, StreamExt, wrappers::ReceiverStream};
use tonic::{Request, Response, Status, metadata::MetadataMap};

use super::{
    convert,
    error::invalid_argument,
    proto::{self as pb, engine_server},
};
use crate::{
    analysis::{
        Analysis, Analyst, Job, MAX_MOVETIME, Score, SearchOrder,
        review::{Eval, Judgement},
    },
    engine::{Level, MAX_DEPTH, MAX_MULTIPV},
    games::{Games, JudgementCounts, ReviewError, ReviewEvent, ReviewSearch, ReviewSource},
    peers::Peer,
    reason::Reason,
    rules::MoveDescription,
};

/// Time kept back from a gRPC deadline to send the answer: a tenth of the
/// deadline, within these bounds (and never more than a fifth of it), so a
/// loaded machine still answers in time.
const DEADLINE_MARGIN: (Duration, Duration) =
    (Duration::from_millis(50), Duration::from_millis(500));

#[derive(Clone, Debug)]
pub struct EngineService {
    pub analyst: Analyst,
    /// The stored games AnalyzeGame reads, and keeps analyses of.
    pub games: Games,
}

/// Reads the request into a ready search; `default_time` applies when the
/// client gives no move time.
fn prepare(
    metadata: &MetadataMap,
    position: Option<&pb::Position>,
    limits: Option<&pb::SearchLimits>,
    default_time: Duration,
    multipv: u32,
) -> Result<(Job, SearchOrder), Status> {
    let (variant, position) = convert::position(position)?;
    let limits = limits.cloned().unwrap_or_default();
    if limits.depth > MAX_DEPTH {
        return Err(invalid_argument(
            "limits.depth",
            Reason::ValueOutOfRange,
            format!("depth must be 0 (no limit) to {MAX_DEPTH}"),
        ));
    }
    let requested = Duration::from_millis(u64::from(limits.movetime_ms));
    if requested > MAX_MOVETIME {
        return Err(invalid_argument(
            "limits.movetime_ms",
            Reason::ValueOutOfRange,
            format!("movetime_ms must be at most {}", MAX_MOVETIME.as_millis()),
        ));
    }
    if multipv as usize > MAX_MULTIPV {
        return Err(invalid_argument(
            "multipv",
            Reason::ValueOutOfRange,
            format!("multipv must be 0 (one line) to {MAX_MULTIPV}"),
        ));
    }
    let level = match limits.level {
        0 => Level::MAX,
        n => Level::new(n).ok_or_else(|| {
            invalid_argument(
                "limits.level",
                Reason::ValueOutOfRange,
                "level must be 0 (full strength) or 1 to 10",
            )
        })?,
    };
    let movetime = if requested.is_zero() {
        default_time
    } else {
        requested
    };
    let deadline = deadline(metadata);
    let choices = convert::rule_choices("position.xiangqi_rules", variant, position.xiangqi_rules)?;
    let job = Job::new(variant, choices, Some(&position.fen), &position.moves)?;
    Ok((
        job,
        SearchOrder {
            depth: (limits.depth > 0).then_some(limits.depth),
            nodes: (limits.nodes > 0).then_some(limits.nodes),
            movetime,
            deadline,
            level,
            multipv: (multipv as usize).max(1),
        },
    ))
}

/// When to answer with what was found: shortly before the caller's
/// deadline, however long the call waited for its turn.
fn deadline(metadata: &MetadataMap) -> Option<Instant> {
    grpc_timeout(metadata).map(|timeout| {
        let margin = (timeout / 10).clamp(DEADLINE_MARGIN.0, DEADLINE_MARGIN.1);
        Instant::now() + timeout.saturating_sub(margin.min(timeout / 5))
    })
}

/// The `grpc-timeout` header: digits and a unit (H, M, S, m, u, n).
fn grpc_timeout(metadata: &MetadataMap) -> Option<Duration> {
    let text = metadata.get("grpc-timeout")?.to_str().ok()?;
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

fn score(score: Score) -> pb::Score {
    pb::Score {
        value: Some(match score {
            Score::Centipawns(cp) => pb::score::Value::Centipawns(cp),
            Score::Mate(moves) => pb::score::Value::Mate(moves),
        }),
    }
}

fn millis(d: Duration) -> u32 {
    u32::try_from(d.as_millis()).unwrap_or(u32::MAX)
}

fn moves(pv: Vec<MoveDescription>) -> Vec<pb::Move> {
    pv.into_iter().map(convert::move_description).collect()
}

fn analyze_response(analysis: Analysis, last: bool) -> pb::AnalyzeResponse {
    let nps = analysis.nps();
    let lines: Vec<pb::Line> = analysis
        .lines
        .into_iter()
        .map(|line| pb::Line {
            score: Some(score(line.score)),
            pv: moves(line.pv),
        })
        .collect();
    // The first line is also the response's own score and PV.
    let best = lines.first().cloned().unwrap_or_default();
    pb::AnalyzeResponse {
        depth: analysis.depth,
        score: best.score,
        nodes: analysis.nodes,
        nps,
        time_ms: millis(analysis.elapsed),
        pv: best.pv,
        r#final: last,
        lines,
    }
}

type AnalyzeStream = Pin<Box<dyn Stream<Item = Result<pb::AnalyzeResponse, Status>> + Send>>;

type AnalyzeGameStream =
    Pin<Box<dyn Stream<Item = Result<pb::AnalyzeGameResponse, Status>> + Send>>;

/// AnalyzeGame's game and search.
fn review_request(r: &pb::AnalyzeGameRequest) -> Result<(ReviewSource, ReviewSearch), Status> {
    use pb::analyze_game_request::{Game, Search};
    let source = match &r.game {
        None => {
            return Err(invalid_argument(
                "game",
                Reason::MissingField,
                "game_id or pgn is required",
            ));
        }
        Some(Game::GameId(id)) => ReviewSource::Game(id.clone()),
        Some(Game::Pgn(text)) => ReviewSource::Pgn {
            text: text.clone(),
            variant: match r.variant {
                0 => None,
                v => Some(convert::variant("variant", v)?),
            },
            rules: convert::xiangqi_rules("xiangqi_rules", r.xiangqi_rules)?,
        },
    };
    let search = match r.search {
        None | Some(Search::Depth(0) | Search::MovetimeMs(0)) => ReviewSearch::default(),
        Some(Search::Depth(depth)) => ReviewSearch::Depth(depth),
        Some(Search::MovetimeMs(ms)) => {
            ReviewSearch::Movetime(Duration::from_millis(u64::from(ms)))
        }
    };
    Ok((source, search))
}

fn evaluation(eval: Eval) -> pb::GameEvaluation {
    use pb::game_evaluation::Value;
    pb::GameEvaluation {
        value: Some(match eval {
            Eval::Centipawns(cp) => Value::Centipawns(cp),
            Eval::Mate(moves) => Value::Mate(moves),
            Eval::Ended(winner) => Value::Ended(winner.map_or(0, convert::side)),
        }),
    }
}

fn judgement_counts(counts: JudgementCounts) -> pb::MoveJudgementCounts {
    pb::MoveJudgementCounts {
        inaccuracies: counts.inaccuracies,
        mistakes: counts.mistakes,
        blunders: counts.blunders,
    }
}

fn review_response(event: ReviewEvent) -> pb::AnalyzeGameResponse {
    use pb::analyze_game_response::Item;
    pb::AnalyzeGameResponse {
        item: Some(match event {
            ReviewEvent::Move(m) => Item::Move(pb::AnalyzedMove {
                ply: u32::try_from(m.ply).unwrap_or(u32::MAX),
                side: convert::side(m.side),
                r#move: Some(convert::move_description(m.played)),
                before: Some(evaluation(m.before)),
                after: Some(evaluation(m.after)),
                pv: moves(m.pv),
                depth: m.depth,
                judgement: match m.judgement {
                    None => pb::MoveJudgement::Unspecified,
                    Some(Judgement::Inaccuracy) => pb::MoveJudgement::Inaccuracy,
                    Some(Judgement::Mistake) => pb::MoveJudgement::Mistake,
                    Some(Judgement::Blunder) => pb::MoveJudgement::Blunder,
                } as i32,
                accuracy: m.accuracy,
            }),
            ReviewEvent::Done {
                accuracies,
                white,
                black,
                stored,
            } => Item::Summary(pb::GameAnalysisSummary {
                white_accuracy: accuracies.white,
                black_accuracy: accuracies.black,
                stored,
                white: Some(judgement_counts(white)),
                black: Some(judgement_counts(black)),
            }),
        }),
    }
}

fn review_error(error: ReviewError) -> Status {
    match error {
        ReviewError::Game(e) => e.into(),
        ReviewError::Analysis(e) => e.into(),
    }
}

#[tonic::async_trait]
impl engine_server::Engine for EngineService {
    async fn best_move(
        &self,
        request: Request<pb::BestMoveRequest>,
    ) -> Result<Response<pb::BestMoveResponse>, Status> {
        let (job, order) = prepare(
            request.metadata(),
            request.get_ref().position.as_ref(),
            request.get_ref().limits.as_ref(),
            Duration::from_secs(1),
            1,
        )?;
        let caller = request.remote_addr().map(Peer::of);
        let analysis = self.analyst.best_move(caller, job, order).await?;
        // The final analysis, with the move to play pulled out.
        let info = analyze_response(analysis, true);
        Ok(Response::new(pb::BestMoveResponse {
            r#move: info.pv.first().cloned(),
            pv: info.pv,
            score: info.score,
            depth: info.depth,
            nodes: info.nodes,
            nps: info.nps,
            time_ms: info.time_ms,
        }))
    }

    type AnalyzeStream = AnalyzeStream;

    async fn analyze(
        &self,
        request: Request<pb::AnalyzeRequest>,
    ) -> Result<Response<AnalyzeStream>, Status> {
        let (job, order) = prepare(
            request.metadata(),
            request.get_ref().position.as_ref(),
            request.get_ref().limits.as_ref(),
            Duration::from_secs(10),
            request.get_ref().multipv,
        )?;
        let caller = request.remote_addr().map(Peer::of);
        let receiver = self.analyst.analyze(caller, job, order).await?;
        let stream = ReceiverStream::new(receiver).map(|answer| {
            let (analysis, last) = answer?;
            Ok(analyze_response(analysis, last))
        });
        Ok(Response::new(Box::pin(stream)))
    }

    type AnalyzeGameStream = AnalyzeGameStream;

    async fn analyze_game(
        &self,
        request: Request<pb::AnalyzeGameRequest>,
    ) -> Result<Response<AnalyzeGameStream>, Status> {
        let (source, search) = review_request(request.get_ref())?;
        let caller = request.remote_addr().map(Peer::of);
        let analyst = &self.analyst;
        let reviews = self
            .games
            .review(
                source,
                search,
                deadline(request.metadata()),
                |positions, order| analyst.analyze_game(caller, positions, order),
            )
            .await
            .map_err(review_error)?;
        let stream = ReceiverStream::new(reviews)
            .map(|event| event.map(review_response).map_err(review_error));
        Ok(Response::new(Box::pin(stream)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_grpc_timeouts() {
        let mut metadata = MetadataMap::new();
        assert_eq!(grpc_timeout(&metadata), None);
        metadata.insert("grpc-timeout", "250m".parse().unwrap());
        assert_eq!(grpc_timeout(&metadata), Some(Duration::from_millis(250)));
        metadata.insert("grpc-timeout", "2S".parse().unwrap());
        assert_eq!(grpc_timeout(&metadata), Some(Duration::from_secs(2)));
        metadata.insert("grpc-timeout", "x".parse().unwrap());
        assert_eq!(grpc_timeout(&metadata), None);
    }
}
