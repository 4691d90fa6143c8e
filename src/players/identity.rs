//! Players named by the platform's identity provider: a JWT signed with a
//! key of the provider's JWKS (`--auth-jwks FILE|URL`), RS256, ES256 or
//! EdDSA, checked for its issuer and audience when they are set; its `sub`
//! is the player's id, a claim (`--auth-name-claim`, default `name`) the
//! display name, and another (`--auth-username-claim`, default
//! `preferred_username`) the username a new player takes if it can.
//! Verification is the `jsonwebtoken` crate's.
//!
//! The key set is loaded at start-up (a failure stops the server), and
//! again every `--auth-jwks-refresh`, whenever a key-set file changes
//! (looked at every [`FILE_CHECK_INTERVAL`]), and whenever a token names a
//! key id the set lacks (at most every [`RELOAD_AT_MOST_EVERY`]): a
//! provider's rotated key is known without a restart, and a key taken out
//! of the set is refused from then on. A failed reload keeps the keys held.

use std::{
    path::PathBuf,
    sync::{Arc, Mutex, RwLock},
    time::{Duration, Instant},
};

use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use jsonwebtoken::{
    Algorithm, DecodingKey, Validation, decode, decode_header,
    errors::ErrorKind,
    jwk::{Jwk, JwkSet},
};
use serde_json::Value;

use crate::{
    games::{GameError, Refusal},
    reason::Reason,
};

/// Default `--auth-jwks-refresh`.
pub const DEFAULT_JWKS_REFRESH: Duration = Duration::from_secs(300);
/// A token naming an unknown key reloads the set at most this often.
pub const RELOAD_AT_MOST_EVERY: Duration = Duration::from_secs(10);
/// How often a key-set file is looked at for a change.
pub const FILE_CHECK_INTERVAL: Duration = Duration::from_secs(2);
/// The largest key set read.
const MAX_JWKS_BYTES: usize = 1 << 20;
/// How long fetching the key set may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest `sub` taken as a player id.
const MAX_SUBJECT: usize = 128;

/// Where the key set is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JwksSource {
    File(PathBuf),
    Url(url::Url),
}

impl std::str::FromStr for JwksSource {
    type Err = String;

    fn from_str(s: &str) -> Result<JwksSource, String> {
        if s.starts_with("http://") || s.starts_with("https://") {
            url::Url::parse(s)
                .map(JwksSource::Url)
                .map_err(|e| format!("{s}: {e}"))
        } else {
            Ok(JwksSource::File(PathBuf::from(s)))
        }
    }
}

/// How players' JWTs are checked.
#[derive(Clone, Debug)]
pub struct JwtSettings {
    pub jwks: JwksSource,
    /// The `iss` a token must have (`None`: any).
    pub issuer: Option<String>,
    /// An `aud` a token must have (`None`: any).
    pub audience: Option<String>,
    /// The claim holding the display name.
    pub name_claim: String,
    /// The claim holding the username a new player takes, if it can.
    pub username_claim: String,
    pub refresh: Duration,
}

/// A player a verified JWT names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JwtPlayer {
    /// The token's `sub`.
    pub id: String,
    /// The display name claim, if the token has one.
    pub name: Option<String>,
    /// The username claim, if the token has one.
    pub username: Option<String>,
    /// When the token expires (its `exp`, in seconds since 1970).
    pub expires_at: u64,
}

/// The provider's keys, and how tokens are checked against them.
#[derive(Debug)]
pub struct Jwt {
    settings: JwtSettings,
    keys: RwLock<Arc<JwkSet>>,
    reloaded: Mutex<Instant>,
    /// The key set's text as last read, to tell a changed file.
    text: Mutex<String>,
}

impl Jwt {
    /// Loads the key set.
    ///
    /// # Errors
    ///
    /// The key set cannot be read or is not one.
    pub async fn load(settings: JwtSettings) -> Result<Arc<Jwt>, String> {
        let text = read_jwks(&settings.jwks).await?;
        let keys = parse_jwks(&text)?;
        Ok(Arc::new(Jwt {
            settings,
            keys: RwLock::new(Arc::new(keys)),
            text: Mutex::new(text),
            // The first unknown key id reloads at once.
            reloaded: Mutex::new(
                Instant::now()
                    .checked_sub(RELOAD_AT_MOST_EVERY)
                    .unwrap_or_else(Instant::now),
            ),
        }))
    }

