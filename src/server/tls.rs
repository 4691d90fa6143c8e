//! TLS for every route (gRPC, grpc-web, HTTP/1.1), with mutual TLS as an
//! option and certificates that can change while the server runs.
//!
//! The certificate, its key and the client CA are PEM files, read at
//! start-up and again on SIGHUP or when their contents change (checked every
//! [`FILE_CHECK_INTERVAL`]). A reload builds a whole new `rustls`
//! configuration and swaps it in: handshakes from then on use it, while open
//! connections keep the session they have. Files that do not make a valid
//! configuration are refused with an error in the log, and the previous
//! configuration stays.
//!
//! Handshakes run in the connection's own task, each bounded by a timeout,
//! so a client that is slow or silent holds only its own connection.

use std::{
    io,
    path::{Path, PathBuf},
    sync::{Arc, Mutex, PoisonError, RwLock},
    time::Duration,
};

use rustls::{
    RootCertStore,
    pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
    server::WebPkiClientVerifier,
};
use sha2::{Digest, Sha256};
use tokio::{net::TcpStream, sync::watch};
use tokio_rustls::{TlsAcceptor, server::TlsStream};

/// How often the files are checked for a change.
pub const FILE_CHECK_INTERVAL: Duration = Duration::from_secs(2);
/// Protocols offered in ALPN, preferred first.
const ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

/// Where the certificate, its key and (for mutual TLS) the client CA are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The server's certificate chain, leaf first (PEM).
    pub cert: PathBuf,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
    /// CA certificates (PEM); when set, clients must present a certificate
    /// signed by one of them.
    pub client_ca: Option<PathBuf>,
}

/// Why the files do not make a TLS configuration.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file cannot be read.
    #[error("cannot read the {what} {}: {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    /// A file holds no PEM item of the kind expected, or bad PEM.
    #[error("the {what} {} holds no {expected}: {source}", path.display())]
    Pem {
        what: &'static str,
        path: PathBuf,
        expected: &'static str,
        source: rustls::pki_types::pem::Error,
    },
    /// The key does not match the certificate, or rustls refuses them.
    #[error("the TLS certificate {} and key {} are not usable together: {source}", cert.display(), key.display())]
    Certificate {
        cert: PathBuf,
        key: PathBuf,
        source: rustls::Error,
    },
    /// A client CA certificate is not a usable trust anchor.
    #[error("the TLS client CA {} is not usable: {reason}", path.display())]
    ClientCa { path: PathBuf, reason: String },
}

/// The files' bytes.
struct Contents {
    cert: Vec<u8>,
    key: Vec<u8>,
    client_ca: Option<Vec<u8>>,
}

/// The TLS configuration in force, replaced as a whole on reload.
pub struct Tls {
    files: TlsFiles,
    config: RwLock<Arc<rustls::ServerConfig>>,
    /// The digest of the contents last tried, valid or not: a file change
    /// is a change from these, so a bad file is reported once, not at every
    /// check. A digest, so that no second copy of the key stays in memory.
    seen: Mutex<[u8; 32]>,
}

impl std::fmt::Debug for Tls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tls").field("files", &self.files).finish()
    }
}

impl Tls {
    /// Reads and checks the files.
    ///
    /// # Errors
    ///
    /// A file cannot be read, holds no certificate or key, or the key does
    /// not match the certificate.
    pub fn load(files: TlsFiles) -> Result<Tls, TlsError> {
        let contents = read(&files)?;
        let config = configure(&files, &contents)?;
        tracing::info!(
            cert = %files.cert.display(),
            client_ca = ?files.client_ca.as_ref().map(|path| path.display().to_string()),
            "TLS on"
        );
        Ok(Tls {
            files,
            config: RwLock::new(Arc::new(config)),
            seen: Mutex::new(contents.digest()),
        })
    }

    /// Reads the files again and puts them in force if they make a valid
    /// configuration; `only_if_changed` skips contents already tried.
    /// Whether the configuration was replaced.
    ///
    /// # Errors
    ///
    /// As [`Tls::load`]; the configuration in force stays.
    pub fn reload(&self, only_if_changed: bool) -> Result<bool, TlsError> {
        let contents = read(&self.files)?;
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let digest = contents.digest();
        if only_if_changed && *seen == digest {
            return Ok(false);
        }
        *seen = digest;
        let config = configure(&self.files, &contents);
        *self.config.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(config?);
        Ok(true)
    }

