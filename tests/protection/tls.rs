//! TLS: gRPC and grpc-web over TLS, plaintext refused, mutual TLS, and
//! certificates reloaded without dropping connections; certificates are made
//! by the test.

use crate::common;

use std::{
    ffi::OsStr,
    net::SocketAddr,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use arbiter::server::{ServerConfig, TlsFiles};
use common::{
    TestServer,
    binary::{Binary, Serve},
};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, pem::PemObject};
use tokio::{
    io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader},
    net::TcpStream,
};
use tokio_rustls::{TlsConnector, client::TlsStream};
use tonic::transport::{Channel, Endpoint};
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// Generous bound on anything a test waits for.
const DEADLINE: Duration = Duration::from_secs(20);

/// A certificate authority.
struct Ca {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// A certificate and its key, as PEM.
struct Leaf {
    cert: String,
    key: String,
}

impl Ca {
    fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::new()).unwrap();
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, name);
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
        Ca { issuer }
    }

    /// A certificate for `localhost` (server or client).
    fn issue(&self) -> Leaf {
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Leaf {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }

    fn roots(&self) -> rustls::RootCertStore {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(self.issuer.der().clone()).unwrap();
        roots
    }

    fn pem(&self) -> String {
        self.issuer.pem()
    }
}

/// The first certificate of a PEM text.
fn der(pem: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()
}

/// Writes `leaf` as `cert.pem` and `key.pem` in `dir`; the files.
fn write_leaf(dir: &Path, leaf: &Leaf) -> TlsFiles {
    let files = TlsFiles {
        cert: dir.join("cert.pem"),
        key: dir.join("key.pem"),
        client_ca: None,
    };
    std::fs::write(&files.cert, &leaf.cert).unwrap();
    std::fs::write(&files.key, &leaf.key).unwrap();
    files
}

/// A TLS client trusting `ca`, presenting `identity` if given, offering
/// `alpn`.
fn connector(ca: &Ca, identity: Option<&Leaf>, alpn: &[u8]) -> TlsConnector {
    let builder = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(ca.roots());
    let mut config = match identity {
        Some(leaf) => builder
            .with_client_auth_cert(
                vec![der(&leaf.cert)],
                PrivateKeyDer::from_pem_slice(leaf.key.as_bytes()).unwrap(),
            )
            .unwrap(),
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = vec![alpn.to_vec()];
    TlsConnector::from(Arc::new(config))
}

async fn tls_connect(addr: SocketAddr, connector: &TlsConnector) -> TlsStream<TcpStream> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    connector.connect(name, tcp).await.unwrap()
}

/// The certificate a new connection is served.
async fn served_certificate(addr: SocketAddr, connector: &TlsConnector) -> CertificateDer<'static> {
    let stream = tls_connect(addr, connector).await;
    stream.get_ref().1.peer_certificates().unwrap()[0].clone()
}

/// A gRPC channel over TLS, and how many connections it has opened.
async fn tls_channel(
    addr: SocketAddr,
    connector: TlsConnector,
) -> Result<(Channel, Arc<AtomicUsize>), tonic::transport::Error> {
    let opened = Arc::new(AtomicUsize::new(0));
    let counter = opened.clone();
    let channel = Endpoint::from_static("http://localhost")
        .connect_with_connector(tower::service_fn(move |_| {
            let connector = connector.clone();
            counter.fetch_add(1, Ordering::SeqCst);
            async move {
                let tcp = TcpStream::connect(addr).await?;
                let name = ServerName::try_from("localhost").unwrap();
                let tls = connector.connect(name, tcp).await?;
                Ok::<_, std::io::Error>(hyper_util::rt::TokioIo::new(tls))
            }
        }))
        .await?;
    Ok((channel, opened))
}

/// A health check on `channel`.
async fn check(channel: Channel) -> Result<i32, tonic::Status> {
    let answer = tokio::time::timeout(
        DEADLINE,
        HealthClient::new(channel).check(HealthCheckRequest {
            service: String::new(),
        }),
    )
    .await
    .expect("an answer or an error in time")?;
    Ok(answer.into_inner().status)
}

