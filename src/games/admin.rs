//! The operator credential (`arbiter serve --admin-token`): it aborts any
//! ongoing game, however far it has gone (engine-vs-engine games have no
//! seat token to stop them with), and deletes any saved position. Only its
//! SHA-256 is kept, and tokens are compared by their hashes.

use std::fmt;

use super::ids::hash_token;

/// The operator's credential, kept as its SHA-256.
#[derive(Clone, PartialEq, Eq)]
pub struct AdminToken {
    hash: String,
}

impl AdminToken {
    /// The shortest credential accepted: it must not be guessable.
    pub const MIN_CHARS: usize = 16;

    /// The credential `token`; refused when shorter than
    /// [`AdminToken::MIN_CHARS`].
    ///
    /// # Errors
    ///
    /// A message saying why `token` cannot be the credential.
    pub fn new(token: &str) -> Result<AdminToken, String> {
        if token.chars().count() < AdminToken::MIN_CHARS {
            return Err(format!(
                "the admin token must have at least {} characters (e.g. `openssl rand -hex 32`)",
                AdminToken::MIN_CHARS
            ));
        }
        Ok(AdminToken {
            hash: hash_token(token),
        })
    }

    /// Is `token` the operator's credential?
    pub(crate) fn is(&self, token: &str) -> bool {
        hash_token(token) == self.hash
    }
}

/// Whether `token` is the credential of `admin`, when there is one.
pub(crate) fn is_admin(admin: Option<&AdminToken>, token: &str) -> bool {
    admin.is_some_and(|admin| admin.is(token))
}

impl fmt::Debug for AdminToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not even the hash: a weak credential could be found from it.
        f.write_str("AdminToken(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_credential_itself_matches() {
        let admin = AdminToken::new("0123456789abcdef").unwrap();
        assert!(admin.is("0123456789abcdef"));
        assert!(!admin.is("0123456789abcdeF"));
        assert!(!admin.is(""));
        assert!(AdminToken::new("short").is_err());
        assert_eq!(format!("{admin:?}"), "AdminToken(..)");
        assert!(!is_admin(None, ""));
    }
}
