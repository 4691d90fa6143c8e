//! Logging set-up: human-readable or JSON lines, filtered by `RUST_LOG`.
//!
//! No input may make a log line long: every logged value that can come from
//! a request (the request path, a game id, an error's text) is written
//! through [`Clipped`], and ids that cannot be ours are refused before they
//! are logged at all.

use std::fmt;

use tracing_subscriber::{EnvFilter, fmt::format::FmtSpan};

/// Log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Installs the global subscriber (`RUST_LOG` overrides the default `info`).
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // Closing an RPC's span logs its latency (`time.busy` + `time.idle`).
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_span_events(FmtSpan::CLOSE);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// A value as the logs write it: whole up to [`Clipped::SHOWN`]
/// characters, otherwise its first ones and its length in bytes.
///
/// ```
/// use arbiter::telemetry::Clipped;
///
/// assert_eq!(Clipped("/arbiter.v1.Games/GetGame").to_string(), "/arbiter.v1.Games/GetGame");
/// assert_eq!(
///     Clipped(&"x".repeat(1000)).to_string(),
///     format!("{}... (1000 bytes)", "x".repeat(128)),
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Clipped<'a>(pub &'a str);

impl Clipped<'_> {
    /// Characters written of a longer value.
    pub const SHOWN: usize = 128;
}

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(Clipped::SHOWN) {
            None => f.write_str(self.0),
            Some((cut, _)) => write!(f, "{}... ({} bytes)", &self.0[..cut], self.0.len()),
        }
    }
}