/// A health check over a new TLS connection, within the deadline.
async fn check_over_tls(addr: SocketAddr, connector: TlsConnector) -> Result<i32, String> {
    let checked = async {
        let (channel, _) = tls_channel(addr, connector)
            .await
            .map_err(|err| format!("connect: {err:?}"))?;
        check(channel)
            .await
            .map_err(|status| format!("check: {status:?}"))
    };
    tokio::time::timeout(DEADLINE, checked)
        .await
        .unwrap_or_else(|_| Err("no answer within the deadline".to_owned()))
}

const SERVING: i32 = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;

#[tokio::test]
async fn grpc_and_grpc_web_over_tls_and_plaintext_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("arbiter test CA");
    let server = TestServer::start_with_config(|config| ServerConfig {
        tls: Some(write_leaf(dir.path(), &ca.issue())),
        ..config
    })
    .await;

    // Clients that never start their handshake hold up no one else (each
    // would hold a server that handshakes in turn for the whole 10 s
    // handshake timeout: longer than the deadline, together).
    let mut silent = Vec::new();
    for _ in 0..3 {
        silent.push(TcpStream::connect(server.addr).await.unwrap());
    }

    // gRPC over HTTP/2, negotiated by ALPN.
    assert_eq!(
        check_over_tls(server.addr, connector(&ca, None, b"h2")).await,
        Ok(SERVING)
    );

    // grpc-web over HTTP/1.1, as a browser sends it.
    let body = common::start_legal_moves_frame();
    let head = format!(
        "POST /arbiter.v1.Rules/LegalMoves HTTP/1.1\r\nHost: localhost\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\n\
         Origin: https://example.test\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = tls_connect(server.addr, &connector(&ca, None, b"http/1.1")).await;
    assert_eq!(stream.get_ref().1.alpn_protocol(), Some(&b"http/1.1"[..]));
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body).await.unwrap();
    let mut response = Vec::new();
    // The server may close without close_notify once it has answered.
    let _ = tokio::time::timeout(DEADLINE, stream.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response).to_lowercase();
    assert!(text.starts_with("http/1.1 200"), "{text}");
    assert!(text.contains("grpc-status:0"), "{text}");
    assert!(text.contains("g1f3"), "the legal moves are in the body");

    // The Lichess API over TLS, as bot frameworks call it (HTTP/1.1).
    let mut stream = tls_connect(server.addr, &connector(&ca, None, b"http/1.1")).await;
    stream
        .write_all(
            b"POST /api/token/test HTTP/1.1\r\nHost: localhost\r\n\
              Content-Length: 8\r\nConnection: close\r\n\r\nnot-mine",
        )
        .await
        .unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(DEADLINE, stream.read_to_end(&mut response)).await;
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.ends_with(r#"{"not-mine":null}"#), "{text}");

    // A plaintext gRPC client gets no answer.
    let plaintext = async {
        let channel = Channel::from_shared(format!("http://{}", server.addr))
            .unwrap()
            .connect()
            .await
            .map_err(|err| format!("{err:?}"))?;
        check(channel).await.map_err(|err| format!("{err:?}"))
    };
    let refused = tokio::time::timeout(DEADLINE, plaintext)
        .await
        .expect("refused in time");
    assert!(refused.is_err(), "plaintext gRPC answered: {refused:?}");

    // Nor does a plaintext HTTP/1.1 one.
    let mut tcp = TcpStream::connect(server.addr).await.unwrap();
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(&body).await.unwrap();
    let mut response = Vec::new();
    let _ = tokio::time::timeout(DEADLINE, tcp.read_to_end(&mut response))
        .await
        .expect("closed in time");
    assert!(
        !String::from_utf8_lossy(&response).contains("HTTP/1.1"),
        "plaintext HTTP/1.1 answered: {response:?}"
    );
    drop(silent);
    server.stop().await;
}

