//! `arbiter uci`: the engine over the Universal Chess Interface, on stdin and
//! stdout, for GUIs and match tools. Xiangqi moves are ICCS, as Pikafish
//! writes them; select the game with `setoption name UCI_Variant value
//! chess|xiangqi`.

use std::{
    io::{BufRead, Write},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread::JoinHandle,
    time::{Duration, Instant},
};

use crate::{
    engine::{
        Evaluate, Level, Limits, MATE, MAX_MULTIPV, SearchResult, TranspositionTable, search_with,
    },
    rules::{Game, Record, Side, Variant},
    with_game,
};

/// Where UCI output goes (shared with the search thread).
pub type Output = Arc<Mutex<dyn Write + Send>>;

fn say(output: &Output, line: &str) {
    let mut out = output.lock().unwrap_or_else(|e| e.into_inner());
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

struct Search {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<()>,
    /// Searches until `stop` (no depth, node or time limit).
    infinite: bool,
}

/// A UCI session: the chosen game, options, position and running search.
pub struct Session {
    output: Output,
    variant: Variant,
    /// Kept across the searches of a game; cleared by `ucinewgame`.
    table: Arc<Mutex<TranspositionTable>>,
    level: Level,
    /// Lines reported per depth (`MultiPV`).
    multipv: usize,
    fen: Option<String>,
    moves: Vec<String>,
    search: Option<Search>,
}

impl Session {
    pub fn new(output: Output) -> Session {
        Session {
            output,
            variant: Variant::Chess,
            table: Arc::new(Mutex::new(TranspositionTable::new(16))),
            level: Level::MAX,
            multipv: 1,
            fen: None,
            moves: Vec::new(),
            search: None,
        }
    }

    /// Reads commands until `quit` or the end of input. At the end of input
    /// a limited search is allowed to finish (so `echo "go depth 6" | arbiter
    /// uci` answers); `quit` and `go infinite` stop at once.
    pub fn run(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            if !self.command(line.trim()) {
                self.stop();
                return;
            }
        }
        match self.search.take() {
            Some(search) if !search.infinite => {
                let _ = search.thread.join();
            }
            search => {
                self.search = search;
                self.stop();
            }
        }
    }

    /// Handles one command; false on `quit`.
    fn command(&mut self, line: &str) -> bool {
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "" => {}
            "uci" => {
                say(
                    &self.output,
                    &format!("id name Arbiter {}", env!("CARGO_PKG_VERSION")),
                );
                say(&self.output, "id author the Arbiter developers");
                say(
                    &self.output,
                    "option name UCI_Variant type combo default chess var chess var xiangqi",
                );
                say(
                    &self.output,
                    "option name Hash type spin default 16 min 1 max 4096",
                );
                say(
                    &self.output,
                    "option name Level type spin default 10 min 1 max 10",
                );
                say(
                    &self.output,
                    &format!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}"),
                );
                say(&self.output, "uciok");
            }
            "isready" => say(&self.output, "readyok"),
            "ucinewgame" => {
                self.stop();
                self.table().clear();
                self.fen = None;
                self.moves.clear();
            }
            "setoption" => self.set_option(rest),
            "position" => self.position(rest),
            "go" => self.go(rest),
            "stop" => self.stop(),
            "quit" => return false,
            _ => say(
                &self.output,
                &format!("info string unknown command: {word}"),
            ),
        }
        true
    }

    fn set_option(&mut self, rest: &str) {
        let rest = rest.strip_prefix("name ").unwrap_or(rest);
        let (name, value) = rest.split_once(" value ").unwrap_or((rest, ""));
        match name.trim().to_ascii_lowercase().as_str() {
            "uci_variant" => match value.trim().parse() {
                Ok(variant) => {
                    self.stop();
                    self.variant = variant;
                    self.fen = None;
                    self.moves.clear();
                }
                Err(e) => say(&self.output, &format!("info string {e}")),
            },
            "hash" => match value.trim().parse::<usize>() {
                Ok(mb) if (1..=4096).contains(&mb) => {
                    self.stop();
                    *self.table() = TranspositionTable::new(mb);
                }
                _ => say(
                    &self.output,
                    "info string Hash must be a number of MiB from 1 to 4096",
                ),
            },
            "level" => match value.trim().parse().ok().and_then(Level::new) {
                Some(level) => self.level = level,
                None => say(
                    &self.output,
                    "info string Level must be a number from 1 to 10",
                ),
            },
            "multipv" => match value.trim().parse::<usize>() {
                Ok(lines) if (1..=MAX_MULTIPV).contains(&lines) => self.multipv = lines,
                _ => say(
                    &self.output,
                    &format!("info string MultiPV must be a number from 1 to {MAX_MULTIPV}"),
                ),
            },
            other => say(
                &self.output,
                &format!("info string unknown option: {other}"),
            ),
        }
    }

    fn position(&mut self, rest: &str) {
        let (setup, moves) = rest.split_once(" moves").unwrap_or((rest, ""));
        let fen = match setup.trim() {
            "startpos" => None,
            s => match s.strip_prefix("fen ") {
                Some(fen) => Some(fen.trim().to_owned()),
                None => {
                    say(
                        &self.output,
                        "info string position: expected startpos or fen <FEN>",
                    );
                    return;
                }
            },
        };
        let moves: Vec<String> = moves.split_whitespace().map(str::to_owned).collect();
        let checked =
            with_game!(self.variant, G => record::<G>(fen.as_deref(), &moves).map(|_| ()));
        match checked {
            Ok(()) => {
                self.fen = fen;
                self.moves = moves;
            }
            Err(e) => say(&self.output, &format!("info string position rejected: {e}")),
        }
    }

    fn go(&mut self, rest: &str) {
        self.stop();
        let stop = Arc::new(AtomicBool::new(false));
        let go = Go::parse(rest);
        let thread = with_game!(self.variant, G => {
            let record = match record::<G>(self.fen.as_deref(), &self.moves) {
                Ok(record) => record,
                Err(e) => {
                    say(&self.output, &format!("info string {e}"));
                    say(&self.output, "bestmove 0000");
                    return;
                }
            };
            let mut limits = self.level.apply(go.limits(record.current().turn()), rand::random());
            limits.multipv = self.multipv;
            let (output, flag, table) = (self.output.clone(), stop.clone(), self.table.clone());
            std::thread::spawn(move || {
                let mut table = table.lock().unwrap_or_else(|e| e.into_inner());
                think(&record, &limits, &mut table, &flag, &output);
            })
        });
        self.search = Some(Search {
            stop,
            thread,
            infinite: go.is_infinite(),
        });
    }

    fn table(&self) -> std::sync::MutexGuard<'_, TranspositionTable> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Stops a running search; it prints its best move.
    fn stop(&mut self) {
        if let Some(search) = self.search.take() {
            search.stop.store(true, Ordering::Relaxed);
            let _ = search.thread.join();
        }
    }
}

