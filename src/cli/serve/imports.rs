//! `arbiter serve`'s options for imported games.

use crate::{
    api::{DEFAULT_IMPORT_KIB_PER_SECOND, DEFAULT_IMPORT_MAX_GAMES},
    games::PgnLimits,
    server::ServerConfig,
};

/// How much ImportGame and ImportGames read.
#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// Most moves ImportGame reads (and ImportGames, of each game): a
    /// longer game is refused as soon as the reader gets past it.
    #[arg(long, env = "ARBITER_IMPORT_MAX_MOVES", default_value_t = PgnLimits::DEFAULT.moves as u32, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    import_max_moves: u32,
    /// Most tokens (tags, move numbers, moves of variations too, NAGs,
    /// comments, brackets) ImportGame reads (and ImportGames, of each game).
    #[arg(long, env = "ARBITER_IMPORT_MAX_TOKENS", default_value_t = PgnLimits::DEFAULT.tokens as u32, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    import_max_tokens: u32,
    /// Most games one ImportGames call imports; past them the call ends
    /// with RESOURCE_EXHAUSTED TOO_MANY_GAMES.
    #[arg(long, env = "ARBITER_IMPORT_MAX_GAMES", default_value_t = DEFAULT_IMPORT_MAX_GAMES, value_parser = clap::value_parser!(u32).range(1..))]
    import_max_games: u32,
    /// KiB a second an address's ImportGames calls are read at, together
    /// (0: no limit).
    #[arg(long, env = "ARBITER_IMPORT_KIB_PER_SECOND", default_value_t = DEFAULT_IMPORT_KIB_PER_SECOND)]
    import_kib_per_second: u32,
}

impl ImportArgs {
    /// `config` with these options.
    pub fn apply(self, config: ServerConfig) -> ServerConfig {
        ServerConfig {
            import_max_moves: self.import_max_moves as usize,
            import_max_tokens: self.import_max_tokens as usize,
            import_max_games: self.import_max_games,
            import_kib_per_second: self.import_kib_per_second,
            ..config
        }
    }
}