#[tokio::test]
async fn mutual_tls_answers_only_clients_with_a_certificate_from_the_ca() {
    let dir = tempfile::tempdir().unwrap();
    let server_ca = Ca::new("arbiter test CA");
    let client_ca = Ca::new("arbiter clients CA");
    let stranger_ca = Ca::new("another CA");
    let mut files = write_leaf(dir.path(), &server_ca.issue());
    let client_ca_file = dir.path().join("clients.pem");
    std::fs::write(&client_ca_file, client_ca.pem()).unwrap();
    files.client_ca = Some(client_ca_file);
    let server = TestServer::start_with_config(|config| ServerConfig {
        tls: Some(files),
        ..config
    })
    .await;

    let without = check_over_tls(server.addr, connector(&server_ca, None, b"h2")).await;
    let refusal = without.expect_err("answered without a certificate");
    assert!(refusal.contains("CertificateRequired"), "{refusal}");
    let stranger = stranger_ca.issue();
    let foreign = check_over_tls(server.addr, connector(&server_ca, Some(&stranger), b"h2")).await;
    let refusal = foreign.expect_err("answered a certificate of another CA");
    assert!(refusal.contains("UnknownCA"), "{refusal}");
    let client = client_ca.issue();
    assert_eq!(
        check_over_tls(server.addr, connector(&server_ca, Some(&client), b"h2")).await,
        Ok(SERVING)
    );
    server.stop().await;
}

/// Changed files are put in force by themselves: new connections get the
/// new certificate, an open connection goes on; a bad file is refused and
/// the certificate in force stays.
#[tokio::test]
async fn changed_certificate_files_serve_new_connections_and_open_ones_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("arbiter test CA");
    let first = ca.issue();
    let files = write_leaf(dir.path(), &first);
    let server = TestServer::start_with_config(|config| ServerConfig {
        tls: Some(files.clone()),
        ..config
    })
    .await;
    let client = connector(&ca, None, b"h2");
    let (open, opened) = tls_channel(server.addr, client.clone()).await.unwrap();
    assert_eq!(check(open.clone()).await.unwrap(), SERVING);

    // A file that is not PEM: refused, the first certificate stays.
    std::fs::write(&files.cert, "not a certificate").unwrap();
    // The server checks the files meanwhile.
    common::let_pass(arbiter::server::FILE_CHECK_INTERVAL * 2).await;
    assert_eq!(
        served_certificate(server.addr, &client).await,
        der(&first.cert)
    );

    let second = ca.issue();
    write_leaf(dir.path(), &second);
    crate::wait_until!(
        DEADLINE,
        served_certificate(server.addr, &client).await == der(&second.cert),
        "new certificate never served"
    );
    assert_eq!(check(open).await.unwrap(), SERVING);
    assert_eq!(
        opened.load(Ordering::SeqCst),
        1,
        "the open connection went on"
    );
    server.stop().await;
}

/// The real binary, serving TLS with `files`, and its log.
fn spawn_tls(dir: &Path, files: &TlsFiles) -> (Binary, Log) {
    let mut server = Serve::on(&dir.join("arbiter.db"))
        .args([OsStr::new("--tls-cert"), files.cert.as_ref()])
        .env("ARBITER_TLS_KEY", &files.key)
        .env("RUST_LOG", "warn,arbiter::server::tls=info")
        .stdout(std::process::Stdio::piped())
        .spawn();
    let log = BufReader::new(server.child.stdout.take().unwrap()).lines();
    (server, Log(log))
}

/// A server's stdout, line by line.
struct Log(tokio::io::Lines<BufReader<tokio::process::ChildStdout>>);

impl Log {
    /// Waits for a log line containing every one of `words`.
    async fn logged(&mut self, words: &[&str]) {
        let found = tokio::time::timeout(DEADLINE, async {
            while let Some(line) = self.0.next_line().await.unwrap() {
                if words.iter().all(|word| line.contains(word)) {
                    return;
                }
            }
            panic!("the server's log ended without {words:?}");
        });
        found
            .await
            .unwrap_or_else(|_| panic!("no log line with {words:?}"));
    }
}

