//! The operator credential (`arbiter serve --admin-token`): it aborts any
//! ongoing game, however far it has gone (engine-vs-engine games have no
//! seat token to stop them with), and deletes any saved position. The same
//! type keeps the service credential (`--service-credential-file`), which
//! acts for players only. Only a credential's SHA-256 is kept, and tokens
//! are compared by their hashes, in constant time. A credential
//! that is short or easy to guess (zxcvbn's estimate, the field's usual one,
//! below 10^10 guesses: repeats, sequences, words, dates) is refused at
//! start-up.

use std::fmt;

use subtle::ConstantTimeEq;

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
    /// [`AdminToken::MIN_CHARS`] or easy to guess.
    ///
    /// # Errors
    ///
    /// A message saying why `token` cannot be the credential.
    pub fn new(token: &str) -> Result<AdminToken, String> {
        if token.chars().count() < AdminToken::MIN_CHARS {
            return Err(format!(
                "a credential must have at least {} characters (e.g. `openssl rand -hex 32`)",
                AdminToken::MIN_CHARS
            ));
        }
        let estimate = zxcvbn::zxcvbn(token, &[]);
        if estimate.score() < zxcvbn::Score::Four {
            return Err(format!(
                "the credential is too easy to guess (about 10^{:.0} guesses; at least 10^10 \
                 are needed): make it random, e.g. `openssl rand -hex 32`",
                estimate.guesses_log10()
            ));
        }
        Ok(AdminToken {
            hash: hash_token(token),
        })
    }

    /// Is `token` this credential?
    pub(crate) fn is(&self, token: &str) -> bool {
        hash_token(token)
            .as_bytes()
            .ct_eq(self.hash.as_bytes())
            .into()
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
        let admin = AdminToken::new("7f3a9c01e4b25d86").unwrap();
        assert!(admin.is("7f3a9c01e4b25d86"));
        assert!(!admin.is("7f3a9c01e4b25d8F"));
        assert!(!admin.is(""));
        assert!(AdminToken::new("short").is_err());
        assert_eq!(format!("{admin:?}"), "AdminToken(..)");
        assert!(!is_admin(None, ""));
    }

    #[test]
    fn a_credential_easy_to_guess_is_refused() {
        for weak in [
            "aaaaaaaaaaaaaaaa",
            "0123456789abcdef",
            "abcdefghijklmnopqrstuvwxyz",
            "passwordpassword",
            "1234567812345678",
        ] {
            let refused = AdminToken::new(weak).unwrap_err();
            assert!(refused.contains("too easy to guess"), "{weak}: {refused}");
        }
        // `openssl rand -hex 32`, and a random 16.
        AdminToken::new("c9e1f0a47b3d8e2265f1a90b7c4d3e8f1a2b6c7d9e0f4a3b5c6d7e8f9a0b1c2d")
            .unwrap();
        AdminToken::new("Qm7#vT2p!Lx9wZ4k").unwrap();
    }
}
