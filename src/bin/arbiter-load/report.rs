//! What a run measured: the rate, latency percentiles and errors of each
//! RPC at each concurrency, and the table they are printed as.

use std::time::Duration;

/// The result of a run.
pub(crate) struct Report {
    pub(crate) label: String,
    pub(crate) concurrency: usize,
    pub(crate) connections: usize,
    /// Successful requests' latencies in microseconds, sorted.
    pub(crate) latencies: Vec<u32>,
    pub(crate) errors: u64,
    pub(crate) duration: Duration,
}

impl Report {
    pub(crate) fn requests(&self) -> u64 {
        self.latencies.len() as u64 + self.errors
    }

    pub(crate) fn per_second(&self) -> f64 {
        self.latencies.len() as f64 / self.duration.as_secs_f64()
    }

    /// The latency at quantile `q` (nearest rank), in milliseconds.
    pub(crate) fn quantile_ms(&self, q: f64) -> Option<f64> {
        let n = self.latencies.len();
        if n == 0 {
            return None;
        }
        let rank = ((q * n as f64).ceil() as usize).clamp(1, n);
        Some(f64::from(self.latencies[rank - 1]) / 1000.0)
    }

    /// p50, p90, p99 and max, formatted in milliseconds.
    pub(crate) fn latency_columns(&self) -> [String; 4] {
        [0.5, 0.9, 0.99, 1.0].map(|q| {
            self.quantile_ms(q)
                .map_or_else(|| "-".into(), |ms| format!("{ms:.3}"))
        })
    }

    /// The run's counts after its label, named, as both outputs show them.
    pub(crate) fn counts(&self) -> [(&'static str, String); 5] {
        [
            ("concurrency", self.concurrency.to_string()),
            ("connections", self.connections.to_string()),
            ("requests", self.requests().to_string()),
            ("errors", self.errors.to_string()),
            ("rps", format!("{:.0}", self.per_second())),
        ]
    }

    pub(crate) fn line(&self) -> String {
        let [p50, p90, p99, max] = self.latency_columns();
        let counts = self.counts().map(|(name, value)| format!("{name}={value}"));
        format!(
            "{} {} p50={p50}ms p90={p90}ms p99={p99}ms max={max}ms",
            self.label,
            counts.join(" "),
        )
    }

    pub(crate) const TABLE_HEADER: &str = "| round | rpc | in flight | connections | requests | errors | req/s \
                                | share of health | p50 ms | p90 ms | p99 ms | max ms |\n\
                                |---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";

    /// A table row; `share` is req/s as a share of the health run just before.
    pub(crate) fn table_row(&self, round: u32, share: f64) -> String {
        let [p50, p90, p99, max] = self.latency_columns();
        let counts = self.counts().map(|(_, value)| value);
        format!(
            "| {round} | {} | {} | {:.0}% | {p50} | {p90} | {p99} | {max} |",
            self.label,
            counts.join(" | "),
            share * 100.0,
        )
    }
}

/// The rounds of one (RPC, concurrency) cell of the `--all` matrix.
pub(crate) struct Cell {
    pub(crate) label: String,
    pub(crate) concurrency: usize,
    pub(crate) per_second: Vec<f64>,
    pub(crate) shares: Vec<f64>,
}

impl Cell {
    pub(crate) const TABLE_HEADER: &str = "| rpc | in flight | rounds | median req/s | median share of health \
                                | lowest share | highest share |\n\
                                |---|---:|---:|---:|---:|---:|---:|";

    pub(crate) fn table_row(&self) -> String {
        let percent = |x: f64| format!("{:.0}%", x * 100.0);
        let low = self.shares.iter().copied().fold(f64::INFINITY, f64::min);
        let high = self.shares.iter().copied().fold(0.0, f64::max);
        format!(
            "| {} | {} | {} | {:.0} | {} | {} | {} |",
            self.label,
            self.concurrency,
            self.shares.len(),
            median(&self.per_second),
            percent(median(&self.shares)),
            percent(low),
            percent(high),
        )
    }
}

/// The median (the mean of the middle two for an even count).
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}