    /// Whether `token` has a JWT's shape (three parts), rather than a
    /// player token's.
    pub fn looks_like(token: &str) -> bool {
        token.split('.').count() == 3
    }

    /// The player `token` names, once its signature and claims check out.
    ///
    /// # Errors
    ///
    /// UNAUTHENTICATED: `JWT_EXPIRED`, or `JWT_INVALID` saying why.
    pub async fn verify(&self, token: &str) -> Result<JwtPlayer, GameError> {
        let header = decode_header(token).map_err(|e| invalid(&format!("not a JWT: {e}")))?;
        let key = match self.key(header.kid.as_deref()) {
            Some(key) => key,
            None => {
                self.reload_now().await;
                self.key(header.kid.as_deref())
                    .ok_or_else(|| invalid("no key of the identity provider has its key id"))?
            }
        };
        if !matches!(
            header.alg,
            Algorithm::RS256 | Algorithm::ES256 | Algorithm::EdDSA
        ) {
            return Err(invalid("its algorithm is not RS256, ES256 or EdDSA"));
        }
        let decoding = DecodingKey::from_jwk(&key)
            .map_err(|e| invalid(&format!("its key cannot verify: {e}")))?;
        let mut validation = Validation::new(header.alg);
        validation.set_required_spec_claims(&["exp", "sub"]);
        if let Some(issuer) = &self.settings.issuer {
            validation.set_issuer(&[issuer]);
        }
        match &self.settings.audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        let claims = decode::<Value>(token, &decoding, &validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => GameError::Unauthenticated(Refusal::new(
                    Reason::JwtExpired,
                    "the JWT has expired: get a new one from the identity provider",
                )),
                ErrorKind::InvalidIssuer => invalid("its issuer is not the one this server trusts"),
                ErrorKind::InvalidAudience => invalid("it is not meant for this server (audience)"),
                ErrorKind::InvalidSignature => invalid("its signature does not verify"),
                _ => invalid(&e.to_string()),
            })?
            .claims;
        let id = claims
            .get("sub")
            .and_then(Value::as_str)
            .filter(|sub| is_subject(sub))
            .ok_or_else(|| {
                invalid(&format!(
                    "its sub is not a player id (1 to {MAX_SUBJECT} printable characters, no \
                     spaces, commas, quotes or backslashes)"
                ))
            })?
            .to_owned();
        let claim = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
        Ok(JwtPlayer {
            id,
            name: claim(&self.settings.name_claim),
            username: claim(&self.settings.username_claim),
            expires_at: claims.get("exp").and_then(Value::as_u64).unwrap_or(0),
        })
    }

    /// Reloads the key set every `--auth-jwks-refresh`, and a file's when
    /// it changes, until `stop` says so.
    pub fn keep_fresh(
        self: Arc<Jwt>,
        mut stop: tokio::sync::watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        let every = match self.settings.jwks {
            JwksSource::File(_) => self.settings.refresh.min(FILE_CHECK_INTERVAL),
            JwksSource::Url(_) => self.settings.refresh,
        };
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(every) => self.reload().await,
                    _ = stop.changed() => return,
                }
            }
        })
    }

    /// The key `kid` names (the only key, for a token without one).
    fn key(&self, kid: Option<&str>) -> Option<Jwk> {
        let keys = Arc::clone(&self.keys.read().unwrap_or_else(|e| e.into_inner()));
        match kid {
            Some(kid) => keys.find(kid).cloned(),
            None if keys.keys.len() == 1 => keys.keys.first().cloned(),
            None => None,
        }
    }

    /// Reloads the key set, unless it was reloaded a moment ago.
    async fn reload_now(&self) {
        {
            let mut reloaded = self.reloaded.lock().unwrap_or_else(|e| e.into_inner());
            if reloaded.elapsed() < RELOAD_AT_MOST_EVERY {
                return;
            }
            *reloaded = Instant::now();
        }
        self.reload().await;
    }

    /// Reads the key set again, and takes it if its text changed.
    async fn reload(&self) {
        let text = match read_jwks(&self.settings.jwks).await {
            Ok(text) => text,
            Err(error) => {
                tracing::warn!(%error, "the identity provider's keys did not reload");
                return;
            }
        };
        if *self.text.lock().unwrap_or_else(|e| e.into_inner()) == text {
            return;
        }
        let parsed = parse_jwks(&text);
        // A bad set is reported once, not at every look.
        *self.text.lock().unwrap_or_else(|e| e.into_inner()) = text;
        match parsed {
            Ok(keys) => {
                tracing::info!(
                    keys = keys.keys.len(),
                    "the identity provider's keys reloaded"
                );
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(keys);
            }
            Err(error) => tracing::warn!(%error, "the identity provider's keys did not reload"),
        }
    }
}

