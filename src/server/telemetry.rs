//! Logging set-up: human-readable or JSON lines, filtered by `RUST_LOG`.
//!
//! Lines are written to stdout by a thread of their own, from a queue of at
//! most `--log-buffer-lines` lines: a stdout that stops taking them (a
//! stalled log collector, a full pipe) never holds up a request, and the
//! lines that find the queue full are dropped and counted
//! ([`dropped_log_lines`], `arbiter_log_lines_dropped_total`).
//!
//! No input may make a log line long: every logged value that can come from
//! a request (the request path, a game id, an error's text) is written
//! through [`Clipped`](crate::rules::Clipped), and ids that cannot be ours are refused before they
//! are logged at all.

use std::{
    io::IsTerminal,
    sync::{OnceLock, mpsc},
    time::Duration,
};

use tracing_appender::non_blocking::{ErrorCounter, NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

/// Default `--log-buffer-lines`: log lines queued for stdout at most. Lines
/// are a few hundred bytes (at most a few KiB: see [`Clipped`](crate::rules::Clipped)).
pub const DEFAULT_LOG_BUFFER_LINES: usize = 8_192;

/// How long the process waits at exit for the queued lines to be written.
const FLUSH_TIME: Duration = Duration::from_secs(2);

/// The queue's count of dropped lines, once the subscriber is installed.
static DROPPED: OnceLock<ErrorCounter> = OnceLock::new();

/// Log line format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Installs the global subscriber (`RUST_LOG` overrides the default
/// `info`), writing through a queue of at most `buffer_lines` lines; the
/// guard that writes what is queued when dropped, so hold it until exit.
pub fn init(format: LogFormat, buffer_lines: usize) -> LogGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(true)
        .buffered_lines_limit(buffer_lines)
        .thread_name("arbiter-log")
        .finish(std::io::stdout());
    let dropped = writer.error_counter();
    // An RPC's line, with its status and latency, is its outcome's
    // (`api::rpc_outcomes`): its span's opening and closing log nothing.
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stdout().is_terminal())
        .with_writer(writer);
    let installed = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    if installed.is_ok() {
        let _ = DROPPED.set(dropped);
    }
    LogGuard(Some(guard))
}

/// Log lines dropped because the queue to stdout was full.
pub fn dropped_log_lines() -> u64 {
    DROPPED
        .get()
        .map_or(0, |counter| counter.dropped_lines() as u64)
}

/// Writes the queued log lines when dropped, waiting [`FLUSH_TIME`] at most:
/// a stalled stdout does not keep the process from exiting.
#[must_use = "the queued log lines are written when the guard is dropped"]
pub struct LogGuard(Option<WorkerGuard>);

impl Drop for LogGuard {
    fn drop(&mut self) {
        let Some(guard) = self.0.take() else {
            return;
        };
        let (done, flushed) = mpsc::channel();
        let flush = std::thread::Builder::new()
            .name("arbiter-log-flush".to_owned())
            .spawn(move || {
                drop(guard);
                let _ = done.send(());
            });
        if flush.is_ok() {
            let _ = flushed.recv_timeout(FLUSH_TIME);
        }
    }
}
