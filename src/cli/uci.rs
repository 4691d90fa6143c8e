//! `arbiter uci`: the engine over the Universal Chess Interface, on stdin and
//! stdout, for GUIs and match tools. Select the game with `setoption name
//! UCI_Variant value chess|xiangqi` (or `arbiter uci --variant`). Xiangqi
//! moves number the ranks as the tools around the GUI do (option
//! `XiangqiRanks`): 1-10 as Fairy-Stockfish (`h3e3`) once `UCI_Variant`
//! chose xiangqi, 0-9 as ICCS and Pikafish (`h2e2`) otherwise. Chess is
//! Chess960 once `UCI_Chess960` is true: castling is then read and written
//! as the king taking its own rook (`e1h1`).

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
    rules::{Game, Quoted, Ranks, Record, ReplayError, Side, Variant},
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

/// Says which move of `given` (as the GUI wrote them) could not be played,
/// and how the rules read it where that differs.
fn rejected(given: &[&str], e: &ReplayError) -> String {
    match given.get(e.ply) {
        Some(&text) if text != e.text => format!(
            "move {} ({}, read as {}): {}",
            e.ply + 1,
            Quoted(text),
            Quoted(&e.text),
            e.error
        ),
        _ => e.to_string(),
    }
}

/// What `position` set: a FEN (None: the start position) and the moves after
/// it, as the rules read them.
#[derive(Default)]
struct Setup {
    fen: Option<String>,
    moves: Vec<String>,
}

impl Setup {
    /// The position before the moves.
    fn start<G: Game>(&self) -> Result<G, String> {
        match &self.fen {
            None => Ok(G::start()),
            Some(fen) => G::from_fen(fen).map_err(|e| e.to_string()),
        }
    }

    fn record<G: Game>(&self) -> Result<Record<G>, String> {
        Record::replay(self.start()?, &self.moves).map_err(|e| e.to_string())
    }
}

/// A UCI session: the chosen game, options, position and running search.
pub struct Session {
    output: Output,
    variant: Variant,
    /// Option `UCI_Chess960`: chess is played as Chess960.
    chess960: bool,
    /// Option `XiangqiRanks`; None (`auto`) follows `auto_ranks`.
    xiangqi_ranks: Option<Ranks>,
    /// Xiangqi's ranks unless chosen: 1-10 once the GUI chose the game with
    /// `UCI_Variant`, as GUIs do for Fairy-Stockfish; 0-9 in a session that
    /// starts as xiangqi, as GUIs for Pikafish (which has no `UCI_Variant`)
    /// expect.
    auto_ranks: Ranks,
    /// Kept across the searches of a game; cleared by `ucinewgame`.
    table: Arc<Mutex<TranspositionTable>>,
    level: Level,
    /// Lines reported per depth (`MultiPV`).
    multipv: usize,
    /// What `go` searches, or why the last `position` was rejected: then
    /// `go` answers no move rather than one for an earlier position.
    setup: Result<Setup, String>,
    search: Option<Search>,
}