fn record<G: Game>(fen: Option<&str>, moves: &[String]) -> Result<Record<G>, String> {
    let start = match fen {
        None => G::start(),
        Some(fen) => G::from_fen(fen).map_err(|e| e.to_string())?,
    };
    Record::replay(start, moves).map_err(|e| e.to_string())
}

/// Runs one search, printing `info` per iteration and the `bestmove`.
fn think<G: Evaluate>(
    record: &Record<G>,
    limits: &Limits,
    table: &mut TranspositionTable,
    stop: &AtomicBool,
    output: &Output,
) {
    let started = Instant::now();
    let pos = record.current();
    let result = search_with(record, limits, table, stop, |r: &SearchResult<G::Move>| {
        let elapsed = started.elapsed().as_millis().max(1);
        for (i, l) in r.lines.iter().enumerate() {
            // `multipv` is only named when several lines were asked for.
            let multipv = if limits.multipv > 1 {
                format!(" multipv {}", i + 1)
            } else {
                String::new()
            };
            say(
                output,
                &format!(
                    "info depth {}{multipv} score {} nodes {} nps {} time {} pv {}",
                    r.depth,
                    uci_score(l.score),
                    r.nodes,
                    u128::from(r.nodes) * 1000 / elapsed,
                    elapsed,
                    line(pos, &l.pv).join(" ")
                ),
            );
        }
    });
    let best = result
        .best()
        .map_or_else(|| "0000".to_owned(), |m| pos.coordinate_notation(m));
    say(output, &format!("bestmove {best}"));
}

/// A principal variation in coordinate notation.
fn line<G: Game>(pos: &G, pv: &[G::Move]) -> Vec<String> {
    let mut pos = pos.clone();
    pv.iter()
        .map(|&m| {
            let text = pos.coordinate_notation(m);
            pos.play(m);
            text
        })
        .collect()
}

fn uci_score(score: i32) -> String {
    if score.abs() >= MATE - 1_000 {
        let plies = MATE - score.abs();
        let moves = (plies + 1) / 2;
        format!("mate {}", if score > 0 { moves } else { -moves })
    } else {
        format!("cp {score}")
    }
}

/// The parameters of a `go` command.
#[derive(Debug, Default)]
struct Go {
    depth: Option<u32>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    time: [Option<u64>; 2],
    increment: [Option<u64>; 2],
    moves_to_go: Option<u64>,
}

impl Go {
    fn parse(rest: &str) -> Go {
        let mut go = Go::default();
        let words: Vec<&str> = rest.split_whitespace().collect();
        for pair in words.windows(2) {
            let n = pair[1].parse::<u64>().ok();
            match pair[0] {
                "depth" => go.depth = n.and_then(|d| u32::try_from(d).ok()),
                "nodes" => go.nodes = n,
                "movetime" => go.movetime = n,
                "wtime" => go.time[0] = n,
                "btime" => go.time[1] = n,
                "winc" => go.increment[0] = n,
                "binc" => go.increment[1] = n,
                "movestogo" => go.moves_to_go = n,
                _ => {}
            }
        }
        go
    }

    /// No limit given: search until `stop`.
    fn is_infinite(&self) -> bool {
        self.depth.is_none()
            && self.nodes.is_none()
            && self.movetime.is_none()
            && self.time.iter().all(Option::is_none)
    }

    /// Limits for the side to move; `infinite` (or nothing) searches until
    /// `stop`.
    fn limits(&self, turn: Side) -> Limits {
        let index = usize::from(turn == Side::Black);
        let mut limits = match (self.movetime, self.time[index]) {
            (Some(movetime), _) => Limits::movetime(Duration::from_millis(movetime)),
            (None, Some(time)) => Limits::clock(
                Duration::from_millis(time),
                Duration::from_millis(self.increment[index].unwrap_or(0)),
                self.moves_to_go.and_then(|n| u32::try_from(n).ok()),
            ),
            (None, None) => Limits::default(),
        };
        if let Some(depth) = self.depth {
            limits.depth = depth;
        }
        limits.nodes = self.nodes;
        limits
    }
}