    /// Completes the TLS handshake on an accepted connection, within
    /// `timeout`, with the configuration in force.
    ///
    /// # Errors
    ///
    /// The client does not speak TLS, is refused (no certificate under
    /// mutual TLS, or one the CA did not sign), or is too slow.
    pub async fn handshake(
        &self,
        stream: TcpStream,
        timeout: Duration,
    ) -> io::Result<TlsStream<TcpStream>> {
        let config = self
            .config
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match tokio::time::timeout(timeout, TlsAcceptor::from(config).accept(stream)).await {
            Ok(handshake) => handshake,
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "TLS handshake timed out",
            )),
        }
    }

    /// Reloads on SIGHUP and when the files change, until `stop` turns true
    /// or its sender goes away. The signal handler is in place when this
    /// returns.
    pub fn watch(self: &Arc<Tls>, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let mut hangups = hangups();
        let tls = Arc::clone(self);
        tokio::spawn(async move {
            let mut checks = tokio::time::interval(FILE_CHECK_INTERVAL);
            checks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            checks.tick().await;
            let mut last_error = None;
            loop {
                let only_if_changed = tokio::select! {
                    _ = stop.wait_for(|stopped| *stopped) => break,
                    _ = checks.tick() => true,
                    Some(()) = next_hangup(&mut hangups) => false,
                };
                let trigger = if only_if_changed {
                    "file change"
                } else {
                    "SIGHUP"
                };
                let tls = Arc::clone(&tls);
                let reloaded =
                    tokio::task::spawn_blocking(move || tls.reload(only_if_changed)).await;
                match reloaded {
                    Ok(Ok(true)) => tracing::info!(trigger, "TLS certificate reloaded"),
                    Ok(Ok(false)) => {}
                    // A file that stays unreadable is reported once, not at
                    // every check; a SIGHUP always gets an answer.
                    Ok(Err(err)) => {
                        let error = err.to_string();
                        if !only_if_changed || last_error.as_ref() != Some(&error) {
                            tracing::error!(
                                trigger,
                                %error,
                                "TLS certificate not reloaded; the previous one stays in force"
                            );
                        }
                        last_error = Some(error);
                        continue;
                    }
                    Err(err) => tracing::error!(error = %err, "TLS reload failed"),
                }
                last_error = None;
            }
        })
    }
}