impl Session {
    /// A session that starts with `variant`, until `UCI_Variant` changes it.
    pub fn new(output: Output, variant: Variant) -> Session {
        Session {
            output,
            // Chess960 is chess with the option set.
            variant: if variant == Variant::Chess960 {
                Variant::Chess
            } else {
                variant
            },
            chess960: variant == Variant::Chess960,
            xiangqi_ranks: None,
            auto_ranks: Ranks::AsRules,
            table: Arc::new(Mutex::new(TranspositionTable::new(16))),
            level: Level::MAX,
            multipv: 1,
            setup: Ok(Setup::default()),
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
                    &format!(
                        "option name UCI_Variant type combo default {}{}",
                        self.variant.uci_name(),
                        Variant::ALL
                            .iter()
                            .filter(|v| **v != Variant::Chess960)
                            .map(|v| format!(" var {}", v.uci_name()))
                            .collect::<String>()
                    ),
                );
                say(
                    &self.output,
                    &format!(
                        "option name UCI_Chess960 type check default {}",
                        self.chess960
                    ),
                );
                say(
                    &self.output,
                    "option name XiangqiRanks type combo default auto var auto var 0-9 var 1-10",
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
                self.setup = Ok(Setup::default());
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
            "uci_variant" => match Variant::ALL
                .into_iter()
                .find(|v| v.uci_name() == value.trim())
                .map_or_else(|| value.trim().parse(), Ok)
            {
                Ok(variant) => {
                    self.stop();
                    self.variant = if variant == Variant::Chess960 {
                        self.chess960 = true;
                        Variant::Chess
                    } else {
                        variant
                    };
                    self.auto_ranks = Ranks::FromOne;
                    self.setup = Ok(Setup::default());
                }
                Err(e) => say(&self.output, &format!("info string {e}")),
            },
            "uci_chess960" => match value.trim() {
                "true" | "false" => {
                    self.stop();
                    self.chess960 = value.trim() == "true";
                    self.setup = Ok(Setup::default());
                }
                _ => say(
                    &self.output,
                    "info string UCI_Chess960 must be true or false",
                ),
            },
            "xiangqiranks" => match value.trim() {
                "auto" => self.xiangqi_ranks = None,
                "0-9" => self.xiangqi_ranks = Some(Ranks::AsRules),
                "1-10" => self.xiangqi_ranks = Some(Ranks::FromOne),
                _ => say(
                    &self.output,
                    "info string XiangqiRanks must be auto, 0-9 or 1-10",
                ),
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
        self.setup = self
            .read_setup(rest)
            .map_err(|e| format!("position rejected: {e}"));
        if let Err(e) = &self.setup {
            say(&self.output, &format!("info string {e}"));
        }
    }

    fn read_setup(&self, rest: &str) -> Result<Setup, String> {
        let (setup, moves) = rest.split_once(" moves").unwrap_or((rest, ""));
        let fen = match setup.trim() {
            "startpos" => None,
            s => Some(
                s.strip_prefix("fen ")
                    .ok_or("expected startpos or fen <FEN>")?
                    .trim()
                    .to_owned(),
            ),
        };
        let given: Vec<&str> = moves.split_whitespace().collect();
        let ranks = self.ranks();
        let moves = given
            .iter()
            .enumerate()
            .map(|(ply, text)| {
                ranks.read(text).ok_or_else(|| {
                    format!(
                        "move {}: {}: files are a-i and ranks 1-10 (XiangqiRanks 0-9 reads \
                         ranks 0-9)",
                        ply + 1,
                        Quoted(text)
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        let setup = Setup { fen, moves };
        with_game!(self.game(), G => {
            Record::replay(setup.start::<G>()?, &setup.moves).map_err(|e| rejected(&given, &e))?;
        });
        Ok(setup)
    }

    /// The game played now: chess is Chess960 under `UCI_Chess960`.
    fn game(&self) -> Variant {
        match self.variant {
            Variant::Chess if self.chess960 => Variant::Chess960,
            variant => variant,
        }
    }

    /// How xiangqi's ranks are numbered now.
    fn ranks(&self) -> Ranks {
        match self.variant {
            Variant::Xiangqi => self.xiangqi_ranks.unwrap_or(self.auto_ranks),
            _ => Ranks::AsRules,
        }
    }

    fn go(&mut self, rest: &str) {
        self.stop();
        let stop = Arc::new(AtomicBool::new(false));
        let go = Go::parse(rest);
        let thread = with_game!(self.game(), G => {
            let setup = self.setup.as_ref().map_err(String::clone);
            let record = match setup.and_then(Setup::record::<G>) {
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
            let ranks = self.ranks();
            std::thread::spawn(move || {
                let mut table = table.lock().unwrap_or_else(|e| e.into_inner());
                think(&record, &limits, ranks, &mut table, &flag, &output);
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

/// Runs one search, printing `info` per iteration and the `bestmove`.
fn think<G: Evaluate>(
    record: &Record<G>,
    limits: &Limits,
    ranks: Ranks,
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
                    line(pos, &l.pv, ranks).join(" ")
                ),
            );
        }
    });
    let best = result.best().map_or_else(
        || "0000".to_owned(),
        |m| ranks.write(pos.coordinate_notation(m)),
    );
    say(output, &format!("bestmove {best}"));
}

/// A principal variation in coordinate notation.
fn line<G: Game>(pos: &G, pv: &[G::Move], ranks: Ranks) -> Vec<String> {
    let mut pos = pos.clone();
    pv.iter()
        .map(|&m| {
            let text = ranks.write(pos.coordinate_notation(m));
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
