//! The real `arbiter` binary as a child process, for what only a process
//! shows: memory from `/proc/PID/status`, CPU time, file descriptors, signals,
//! `kill -9` and restarts on the same database.

use std::{
    ffi::{OsStr, OsString},
    net::SocketAddr,
    path::Path,
    process::Stdio,
    time::Duration,
};

use tokio::process::{Child, Command};
use tonic::transport::{Channel, Endpoint};

/// How long a server may take to come up.
const COMING_UP: Duration = Duration::from_secs(10);

/// `arbiter serve` about to be spawned on a free port of 127.0.0.1, logging
/// at `warn` (`RUST_LOG` may be set with [`Serve::env`]).
pub struct Serve {
    program: OsString,
    database_url: String,
    dir: Option<tempfile::TempDir>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    max_files: Option<u32>,
    stdout: Stdio,
    stderr: Stdio,
}

impl Serve {
    /// On the database file `db` (which outlives the server, for restarts).
    pub fn on(db: &Path) -> Serve {
        Serve::with_database(format!("sqlite://{}", db.display()), None)
    }

    /// On the database at `url` (a PostgreSQL one that several servers
    /// share, say), which outlives the server.
    pub fn on_url(url: impl Into<String>) -> Serve {
        Serve::with_database(url.into(), None)
    }

    /// On a fresh database in a temporary directory, removed with the server.
    pub fn fresh() -> Serve {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("arbiter.db");
        Serve::with_database(format!("sqlite://{}", db.display()), Some(dir))
    }

    fn with_database(database_url: String, dir: Option<tempfile::TempDir>) -> Serve {
        Serve {
            program: env!("CARGO_BIN_EXE_arbiter").into(),
            database_url,
            dir,
            args: Vec::new(),
            env: Vec::new(),
            max_files: None,
            stdout: Stdio::inherit(),
            stderr: Stdio::inherit(),
        }
    }

    /// Runs `program` instead of this build's binary.
    pub fn binary(mut self, program: impl Into<OsString>) -> Serve {
        self.program = program.into();
        self
    }

    /// Adds arguments after `serve --listen … --database-url …`.
    pub fn args(mut self, args: impl IntoIterator<Item = impl AsRef<OsStr>>) -> Serve {
        self.args
            .extend(args.into_iter().map(|arg| arg.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable of the server.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Serve {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Sets each of `vars` as [`Serve::env`] does.
    pub fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Serve {
        vars.into_iter()
            .fold(self, |serve, (key, value)| serve.env(key, value))
    }

    /// Runs the server under a file descriptor limit of `n` (`ulimit -n`).
    pub fn max_files(mut self, n: u32) -> Serve {
        self.max_files = Some(n);
        self
    }

    /// Where the server's stdout goes (inherited unless set).
    pub fn stdout(mut self, stdout: Stdio) -> Serve {
        self.stdout = stdout;
        self
    }

    /// Where the server's stderr goes (inherited unless set).
    pub fn stderr(mut self, stderr: Stdio) -> Serve {
        self.stderr = stderr;
        self
    }

    /// Spawns the server without waiting for it to come up.
    pub fn spawn(self) -> Binary {
        let addr: SocketAddr = super::free_addr().parse().unwrap();
        let mut command = match self.max_files {
            Some(n) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(&self.program);
                sh
            }
            None => Command::new(&self.program),
        };
        command
            .args(["serve", "--listen", &addr.to_string(), "--database-url"])
            .arg(&self.database_url)
            .args(&self.args)
            .env("RUST_LOG", "warn")
            .envs(self.env)
            .stdout(self.stdout)
            .stderr(self.stderr)
            .kill_on_drop(true);
        Binary {
            child: command.spawn().expect("the server spawns"),
            addr,
            _dir: self.dir,
        }
    }

    /// Spawns the server and waits until it answers (fails at once if it
    /// exits instead).
    pub async fn start(self) -> Binary {
        let mut server = self.spawn();
        let endpoint = Endpoint::from_shared(server.url()).unwrap();
        tokio::select! {
            _ = connect(&endpoint) => server,
            exited = server.child.wait() => panic!("the server exited: {exited:?}"),
        }
    }
}

/// A spawned `arbiter serve`, killed on drop.
pub struct Binary {
    pub child: Child,
    pub addr: SocketAddr,
    _dir: Option<tempfile::TempDir>,
}

impl Binary {
    /// The server's address as a URL.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// A new connection (waits for the server to come up).
    pub async fn channel(&self) -> Channel {
        self.channel_with(Endpoint::from_shared(self.url()).unwrap())
            .await
    }

    /// A new connection through `endpoint` (waits for the server to come up).
    pub async fn channel_with(&self, endpoint: Endpoint) -> Channel {
        connect(&endpoint).await
    }

    /// Resident memory in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS")
    }

    /// CPU time the server has used, in clock ticks (utime and stime of
    /// `/proc/PID/stat`; 100 a second on Linux).
    pub fn cpu_ticks(&self) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).unwrap();
        // The fields after the command name, which is in parentheses:
        // utime and stime are fields 14 and 15 of the whole line.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    /// RSS once it has stopped falling (freed memory goes back to the
    /// system after a short delay), at most two seconds.
    pub async fn settled_rss_kib(&self) -> u64 {
        let mut last = self.rss_kib();
        for _ in 0..20 {
            super::let_pass(Duration::from_millis(100)).await;
            let now = self.rss_kib();
            if now >= last {
                return now;
            }
            last = now;
        }
        last
    }

    /// Sends the signal `name` (`TERM`, `HUP`, …) with `kill`.
    pub fn signal(&self, name: &str) {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.pid().to_string())
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{name}");
    }

    /// `kill -9`, and waits for the process to end.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }
}

/// A connection through `endpoint`, retried until the server answers (at
/// most [`COMING_UP`]).
async fn connect(endpoint: &Endpoint) -> Channel {
    crate::wait_for!(
        COMING_UP,
        endpoint.connect().await.ok(),
        "server at {} did not come up",
        endpoint.uri()
    )
}
