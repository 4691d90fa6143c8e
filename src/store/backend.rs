//! Which database the store talks to, read from `--database-url`, and what
//! differs between the two: connection counts, how a write transaction
//! begins and locks a game, which errors mean "not now".

use std::{fmt, time::Duration};

/// The kind of database behind the store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// One process on one file (the embedded default).
    Sqlite,
    /// A server that several Arbiter processes may share.
    Postgres,
}

impl Backend {
    /// Connections of the write pool.
    pub(super) fn writer_connections(self) -> u32 {
        match self {
            Backend::Sqlite => 1,
            Backend::Postgres => 8,
        }
    }

    /// Batches of game changes written at once, each by a task of its own
    /// on a connection of the write pool, a game's changes always by the
    /// same one. SQLite has one writer. On PostgreSQL a batch's statements
    /// and its commit are round trips to the server, one after the other:
    /// more batches in flight keep it busy meanwhile, and it flushes the
    /// commits that arrive together at once.
    pub(super) fn committers(self) -> usize {
        match self {
            Backend::Sqlite => 1,
            Backend::Postgres => 4,
        }
    }

    /// Whether games are created in the batches of game changes. SQLite
    /// has one writer: a game created alone would take a commit (an fsync)
    /// of its own. PostgreSQL takes concurrent transactions and flushes the
    /// commits that arrive together at once, so a game created alone costs
    /// no more, while in a batch its statements would hold up the batch's.
    pub(super) fn batches_creates(self) -> bool {
        self == Backend::Sqlite
    }

    /// Connections of the read pool.
    pub(super) fn reader_connections(self) -> u32 {
        match self {
            Backend::Sqlite => 4,
            Backend::Postgres => 8,
        }
    }

    /// How long the store goes without a write before it tries one to
    /// learn whether the database still answers: a server that went away
    /// should show in health before a client's write finds out. A SQLite
    /// file does not go away by itself.
    pub(super) fn idle_probe_interval(self) -> Option<Duration> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(Duration::from_secs(2)),
        }
    }

    /// Starts a write transaction. SQLite's `IMMEDIATE` takes the database's
    /// write lock at once; on PostgreSQL a game's row is locked by the update
    /// that checks its version (see `store::commit`).
    pub(super) fn begin_write(self) -> &'static str {
        match self {
            Backend::Sqlite => "BEGIN IMMEDIATE",
            Backend::Postgres => "BEGIN",
        }
    }

    /// Starts a read-only transaction that sees one snapshot of the
    /// database throughout (SQLite's deferred transaction does, in WAL
    /// mode; PostgreSQL's default isolation sees each statement's own).
    pub(super) fn begin_snapshot(self) -> &'static str {
        match self {
            Backend::Sqlite => "BEGIN",
            Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        }
    }

    /// Appended to a read of rows that others may claim: rows another
    /// transaction has locked are left out rather than waited for (SQLite's
    /// one writer at a time needs nothing).
    pub(super) fn lock_skipping_locked(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }

    /// Appended to the read of a row this transaction writes after reading
    /// it: another writer waits (SQLite's one writer at a time needs
    /// nothing).
    pub(super) fn lock_for_update(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }

    /// Appended to the read of a row that must not change before this
    /// transaction ends, though it is not written.
    pub(super) fn lock_for_share(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR SHARE",
        }
    }

    /// The database's clock now, in milliseconds since the Unix epoch, as
    /// an SQL expression: times that several servers compare are taken
    /// from it, not from theirs.
    pub(super) fn now_millis_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
            Backend::Postgres => "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        })
    }
}

/// A `--database-url` that names a database Arbiter can use.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    backend: Backend,
    /// As given.
    url: String,
}

/// Why a `--database-url` cannot be used. The URL in it has its password
/// masked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DatabaseUrlError {
    #[error(
        "unknown database URL {0}: expected sqlite://PATH, sqlite::memory: or \
         postgres://USER@HOST:PORT/DATABASE"
    )]
    UnknownScheme(String),
    #[error("malformed database URL {url}: {reason}")]
    Malformed { url: String, reason: String },
}

impl DatabaseUrl {
    /// Reads `url`.
    ///
    /// ```
    /// use arbiter::store::{Backend, DatabaseUrl};
    ///
    /// let url = DatabaseUrl::parse("postgres://arbiter:secret@db:5432/games").unwrap();
    /// assert_eq!(url.backend(), Backend::Postgres);
    /// assert_eq!(url.masked(), "postgres://arbiter:***@db:5432/games");
    /// assert!(DatabaseUrl::parse("mysql://db/games").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// Neither SQLite nor PostgreSQL, or not a URL.
    pub fn parse(url: &str) -> Result<DatabaseUrl, DatabaseUrlError> {
        let backend = if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Backend::Postgres
        } else {
            return Err(DatabaseUrlError::UnknownScheme(mask(url)));
        };
        let malformed = |reason: String| DatabaseUrlError::Malformed {
            url: mask(url),
            reason,
        };
        match backend {
            Backend::Sqlite => {
                if url
                    .trim_start_matches("sqlite:")
                    .trim_start_matches("//")
                    .is_empty()
                {
                    return Err(malformed("no file named".into()));
                }
            }
            Backend::Postgres => {
                let parsed = url::Url::parse(url).map_err(|e| malformed(e.to_string()))?;
                if parsed.host_str().is_none_or(str::is_empty) {
                    return Err(malformed("no host".into()));
                }
                // sqlx reads the rest (its query parameters, `sslmode`...).
                <sqlx::postgres::PgConnectOptions as std::str::FromStr>::from_str(url)
                    .map_err(|e| malformed(e.to_string()))?;
            }
        }
        Ok(DatabaseUrl {
            backend,
            url: url.to_owned(),
        })
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The URL with its password replaced by `***`: safe to show and log.
    pub fn masked(&self) -> String {
        mask(&self.url)
    }