/// Whether `sub` can be a player id: printable, without spaces, commas,
/// quotes or backslashes (lists and logs hold ids as they are).
pub(super) fn is_subject(sub: &str) -> bool {
    (1..=MAX_SUBJECT).contains(&sub.len())
        && sub
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b',' | b'"' | b'\\'))
}

fn invalid(why: &str) -> GameError {
    GameError::Unauthenticated(Refusal::new(
        Reason::JwtInvalid,
        format!("the JWT is refused: {why}"),
    ))
}

/// The key set's text.
async fn read_jwks(source: &JwksSource) -> Result<String, String> {
    let text = match source {
        JwksSource::File(path) => tokio::fs::read_to_string(path)
            .await
            .map_err(|e| format!("{}: {e}", path.display()))?,
        JwksSource::Url(url) => tokio::time::timeout(FETCH_TIMEOUT, fetch(url))
            .await
            .map_err(|_| format!("{url}: no answer within {FETCH_TIMEOUT:?}"))??,
    };
    if text.len() > MAX_JWKS_BYTES {
        return Err(format!("the key set is over {MAX_JWKS_BYTES} bytes"));
    }
    Ok(text)
}

fn parse_jwks(text: &str) -> Result<JwkSet, String> {
    serde_json::from_str(text).map_err(|e| format!("not a JWK set: {e}"))
}

/// GETs `url` (http or https, the system's web roots trusted).
async fn fetch(url: &url::Url) -> Result<String, String> {
    let failed = |e: &dyn std::fmt::Display| format!("{url}: {e}");
    let host = url.host_str().ok_or_else(|| failed(&"no host"))?.to_owned();
    let port = url.port_or_known_default().unwrap_or(443);
    let tcp = tokio::net::TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| failed(&e))?;
    let request = http::Request::get(url.as_str())
        .header(http::header::HOST, host.as_str())
        .body(Empty::<bytes::Bytes>::new())
        .map_err(|e| failed(&e))?;
    let response = if url.scheme() == "https" {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| failed(&e))?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(host.clone()).map_err(|e| failed(&e))?;
        let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .map_err(|e| failed(&e))?;
        send(TokioIo::new(tls), request).await
    } else {
        send(TokioIo::new(tcp), request).await
    }
    .map_err(|e| failed(&e))?;
    if !response.status().is_success() {
        return Err(failed(&response.status()));
    }
    let body = Limited::new(response.into_body(), MAX_JWKS_BYTES)
        .collect()
        .await
        .map_err(|e| failed(&e))?
        .to_bytes();
    String::from_utf8(body.to_vec()).map_err(|e| failed(&e))
}

/// Sends `request` on a new HTTP/1.1 connection over `io`.
async fn send<T>(
    io: T,
    request: http::Request<Empty<bytes::Bytes>>,
) -> Result<http::Response<hyper::body::Incoming>, hyper::Error>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
    tokio::spawn(connection);
    sender.send_request(request).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_ids_lists_and_logs_can_hold() {
        for good in ["alice", "auth0|5f1a", "google-oauth2|1234567890", "a@b.c"] {
            assert!(is_subject(good), "{good}");
        }
        for bad in ["", "a b", "a,b", "a\"b", "a\\b", "é", &"x".repeat(129)] {
            assert!(!is_subject(bad), "{bad}");
        }
    }

    #[test]
    fn sources_are_files_or_web_addresses() {
        assert_eq!(
            "keys.json".parse(),
            Ok(JwksSource::File(PathBuf::from("keys.json")))
        );
        assert!(matches!(
            "https://id.example/.well-known/jwks.json".parse(),
            Ok(JwksSource::Url(_))
        ));
    }
}
