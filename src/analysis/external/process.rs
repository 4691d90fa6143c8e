//! One external engine process: started, greeted (`uci`, `isready`), fed
//! commands and read with a deadline on every line.

use std::{
    collections::{HashMap, HashSet},
    process::Stdio,
    time::{Duration, Instant},
};

use tokio::{
    io::AsyncWriteExt,
    process::{Child, ChildStdin, ChildStdout, Command},
};

use super::{
    EngineFailure, UciEngine,
    lines::{LineError, Lines},
    strength::Strength,
};
use crate::{
    engine::Level,
    rules::{Ranks, Variant},
};

/// How long an engine may take to answer `uciok` and `readyok` (loading
/// its network included).
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// The options Arbiter sets when an engine has them, in lower case.
const KNOWN: [&str; 5] = [
    "uci_variant",
    "uci_chess960",
    "uci_elo",
    "skill level",
    "multipv",
];

/// A spin option's range, as the engine announced it.
#[derive(Clone, Copy, Debug)]
struct Range {
    min: i64,
    max: i64,
}

/// A running engine, ready for a search.
pub(super) struct EngineProcess {
    child: Child,
    input: ChildStdin,
    output: Lines<ChildStdout>,
    /// What it says it is (`id name`).
    pub(super) name: String,
    /// How its xiangqi moves number the ranks.
    pub(super) ranks: Ranks,
    strength: Strength,
    /// `MultiPV`'s range, if it has the option.
    multipv: Option<Range>,
    /// What was last set, so a search sets only what changes.
    level: Option<Level>,
    lines: usize,
}

impl EngineProcess {
    /// Starts `engine` for `variant` and greets it.
    pub(super) async fn start(
        variant: Variant,
        engine: &UciEngine,
    ) -> Result<EngineProcess, EngineFailure> {
        let mut child = Command::new(&engine.path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| EngineFailure::Start(format!("{}: {e}", engine.path.display())))?;
        let (Some(input), Some(output)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(EngineFailure::Start("no pipes to the process".to_owned()));
        };
        let mut process = EngineProcess {
            child,
            input,
            output: Lines::new(output),
            name: String::new(),
            ranks: Ranks::AsRules,
            strength: Strength::Fixed,
            multipv: None,
            level: None,
            lines: 1,
        };
        let greeted = process.greet(variant, engine).await;
        match greeted {
            Ok(()) => Ok(process),
            Err(failure) => {
                process.kill().await;
                Err(failure)
            }
        }
    }

    /// `uci` and its answer, the options, `isready`.
    async fn greet(&mut self, variant: Variant, engine: &UciEngine) -> Result<(), EngineFailure> {
        let until = Instant::now() + HANDSHAKE_TIMEOUT;
        self.send("uci").await?;
        let mut announced = HashSet::new();
        let mut spins = HashMap::new();
        // Does its UCI_Variant offer the game?
        let mut offered = false;
        loop {
            let line = self
                .line_by(until)
                .await?
                .ok_or(EngineFailure::Handshake("uciok", HANDSHAKE_TIMEOUT))?;
            if line == "uciok" {
                break;
            }
            if let Some(id) = line.strip_prefix("id name ") {
                id.clone_into(&mut self.name);
            } else if let Some((option, kind)) = option(&line) {
                // Only the options Arbiter sets are kept: an engine's
                // output cannot grow them.
                let option = option.to_ascii_lowercase();
                let Some(&known) = KNOWN.iter().find(|known| **known == option) else {
                    continue;
                };
                if let Some(range) = spin(kind) {
                    spins.insert(known, range);
                }
                if known == "uci_variant" {
                    let words: Vec<&str> = kind.split_whitespace().collect();
                    offered = words
                        .windows(2)
                        .any(|w| w[0] == "var" && w[1] == variant.uci_name());
                }
                announced.insert(known);
            }
        }
        let fairy = self.name.starts_with("Fairy-Stockfish");
        self.ranks = match (variant, engine.ranks) {
            (Variant::Xiangqi, Some(ranks)) => ranks,
            (Variant::Xiangqi, None) if fairy => Ranks::FromOne,
            _ => Ranks::AsRules,
        };
        let skill = spins.get("skill level").copied();
        self.strength = match (spins.get("uci_elo"), skill) {
            (_, Some(Range { min, max })) if fairy => Strength::Skill { min, max },
            (Some(&Range { min, max }), _) => Strength::Elo { min, max },
            (None, Some(Range { min, max })) => Strength::Skill { min, max },
            (None, None) => Strength::Fixed,
        };
        self.multipv = spins.get("multipv").copied();
        // Fairy-Stockfish plays either game once told which; Chess960 is
        // chess with its castling (moves king takes rook, `e1h1`).
        if variant.is_chess_variant() && !announced.contains("uci_variant") {
            return Err(EngineFailure::Unsupported("UCI_Variant"));
        }
        if variant.is_chess_variant() && !offered {
            return Err(EngineFailure::NotPlayed(variant));
        }
        if announced.contains("uci_variant") {
            self.set("UCI_Variant", variant.uci_name()).await?;
        }
        if variant == Variant::Chess960 {
            if !announced.contains("uci_chess960") {
                return Err(EngineFailure::Unsupported("UCI_Chess960"));
            }
            self.set("UCI_Chess960", "true").await?;
        }
        for (option, value) in &engine.options {
            self.set(option, value).await?;
        }
        self.ready().await
    }

