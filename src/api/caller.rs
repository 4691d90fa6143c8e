//! Who a call is made by: anonymous, or a player named by the call's
//! `authorization: Bearer <token>` metadata, either a player token or a
//! trusted backend's credential (the operator's, or the service credential,
//! which can do nothing else) acting for the player named in
//! `arbiter-player` metadata.

use tonic::{Request, Status, metadata::MetadataMap};

use super::error::ErrorStatus;
use crate::{players::Players, reason::Reason};

/// The metadata naming the player a backend acts for.
const ACTING_FOR: &str = "arbiter-player";

/// A player a call is made by.
#[derive(Clone, Debug)]
pub(super) struct Caller {
    /// The player's id.
    pub id: String,
    /// The player token the call was made with (`None`: a backend acting
    /// for the player).
    pub token: Option<String>,
}

/// The player `request` is made by, if it names one.
pub(super) async fn caller<T>(
    players: &Players,
    request: &Request<T>,
) -> Result<Option<Caller>, Status> {
    let Some(token) = bearer(request.metadata())? else {
        return Ok(None);
    };
    if players.is_backend(token) {
        let Some(id) = request.metadata().get(ACTING_FOR) else {
            return Err(ErrorStatus::new(
                Reason::PlayerTokenMissing,
                format!(
                    "a backend's credential acts for the player named in `{ACTING_FOR}` \
                     metadata, and none is"
                ),
            )
            .into());
        };
        let name = id.to_str().unwrap_or_default();
        let player = players.get(name).await?;
        return Ok(Some(Caller {
            id: player.id,
            token: None,
        }));
    }
    let id = players.authenticate(token).await?;
    Ok(Some(Caller {
        id,
        token: Some(token.to_owned()),
    }))
}

/// Whether `request` bears a trusted backend's credential.
pub(super) fn is_backend<T>(players: &Players, request: &Request<T>) -> Result<bool, Status> {
    Ok(bearer(request.metadata())?.is_some_and(|token| players.is_backend(token)))
}

/// The player `request` is made by, who must be one.
pub(super) async fn player<T>(players: &Players, request: &Request<T>) -> Result<Caller, Status> {
    caller(players, request).await?.ok_or_else(|| {
        ErrorStatus::new(
            Reason::PlayerTokenMissing,
            "this call acts for a player: send `authorization: Bearer <player token>` metadata",
        )
        .into()
    })
}

/// The bearer token of `metadata`, if it has an `authorization`.
fn bearer(metadata: &MetadataMap) -> Result<Option<&str>, Status> {
    let Some(value) = metadata.get("authorization") else {
        return Ok(None);
    };
    let malformed = || -> Status {
        ErrorStatus::new(
            Reason::AuthorizationMalformed,
            "the authorization metadata must be `Bearer <token>`",
        )
        .into()
    };
    let value = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = value.split_once(' ').ok_or_else(malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(malformed());
    }
    Ok(Some(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(value: &str) -> MetadataMap {
        let mut metadata = MetadataMap::new();
        metadata.insert("authorization", value.parse().unwrap());
        metadata
    }

    #[test]
    fn reads_bearer_tokens_and_refuses_other_shapes() {
        assert_eq!(bearer(&MetadataMap::new()).unwrap(), None);
        assert_eq!(bearer(&metadata("Bearer abc")).unwrap(), Some("abc"));
        assert_eq!(bearer(&metadata("bearer abc")).unwrap(), Some("abc"));
        for bad in ["abc", "Basic abc", "Bearer ", "Bearer"] {
            let status = bearer(&metadata(bad)).unwrap_err();
            assert_eq!(status.code(), tonic::Code::Unauthenticated, "{bad}");
        }
    }
}