    /// Whether this is an in-memory SQLite database.
    pub(super) fn is_in_memory(&self) -> bool {
        self.backend == Backend::Sqlite && self.url.contains(":memory:")
    }

    /// The URL to connect with: a SQLite file is created if missing.
    pub(super) fn connect_url(&self) -> String {
        if self.backend == Backend::Sqlite && !self.is_in_memory() && !self.url.contains("mode=") {
            let separator = if self.url.contains('?') { '&' } else { '?' };
            format!("{}{separator}mode=rwc", self.url)
        } else {
            self.url.clone()
        }
    }
}

impl fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

impl fmt::Display for DatabaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.masked())
    }
}

/// `url` with the password of its user part (`user:password@`), if any,
/// replaced by `***`. Also applied to text that is not a valid URL, so that
/// an error about a malformed URL never shows its secret.
fn mask(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    match rest[..at].find(':') {
        Some(colon) => format!(
            "{}{}:***{}",
            &url[..scheme_end],
            &rest[..colon],
            &rest[at..]
        ),
        None => url.to_owned(),
    }
}

/// Does `e` mean the database cannot be used now, rather than that
/// something is wrong with the data or the statement?
pub(super) fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(db) => match db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
        {
            Some(pg) => postgres_unavailable(pg.code()),
            None => db
                .code()
                .and_then(|code| code.parse::<i32>().ok())
                .is_some_and(sqlite_unavailable),
        },
        // A connection that breaks mid-message (a server or network going
        // away) shows as a protocol or TLS error as often as an I/O one.
        sqlx::Error::Io(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        _ => false,
    }
}

/// SQLite result codes that mean "not now"
/// (<https://sqlite.org/rescode.html>). sqlx reports the extended code,
/// whose low byte is the primary one.
fn sqlite_unavailable(code: i32) -> bool {
    const BUSY: i32 = 5;
    const LOCKED: i32 = 6;
    const NOMEM: i32 = 7;
    const READONLY: i32 = 8;
    const IOERR: i32 = 10;
    const FULL: i32 = 13;
    const CANTOPEN: i32 = 14;
    const PROTOCOL: i32 = 15;
    matches!(
        code & 0xff,
        BUSY | LOCKED | NOMEM | READONLY | IOERR | FULL | CANTOPEN | PROTOCOL
    )
}

/// PostgreSQL SQLSTATEs that mean "not now"
/// (<https://www.postgresql.org/docs/current/errcodes-appendix.html>):
/// connection failures (08), insufficient resources such as a full disk
/// (53), an administrator's shutdown or a cancelled statement (57), system
/// I/O errors (58), serialization failures and deadlocks (40001, 40P01), a
/// server in recovery that only reads (25006) and a lock not available
/// (55P03).
fn postgres_unavailable(sqlstate: &str) -> bool {
    matches!(sqlstate.get(..2), Some("08" | "53" | "57" | "58"))
        || matches!(sqlstate, "40001" | "40P01" | "25006" | "55P03")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            mask("postgres://u:p%40ss@h:5432/db?sslmode=require"),
            "postgres://u:***@h:5432/db?sslmode=require"
        );
        assert_eq!(mask("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(mask("postgres://h/db"), "postgres://h/db");
        assert_eq!(mask("mysql://root:hunter2@h/db"), "mysql://root:***@h/db");
        let err = DatabaseUrl::parse("postgres://u:hunter2@:99999999/db").unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }

    #[test]
    fn reads_both_kinds_and_refuses_others() {
        for (url, backend) in [
            ("sqlite://arbiter.db", Backend::Sqlite),
            ("sqlite::memory:", Backend::Sqlite),
            ("postgres://root@127.0.0.1:5432/test", Backend::Postgres),
            ("postgresql://root@localhost/test", Backend::Postgres),
        ] {
            assert_eq!(DatabaseUrl::parse(url).unwrap().backend(), backend, "{url}");
        }
        for url in [
            "",
            "arbiter.db",
            "mysql://h/db",
            "sqlite:",
            "postgres://",
            "postgres://:5/db",
        ] {
            assert!(DatabaseUrl::parse(url).is_err(), "{url}");
        }
    }

    #[test]
    fn a_sqlite_file_is_created_if_missing() {
        let url = DatabaseUrl::parse("sqlite://a.db").unwrap();
        assert_eq!(url.connect_url(), "sqlite://a.db?mode=rwc");
        let url = DatabaseUrl::parse("sqlite://a.db?mode=ro").unwrap();
        assert_eq!(url.connect_url(), "sqlite://a.db?mode=ro");
        let url = DatabaseUrl::parse("sqlite::memory:").unwrap();
        assert_eq!(url.connect_url(), "sqlite::memory:");
    }

    #[test]
    fn not_now_errors_by_backend() {
        assert!(sqlite_unavailable(13)); // SQLITE_FULL
        assert!(sqlite_unavailable(10 | (4 << 8))); // SQLITE_IOERR_SHORT_READ
        assert!(!sqlite_unavailable(19)); // SQLITE_CONSTRAINT
        for state in ["08006", "53100", "57P01", "40001", "40P01", "25006"] {
            assert!(postgres_unavailable(state), "{state}");
        }
        for state in ["23505", "42P01", "22P02"] {
            assert!(!postgres_unavailable(state), "{state}");
        }
    }
}