    /// `isready`, answered in time.
    async fn ready(&mut self) -> Result<(), EngineFailure> {
        let until = Instant::now() + HANDSHAKE_TIMEOUT;
        self.send("isready").await?;
        loop {
            match self.line_by(until).await? {
                Some(line) if line == "readyok" => return Ok(()),
                Some(_) => {}
                None => return Err(EngineFailure::Handshake("readyok", HANDSHAKE_TIMEOUT)),
            }
        }
    }

    /// Sets the options for a search at `level` finding `lines` lines,
    /// where they changed.
    pub(super) async fn prepare(
        &mut self,
        level: Level,
        lines: usize,
    ) -> Result<(), EngineFailure> {
        if self.level != Some(level) {
            for (option, value) in self.strength.options(level) {
                self.set(option, &value).await?;
            }
            self.level = Some(level);
        }
        let lines = self.lines_for(lines);
        if self.multipv.is_some() && self.lines != lines {
            self.set("MultiPV", &lines.to_string()).await?;
            self.lines = lines;
        }
        Ok(())
    }

    /// How many lines the engine reports when asked for `lines`.
    pub(super) fn lines_for(&self, lines: usize) -> usize {
        self.multipv.map_or(1, |Range { min, max }| {
            let lines = i64::try_from(lines).unwrap_or(i64::MAX).clamp(min, max);
            usize::try_from(lines).unwrap_or(1)
        })
    }

    async fn set(&mut self, option: &str, value: &str) -> Result<(), EngineFailure> {
        self.send(&format!("setoption name {option} value {value}"))
            .await
    }

    /// Writes one command.
    pub(super) async fn send(&mut self, command: &str) -> Result<(), EngineFailure> {
        let line = format!("{command}\n");
        if self.input.write_all(line.as_bytes()).await.is_err() || self.input.flush().await.is_err()
        {
            return Err(self.exited().await);
        }
        Ok(())
    }

    /// The next line, or `None` if none came by `until`.
    pub(super) async fn line_by(
        &mut self,
        until: Instant,
    ) -> Result<Option<String>, EngineFailure> {
        match tokio::time::timeout_at(until.into(), self.output.next()).await {
            Ok(Ok(line)) => Ok(Some(line)),
            Ok(Err(LineError::TooLong)) => Err(EngineFailure::LineTooLong),
            Ok(Err(LineError::Ended)) => Err(self.exited().await),
            Err(_) => Ok(None),
        }
    }

    /// Whether the process still runs (an idle one may have been killed).
    pub(super) fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Why the process went: its exit status, once it has one.
    async fn exited(&mut self) -> EngineFailure {
        let status = tokio::time::timeout(Duration::from_secs(1), self.child.wait()).await;
        EngineFailure::Exited(match status {
            Ok(Ok(status)) => status.to_string(),
            _ => "its output ended".to_owned(),
        })
    }

    /// Kills the process and waits for it to go.
    pub(super) async fn kill(mut self) {
        let _ = self.child.kill().await;
    }
}

/// The name and the rest (`type ...`) of an `option name N type ...` line.
fn option(line: &str) -> Option<(&str, &str)> {
    line.strip_prefix("option name ")?.split_once(" type ")
}

/// The range of a spin option (`spin default D min A max B`).
fn spin(kind: &str) -> Option<Range> {
    let words: Vec<&str> = kind.split_whitespace().collect();
    if words.first() != Some(&"spin") {
        return None;
    }
    let value = |key: &str| {
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse().ok()
    };
    Some(Range {
        min: value("min")?,
        max: value("max")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_options_and_their_ranges() {
        let (name, kind) =
            option("option name Skill Level type spin default 20 min -20 max 20").unwrap();
        let range = spin(kind).unwrap();
        assert_eq!((name, range.min, range.max), ("Skill Level", -20, 20));
        let (name, kind) =
            option("option name UCI_Variant type combo default chess var chess").unwrap();
        assert_eq!(name, "UCI_Variant");
        assert!(spin(kind).is_none());
        assert!(option("id name Stockfish 15.1").is_none());
    }
}
