//! `arbiter serve`'s options for the games in play kept in memory.

use crate::{
    games::{DEFAULT_LIVE_GAMES, DEFAULT_LIVE_GAMES_MEMORY},
    server::ServerConfig,
};

/// How many games in play, and how much of them, stay in memory.
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// Games in play kept in memory between their changes, at most, so
    /// that a move neither reads the stored moves again nor replays the
    /// game (0: none; the game changed longest ago goes first). Also
    /// bounded by --live-games-memory.
    #[arg(long, env = "ARBITER_LIVE_GAMES", default_value_t = DEFAULT_LIVE_GAMES as u32, value_parser = clap::value_parser!(u32).range(0..=10_000_000))]
    live_games: u32,
    /// Memory the games in play kept in memory may take, in MiB or with a
    /// unit (512MiB, 2GiB; 0: none kept); past it the game changed longest
    /// ago goes first. A game of 40 plies takes 5.4-6.2 KB, so the default
    /// holds 87,000 or more of them.
    #[arg(long, env = "ARBITER_LIVE_GAMES_MEMORY", default_value = "512MiB", value_parser = memory)]
    live_games_memory: usize,
}

impl LiveArgs {
    /// `config` with these options.
    pub fn apply(self, config: ServerConfig) -> ServerConfig {
        ServerConfig {
            live_games: self.live_games as usize,
            live_games_memory: self.live_games_memory,
            ..config
        }
    }
}

/// A memory size in MiB, or with a unit (KiB, MiB, GiB), up to 1 TiB.
fn memory(text: &str) -> Result<usize, String> {
    let (n, unit) = number_and_unit(text)
        .ok_or_else(|| format!("{text:?} is not a size (e.g. 512, 512MiB, 2GiB)"))?;
    let unit: usize = match unit {
        "" | "MiB" => 1 << 20,
        "KiB" => 1 << 10,
        "GiB" => 1 << 30,
        _ => {
            return Err(format!(
                "{text:?}: the unit is KiB, MiB or GiB, or none for MiB"
            ));
        }
    };
    n.checked_mul(unit)
        .filter(|&size| size <= 1 << 40)
        .ok_or_else(|| format!("{text:?}: a size up to 1024GiB"))
}

/// `text` as its leading digits' number and the unit after them.
pub(super) fn number_and_unit(text: &str) -> Option<(usize, &str)> {
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    Some((digits.parse().ok()?, unit))
}

/// The default's text and constant agree.
const _: () = assert!(DEFAULT_LIVE_GAMES_MEMORY == 512 << 20);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_reads_mebibytes_or_a_unit() {
        assert_eq!(memory("512"), Ok(512 << 20));
        assert_eq!(memory("512MiB"), Ok(512 << 20));
        assert_eq!(memory("2GiB"), Ok(2 << 30));
        assert_eq!(memory("64KiB"), Ok(64 << 10));
        assert_eq!(memory("0"), Ok(0));
        for bad in ["", "MiB", "1.5GiB", "12MB", "-1", "2000GiB"] {
            assert!(memory(bad).is_err(), "{bad:?}");
        }
    }
}
