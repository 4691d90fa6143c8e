//! An engine's `info` lines gathered into analyses, and its `bestmove`
//! into the last one.

use std::time::Instant;

use super::UciPosition;
use crate::{
    analysis::{Analysis, Score, Variation},
    rules::{MoveDescription, Ranks},
};

/// What an `info` line with a principal variation says.
#[derive(Debug, PartialEq)]
struct Info<'a> {
    depth: u32,
    multipv: usize,
    score: Score,
    nodes: Option<u64>,
    pv: Vec<&'a str>,
}

/// Reads an `info` line with a depth, an exact score and a PV; None for
/// any other line (`info string`, `currmove`, an aspiration window's
/// bound).
fn info(line: &str) -> Option<Info<'_>> {
    let mut words = line.strip_prefix("info ")?.split_whitespace();
    let (mut depth, mut multipv, mut score, mut nodes, mut pv) = (None, 1, None, None, Vec::new());
    while let Some(word) = words.next() {
        match word {
            "depth" => depth = words.next()?.parse().ok(),
            "multipv" => multipv = words.next()?.parse().ok()?,
            "score" => {
                let kind = words.next()?;
                let n = words.next()?.parse().ok()?;
                score = Some(match kind {
                    "cp" => Score::Centipawns(n),
                    "mate" => Score::Mate(n),
                    _ => return None,
                });
            }
            "lowerbound" | "upperbound" | "string" => return None,
            "nodes" => nodes = words.next()?.parse().ok(),
            "pv" => pv = words.by_ref().collect(),
            _ => {}
        }
    }
    (!pv.is_empty() && multipv >= 1).then_some(Info {
        depth: depth?,
        multipv,
        score: score?,
        nodes,
        pv,
    })
}

/// The lines of a search so far.
pub(super) struct Progress<'p> {
    position: &'p dyn UciPosition,
    ranks: Ranks,
    started: Instant,
    nodes: u64,
    /// The depth being reported, and its lines so far.
    depth: u32,
    current: Vec<Option<Variation>>,
    /// The deepest depth with all its lines, and those lines.
    complete: Option<(u32, Vec<Variation>)>,
}

impl<'p> Progress<'p> {
    /// A search of `position` reporting `lines` lines a depth, its moves
    /// numbered with `ranks`.
    pub(super) fn new(position: &'p dyn UciPosition, ranks: Ranks, lines: usize) -> Progress<'p> {
        Progress {
            position,
            ranks,
            started: Instant::now(),
            nodes: 0,
            depth: 0,
            current: vec![None; lines.max(1)],
            complete: None,
        }
    }

    /// Before each `go`: the engine starts again from depth 1, and only
    /// depths from the one being reported count again.
    pub(super) fn resume(&mut self) {
        self.current.fill(None);
    }

    /// Reads one line of the engine's; the analysis of a depth the first
    /// time all its lines are in.
    pub(super) fn read(&mut self, line: &str) -> Option<Analysis> {
        let info = info(line)?;
        self.nodes = info.nodes.unwrap_or(self.nodes);
        let pv = self.position.line(&info.pv, self.ranks);
        if pv.is_empty() || info.depth < self.depth {
            return None;
        }
        if info.depth > self.depth {
            self.depth = info.depth;
            self.current.fill(None);
        }
        *self.current.get_mut(info.multipv - 1)? = Some(Variation {
            score: info.score,
            pv,
        });
        let lines: Vec<Variation> = self.current.iter().flatten().cloned().collect();
        if lines.len() < self.current.len() {
            return None;
        }
        let new = self.complete.as_ref().is_none_or(|(d, _)| *d < self.depth);
        self.complete = Some((self.depth, lines.clone()));
        new.then(|| self.analysis(self.depth, lines))
    }

    /// The final analysis, its best line starting with `best` (the
    /// engine's `bestmove`, which may differ from its line's first move
    /// when it plays weaker on purpose).
    pub(super) fn finish(mut self, best: MoveDescription) -> Analysis {
        let (depth, mut lines) = self.complete.take().unwrap_or_else(|| {
            let partial = self.current.iter().map_while(Option::clone).collect();
            (self.depth, partial)
        });
        let starts_with = |line: &Variation| line.pv.first().map(|m| &m.uci) == Some(&best.uci);
        if !lines.first().is_some_and(starts_with) {
            let score = lines.first().map_or(Score::Centipawns(0), |l| l.score);
            lines.retain(|line| !starts_with(line));
            lines.insert(
                0,
                Variation {
                    score,
                    pv: vec![best],
                },
            );
            lines.truncate(self.current.len());
        }
        self.analysis(depth, lines)
    }

    /// The engine's `bestmove` read on the position; None if it is not a
    /// legal move there.
    pub(super) fn best(&self, text: &str) -> Option<MoveDescription> {
        self.position.line(&[text], self.ranks).pop()
    }

    fn analysis(&self, depth: u32, lines: Vec<Variation>) -> Analysis {
        Analysis {
            lines,
            depth,
            nodes: self.nodes,
            elapsed: self.started.elapsed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Game, Record, chess::Chess};

    #[test]
    fn reads_info_lines() {
        let line = "info depth 7 seldepth 9 multipv 2 score cp -12 nodes 9835 nps 517631 \
                    tbhits 0 time 19 pv e2e4 e7e5";
        assert_eq!(
            info(line),
            Some(Info {
                depth: 7,
                multipv: 2,
                score: Score::Centipawns(-12),
                nodes: Some(9835),
                pv: vec!["e2e4", "e7e5"],
            })
        );
        assert_eq!(
            info("info depth 3 score mate -2 pv e2e4").map(|i| i.score),
            Some(Score::Mate(-2))
        );
        for other in [
            "info depth 5 score cp 30 upperbound nodes 10 pv e2e4",
            "info string NNUE evaluation enabled",
            "info depth 1 currmove e2e4 currmovenumber 1",
            "info depth 1 multipv 0 score cp 1 pv e2e4",
        ] {
            assert_eq!(info(other), None, "{other}");
        }
    }

    #[test]
    fn reports_complete_depths_and_ends_with_the_best_move() {
        let position = Record::new(Chess::start());
        let mut progress = Progress::new(&position, Ranks::AsRules, 2);
        let first = "info depth 1 multipv 1 score cp 30 nodes 20 pv e2e4";
        assert!(progress.read(first).is_none());
        let analysis = progress
            .read("info depth 1 multipv 2 score cp 20 nodes 40 pv d2d4 d7d5")
            .unwrap();
        assert_eq!(
            (analysis.depth, analysis.nodes, analysis.lines.len()),
            (1, 40, 2)
        );
        // A depth told again is not reported again, an illegal PV is left
        // out.
        assert!(
            progress
                .read("info depth 1 multipv 2 score cp 25 pv d2d4")
                .is_none()
        );
        assert!(
            progress
                .read("info depth 2 multipv 1 score cp 9 pv e2e5")
                .is_none()
        );
        // The best move leads, even when it is not the first line's.
        assert!(progress.best("e2e5").is_none());
        let best = progress.best("d2d4").unwrap();
        let done = progress.finish(best);
        assert_eq!(done.best().unwrap().uci.as_str(), "d2d4");
        assert_eq!(done.lines.len(), 2);
    }
}
