//! How make-move's players prove who they are (`--as-players`): player
//! tokens Arbiter issues, or JWTs the load signs itself with `--jwt-key`,
//! as a platform's identity provider would.

use std::{
    path::Path,
    sync::Arc,
    time::{SystemTime, UNIX_EPOCH},
};

use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::json;

use crate::Fatal;

/// The players' credentials.
#[derive(Clone)]
pub(crate) enum AsPlayers {
    /// Player tokens, from CreatePlayer.
    Tokens,
    /// RS256 JWTs naming each player by its `sub`.
    Jwt(Arc<Signer>),
}

/// An RS256 signing key and its key id.
pub(crate) struct Signer {
    key: EncodingKey,
    kid: Option<String>,
}

impl Signer {
    /// The PEM key at `path`, published under key id `kid`.
    pub(crate) fn load(path: &Path, kid: Option<&str>) -> Result<Signer, Fatal> {
        let pem =
            std::fs::read(path).map_err(|e| Fatal(format!("--jwt-key {}: {e}", path.display())))?;
        let key = EncodingKey::from_rsa_pem(&pem)
            .map_err(|e| Fatal(format!("--jwt-key {}: not an RSA key: {e}", path.display())))?;
        Ok(Signer {
            key,
            kid: kid.map(str::to_owned),
        })
    }

    /// A token for player `sub`, good for a day.
    pub(crate) fn token(&self, sub: &str) -> Result<String, Fatal> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let header = Header {
            kid: self.kid.clone(),
            ..Header::new(Algorithm::RS256)
        };
        let claims = json!({ "sub": sub, "iat": now, "exp": now + 86_400 });
        encode(&header, &claims, &self.key).map_err(|e| Fatal(format!("signing a JWT: {e}")))
    }
}
