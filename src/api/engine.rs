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
    analysis::{Analysis, Analyst, Job, MAX_MOVETIME, Score, SearchOrder},
    engine::{Level, MAX_DEPTH, MAX_MULTIPV},
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
    // Answer with what was found shortly before the caller's deadline,
    // however long the call waited for its turn.
    let deadline = grpc_timeout(metadata).map(|timeout| {
        let margin = (timeout / 10).clamp(DEADLINE_MARGIN.0, DEADLINE_MARGIN.1);
        Instant::now() + timeout.saturating_sub(margin.min(timeout / 5))
    });
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