impl Contents {
    fn digest(&self) -> [u8; 32] {
        let mut digest = Sha256::new();
        for file in [Some(&self.cert), Some(&self.key), self.client_ca.as_ref()] {
            // Lengths first, so that no two sets of files run together.
            let bytes = file.map_or(&[][..], Vec::as_slice);
            digest.update((bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        }
        digest.finalize().into()
    }
}

fn read(files: &TlsFiles) -> Result<Contents, TlsError> {
    let read = |what, path: &Path| {
        std::fs::read(path).map_err(|source| TlsError::Read {
            what,
            path: path.to_owned(),
            source,
        })
    };
    Ok(Contents {
        cert: read("TLS certificate", &files.cert)?,
        key: read("TLS key", &files.key)?,
        client_ca: files
            .client_ca
            .as_deref()
            .map(|path| read("TLS client CA", path))
            .transpose()?,
    })
}

/// Certificates in a PEM file, at least one.
fn certificates(
    what: &'static str,
    path: &Path,
    pem: &[u8],
) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let error = |source| TlsError::Pem {
        what,
        path: path.to_owned(),
        expected: "PEM certificate",
        source,
    };
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(error)?;
    if certs.is_empty() {
        return Err(error(rustls::pki_types::pem::Error::NoItemsFound));
    }
    Ok(certs)
}

fn configure(files: &TlsFiles, contents: &Contents) -> Result<rustls::ServerConfig, TlsError> {
    let cert = certificates("TLS certificate", &files.cert, &contents.cert)?;
    let key = PrivateKeyDer::from_pem_slice(&contents.key).map_err(|source| TlsError::Pem {
        what: "TLS key",
        path: files.key.clone(),
        expected: "PEM private key",
        source,
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let certificate_error = |source| TlsError::Certificate {
        cert: files.cert.clone(),
        key: files.key.clone(),
        source,
    };
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(certificate_error)?;
    let builder = match (&files.client_ca, &contents.client_ca) {
        (Some(path), Some(pem)) => {
            let mut roots = RootCertStore::empty();
            for ca in certificates("TLS client CA", path, pem)? {
                roots.add(ca).map_err(|err| TlsError::ClientCa {
                    path: path.clone(),
                    reason: err.to_string(),
                })?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|err| TlsError::ClientCa {
                    path: path.clone(),
                    reason: err.to_string(),
                })?;
            builder.with_client_cert_verifier(verifier)
        }
        _ => builder.with_no_client_auth(),
    };
    let mut config = builder
        .with_single_cert(cert, key)
        .map_err(certificate_error)?;
    config.alpn_protocols = ALPN.iter().map(|protocol| protocol.to_vec()).collect();
    Ok(config)
}

#[cfg(unix)]
type Hangups = Option<tokio::signal::unix::Signal>;
#[cfg(not(unix))]
type Hangups = ();

#[cfg(unix)]
fn hangups() -> Hangups {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::hangup()) {
        Ok(hangups) => Some(hangups),
        Err(err) => {
            tracing::warn!(error = %err, "no TLS reload on SIGHUP; file changes still reload");
            None
        }
    }
}

#[cfg(not(unix))]
fn hangups() -> Hangups {}

/// The next SIGHUP; never, without a handler.
async fn next_hangup(hangups: &mut Hangups) -> Option<()> {
    #[cfg(unix)]
    if let Some(hangups) = hangups {
        return hangups.recv().await;
    }
    let _ = hangups;
    std::future::pending().await
}

#[cfg(test)]
mod tests {
    use tokio::net::TcpListener;

    use super::*;

    /// A self-signed certificate for `localhost`, written to `dir`.
    fn self_signed(dir: &Path) -> (TlsFiles, CertificateDer<'static>) {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        let files = TlsFiles {
            cert: dir.join("cert.pem"),
            key: dir.join("key.pem"),
            client_ca: None,
        };
        std::fs::write(&files.cert, made.cert.pem()).unwrap();
        std::fs::write(&files.key, made.signing_key.serialize_pem()).unwrap();
        (files, made.cert.der().clone())
    }

    fn in_force(tls: &Tls) -> Arc<rustls::ServerConfig> {
        tls.config.read().unwrap().clone()
    }

    /// A reload replaces the configuration only for new, valid contents.
    #[test]
    fn reload_takes_only_new_valid_files() {
        let dir = tempfile::tempdir().unwrap();
        let (files, _) = self_signed(dir.path());
        let tls = Tls::load(files.clone()).unwrap();
        let first = in_force(&tls);
        assert!(!tls.reload(true).unwrap(), "unchanged files reloaded");
        std::fs::write(&files.key, "not a key").unwrap();
        assert!(matches!(tls.reload(true), Err(TlsError::Pem { .. })));
        assert!(!tls.reload(true).unwrap(), "the same bad files tried again");
        assert!(matches!(tls.reload(false), Err(TlsError::Pem { .. })));
        assert!(Arc::ptr_eq(&first, &in_force(&tls)), "a bad file was used");
        self_signed(dir.path());
        assert!(tls.reload(true).unwrap());
        assert!(!Arc::ptr_eq(&first, &in_force(&tls)));
    }

    /// A client that never speaks is let go at the timeout.
    #[tokio::test]
    async fn a_silent_client_times_out() {
        let dir = tempfile::tempdir().unwrap();
        let tls = Tls::load(self_signed(dir.path()).0).unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let _silent = TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (stream, _) = listener.accept().await.unwrap();
        let handshake = tls.handshake(stream, Duration::from_millis(100)).await;
        assert_eq!(handshake.unwrap_err().kind(), io::ErrorKind::TimedOut);
    }
}