/// SIGHUP reloads the real binary's certificate: a bad file is refused and
/// logged, the old certificate stays; good files serve new connections while
/// an open one goes on.
#[tokio::test]
async fn sighup_reloads_the_certificate_of_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("arbiter test CA");
    let first = ca.issue();
    let files = write_leaf(dir.path(), &first);
    let (mut server, mut log) = spawn_tls(dir.path(), &files);
    log.logged(&["TLS on"]).await;
    let client = connector(&ca, None, b"h2");
    let (open, opened) = crate::wait_for!(
        Duration::from_secs(10),
        tls_channel(server.addr, client.clone()).await.ok(),
        "no TLS connection"
    );
    assert_eq!(check(open.clone()).await.unwrap(), SERVING);

    std::fs::write(&files.key, "not a key").unwrap();
    server.signal("HUP");
    log.logged(&["not reloaded", "SIGHUP", "TLS key", "key.pem"])
        .await;
    assert_eq!(
        served_certificate(server.addr, &client).await,
        der(&first.cert)
    );

    let second = ca.issue();
    write_leaf(dir.path(), &second);
    server.signal("HUP");
    log.logged(&["TLS certificate reloaded", "SIGHUP"]).await;
    assert_eq!(
        served_certificate(server.addr, &client).await,
        der(&second.cert)
    );
    assert_eq!(check(open).await.unwrap(), SERVING);
    assert_eq!(
        opened.load(Ordering::SeqCst),
        1,
        "the open connection went on"
    );
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "SIGHUP ended the server"
    );
}

/// `arbiter serve` with these arguments exits at once: its exit code and
/// what it wrote to stderr.
async fn refused_start(dir: &Path, args: &[&OsStr]) -> (i32, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args(["serve", "--listen", "127.0.0.1:0", "--database-url"])
        .arg(format!("sqlite://{}", dir.join("arbiter.db").display()))
        .args(args)
        .env("RUST_LOG", "warn")
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(DEADLINE, output)
        .await
        .expect("the server exits")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap_or(-1), stderr)
}

#[tokio::test]
async fn unusable_tls_files_stop_the_start_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let ca = Ca::new("arbiter test CA");
    let files = write_leaf(dir.path(), &ca.issue());
    let other = ca.issue();
    let other_key = dir.path().join("other-key.pem");
    std::fs::write(&other_key, &other.key).unwrap();
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not PEM at all").unwrap();
    let missing = dir.path().join("missing.pem");
    let (cert, key) = (files.cert.as_os_str(), files.key.as_os_str());
    let (garbage, missing) = (garbage.as_os_str(), missing.as_os_str());
    let [cert_flag, key_flag, ca_flag] =
        ["--tls-cert", "--tls-key", "--tls-client-ca"].map(OsStr::new);
    let cases: [(Vec<&OsStr>, i32, &[&str]); 7] = [
        (
            vec![cert_flag, missing, key_flag, key],
            1,
            &["cannot read the TLS certificate", "missing.pem"],
        ),
        (
            vec![cert_flag, garbage, key_flag, key],
            1,
            &["TLS certificate", "garbage.pem", "holds no PEM certificate"],
        ),
        (
            vec![cert_flag, cert, key_flag, garbage],
            1,
            &["TLS key", "garbage.pem", "holds no PEM private key"],
        ),
        (
            vec![cert_flag, cert, key_flag, other_key.as_os_str()],
            1,
            &["not usable together", "cert.pem", "other-key.pem"],
        ),
        (
            vec![cert_flag, cert, key_flag, key, ca_flag, garbage],
            1,
            &["TLS client CA", "garbage.pem"],
        ),
        (vec![cert_flag, cert], 2, &["--tls-key"]),
        (vec![key_flag, key], 2, &["--tls-cert"]),
    ];
    for (args, expected, words) in cases {
        let (code, stderr) = refused_start(dir.path(), &args).await;
        assert_eq!(code, expected, "{args:?}: {stderr}");
        for word in words {
            assert!(
                stderr.contains(word),
                "{args:?}: {word:?} not in {stderr:?}"
            );
        }
    }
    assert!(
        !dir.path().join("arbiter.db").exists(),
        "the database is opened only once TLS is ready"
    );
}
