//! Players named by a platform's identity provider: JWTs signed at test
//! time with keys generated here (ES256, EdDSA) and a fixed RSA test key
//! (RS256, `tests/fixtures/jwt`), checked against the
//! provider's JWKS for their signature, expiry, issuer, audience and key
//! id, and a rotated key picked up without a restart.

use crate::common::{self, TestServer, bearing, code_and_reason};

use std::{
    path::Path,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use arbiter::{
    api::proto::{self as pb, players_client::PlayersClient},
    games::AdminToken,
    players::{JwksSource, JwtSettings},
    server::ServerConfig,
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header, encode};
use serde_json::{Value, json};
use tonic::Code;

const ISSUER: &str = "https://id.example.test";
const AUDIENCE: &str = "arbiter";

/// A signing key of the provider's, and its public half as a JWK.
struct SigningKey {
    kid: String,
    alg: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
}

impl SigningKey {
    fn es256(kid: &str) -> SigningKey {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
        // Uncompressed point: 0x04, then x and y.
        let point = pair.public_key_raw();
        SigningKey {
            kid: kid.into(),
            alg: Algorithm::ES256,
            encoding: EncodingKey::from_ec_pem(pair.serialize_pem().as_bytes()).unwrap(),
            jwk: json!({
                "kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
                "x": URL_SAFE_NO_PAD.encode(&point[1..33]),
                "y": URL_SAFE_NO_PAD.encode(&point[33..65]),
            }),
        }
    }

    fn ed25519(kid: &str) -> SigningKey {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
        SigningKey {
            kid: kid.into(),
            alg: Algorithm::EdDSA,
            encoding: EncodingKey::from_ed_pem(pair.serialize_pem().as_bytes()).unwrap(),
            jwk: json!({
                "kty": "OKP", "crv": "Ed25519", "kid": kid, "alg": "EdDSA", "use": "sig",
                "x": URL_SAFE_NO_PAD.encode(pair.public_key_raw()),
            }),
        }
    }

    /// The fixed RSA test key (see `tests/fixtures/jwt/README.md`).
    fn rs256() -> SigningKey {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jwt");
        let pem = std::fs::read(dir.join("rs256-test-key.pem")).unwrap();
        let jwk = std::fs::read_to_string(dir.join("rs256-test-key.jwk.json")).unwrap();
        let jwk: Value = serde_json::from_str(&jwk).unwrap();
        SigningKey {
            kid: jwk["kid"].as_str().unwrap().into(),
            alg: Algorithm::RS256,
            encoding: EncodingKey::from_rsa_pem(&pem).unwrap(),
            jwk,
        }
    }

    /// A token for `sub` with `claims` over the defaults (issuer,
    /// audience, an hour to live).
    fn token(&self, sub: &str, claims: Value) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let mut all = json!({
            "sub": sub, "iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + 3600,
        });
        for (name, value) in claims.as_object().unwrap() {
            all[name] = value.clone();
        }
        let header = Header {
            kid: Some(self.kid.clone()),
            ..Header::new(self.alg)
        };
        encode(&header, &all, &self.encoding).unwrap()
    }
}

fn write_jwks(path: &Path, keys: &[&SigningKey]) {
    let keys: Vec<&Value> = keys.iter().map(|k| &k.jwk).collect();
    std::fs::write(path, json!({ "keys": keys }).to_string()).unwrap();
}

/// The key-set file of [`trusting`]'s server, in its directory.
const JWKS: &str = "jwks.json";

fn jwt_settings(jwks: &Path) -> JwtSettings {
    JwtSettings {
        jwks: JwksSource::File(jwks.to_path_buf()),
        issuer: Some(ISSUER.into()),
        audience: Some(AUDIENCE.into()),
        name_claim: "name".into(),
        username_claim: "preferred_username".into(),
        refresh: Duration::from_secs(300),
    }
}

/// A server trusting the provider's `keys`, written to [`JWKS`] in the
/// directory answered (kept as long as the server runs).
async fn trusting(keys: &[&SigningKey]) -> (tempfile::TempDir, TestServer) {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join(JWKS);
    write_jwks(&jwks, keys);
    let server = TestServer::start_with_config(move |config| ServerConfig {
        jwt: Some(jwt_settings(&jwks)),
        ..config
    })
    .await;
    (dir, server)
}

/// A game White plays as the caller named by `token`, against an anonymous
/// seat.
fn game_for_caller() -> pb::CreateGameRequest {
    pb::CreateGameRequest {
        variant: pb::Variant::Chess as i32,
        white: Some(pb::SeatRequest {
            caller: true,
            ..Default::default()
        }),
        black: Some(pb::SeatRequest {
            display_name: "Guest".into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_providers_jwt_names_a_player_who_plays_with_it() {
    let (es, ed) = (SigningKey::es256("es-1"), SigningKey::ed25519("ed-1"));
    let rs = SigningKey::rs256();
    let (_dir, server) = trusting(&[&es, &ed, &rs]).await;
    let mut games = server.games().await;
    let mut players = PlayersClient::new(server.channel().await);

    let token = es.token("auth0|42", json!({ "name": "Ann Example" }));
    let created = games
        .create_game(bearing(game_for_caller(), &token))
        .await
        .expect("created as the provider's player")
        .into_inner();
    let white = created.game.as_ref().unwrap().white.clone().unwrap();
    assert_eq!(
        (white.player_id.as_str(), white.display_name.as_str()),
        ("auth0|42", "Ann Example")
    );
    let id = created.game.unwrap().id;
    games
        .make_move(bearing(
            pb::MakeMoveRequest {
                game_id: id.clone(),
                r#move: "e4".into(),
                ..Default::default()
            },
            &token,
        ))
        .await
        .expect("moves with the JWT");
    let found = players
        .get_player(pb::GetPlayerRequest {
            player: "auth0|42".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap();
    assert_eq!(found.display_name, "Ann Example");
    // RS256 works as well.
    let rsa = rs.token("user-rsa", json!({}));
    games
        .create_game(bearing(game_for_caller(), &rsa))
        .await
        .expect("an RS256 token");
    // An EdDSA key of the set works as well, for another player.
    let other = ed.token("user-7", json!({}));
    games
        .create_game(bearing(game_for_caller(), &other))
        .await
        .expect("an EdDSA token");
    // A player deleted stays so: the provider's JWTs no longer name them.
    players
        .delete_player(bearing(pb::DeletePlayerRequest::default(), &other))
        .await
        .expect("deleted");
    let refused = games
        .create_game(bearing(game_for_caller(), &other))
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (tonic::Code::Unauthenticated, "PLAYER_DELETED".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn a_providers_player_gets_a_username_and_never_acts_as_one_enrolled_here() {
    let key = SigningKey::es256("k1");
    let (_dir, server) = trusting(&[&key]).await;
    let mut players = PlayersClient::new(server.channel().await);
    let asking = players.clone();
    let who = |token: String| {
        let mut players = asking.clone();
        async move {
            players
                .get_player(bearing(pb::GetPlayerRequest::default(), &token))
                .await
                .map(|answer| answer.into_inner().player.unwrap())
        }
    };
    // The provider's username when it is one; found by it in any case.
    let ann = who(key.token("auth0|1", json!({ "preferred_username": "Ann_E" })))
        .await
        .unwrap();
    assert_eq!(
        (ann.id.as_str(), ann.username.as_str()),
        ("auth0|1", "Ann_E")
    );
    let found = players
        .get_player(pb::GetPlayerRequest {
            player: "ann_e".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap();
    assert_eq!(found.id, "auth0|1");
    // Taken (in another case) or not a username: a name made from the
    // subject.
    let taken = who(key.token("auth0|2", json!({ "preferred_username": "ANN_E" })))
        .await
        .unwrap();
    let dotted = who(key.token("auth0|3", json!({ "preferred_username": "ann.e" })))
        .await
        .unwrap();
    for made in [&taken, &dotted] {
        assert!(
            made.username.starts_with('u') && made.username.len() == 16,
            "{made:?}"
        );
    }
    assert_ne!(taken.username, dotted.username);
    // A subject that is an enrolled player's id does not act as them.
    common::create_player(&mut players, "carol").await;
    let refused = who(key.token("carol", json!({}))).await.unwrap_err();
    assert_eq!(
        code_and_reason(&refused),
        (Code::Unauthenticated, "JWT_INVALID".into())
    );
    // Nor does an enrolment take a provider player's username.
    let enrolment = pb::CreatePlayerRequest {
        username: "aNN_e".into(),
        ..Default::default()
    };
    assert_eq!(
        refused_creation(&mut players, tonic::Request::new(enrolment)).await,
        (Code::AlreadyExists, "USERNAME_TAKEN".into())
    );
    server.stop().await;
}

/// How CreatePlayer refuses `request`.
async fn refused_creation(
    players: &mut PlayersClient<tonic::transport::Channel>,
    request: tonic::Request<pb::CreatePlayerRequest>,
) -> (Code, String) {
    let status = players.create_player(request).await.unwrap_err();
    code_and_reason(&status)
}

/// Two players of the provider, known only by their JWTs: a rated
/// challenge by username, accepted, played and rated.
#[tokio::test]
async fn the_providers_players_play_a_rated_challenge() {
    let key = SigningKey::es256("k1");
    let (_dir, server) = trusting(&[&key]).await;
    let mut players = PlayersClient::new(server.channel().await);
    let mut games = server.games().await;
    let ann = key.token("idp|ann", json!({ "preferred_username": "Ann" }));
    let ben = key.token("idp|ben", json!({ "preferred_username": "Ben" }));
    // Ben is known once he has called.
    players
        .get_player(bearing(pb::GetPlayerRequest::default(), &ben))
        .await
        .unwrap();
    let challenge = players
        .create_challenge(bearing(
            pb::CreateChallengeRequest {
                destination_id: "ben".into(),
                variant: pb::Variant::Chess as i32,
                rated: true,
                color: pb::ChallengeColor::Black as i32,
                time_control: crate::ratings::blitz(),
                ..Default::default()
            },
            &ann,
        ))
        .await
        .expect("ann challenges ben by username")
        .into_inner()
        .challenge
        .unwrap();
    let game = players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest {
                challenge_id: challenge.id,
                ..Default::default()
            },
            &ben,
        ))
        .await
        .expect("ben accepts")
        .into_inner()
        .game
        .unwrap();
    assert_eq!(
        (game.white.unwrap().player_id, game.black.unwrap().player_id),
        ("idp|ben".to_owned(), "idp|ann".to_owned())
    );
    for (text, token) in [("f3", &ben), ("e5", &ann), ("g4", &ben), ("Qh4#", &ann)] {
        crate::ratings::play(&mut games, &game.id, token, text).await;
    }
    let ended = games
        .get_game(pb::GetGameRequest {
            game_id: game.id.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    let (white, black) = (ended.white.unwrap(), ended.black.unwrap());
    assert!(
        white.rating_diff < 0 && black.rating_diff > 0,
        "{white:?} {black:?}"
    );
    let rated = players
        .get_player(pb::GetPlayerRequest {
            player: "ann".into(),
        })
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap()
        .ratings;
    assert_eq!(rated.len(), 1);
    assert_eq!(rated[0].perf, "chess_blitz");
    server.stop().await;
}

/// A platform's backend enrols its users ahead: challenged, seated and
/// acted for before their first call, and then the same players with
/// their JWTs.
#[tokio::test]
async fn a_backend_creates_the_providers_players_ahead_of_their_first_call() {
    use crate::players::{SERVICE, acting_for};

    let key = SigningKey::es256("k1");
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join(JWKS);
    write_jwks(&jwks, &[&key]);
    let server = TestServer::start_with_config(move |config| ServerConfig {
        jwt: Some(jwt_settings(&jwks)),
        service_credential: Some(AdminToken::new(SERVICE).unwrap()),
        ..config
    })
    .await;
    let mut players = PlayersClient::new(server.channel().await);
    let ahead = |subject: &str, username: &str| pb::CreatePlayerRequest {
        provider_subject: subject.into(),
        username: username.into(),
        display_name: String::new(),
        ..Default::default()
    };
    // Only a backend may.
    assert_eq!(
        refused_creation(&mut players, tonic::Request::new(ahead("idp|dee", "Dee"))).await,
        (Code::PermissionDenied, "OPERATOR_ONLY".into())
    );
    let dee = players
        .create_player(bearing(ahead("idp|dee", "Dee"), SERVICE))
        .await
        .expect("created by the backend")
        .into_inner();
    assert!(dee.token.is_empty(), "the provider's JWTs name the player");
    let dee = dee.player.unwrap();
    assert_eq!(
        (
            dee.id.as_str(),
            dee.username.as_str(),
            dee.display_name.as_str()
        ),
        ("idp|dee", "Dee", "Dee")
    );
    // Again: the same player, as stored; no username given: the subject's.
    let again = players
        .create_player(bearing(ahead("idp|dee", "Other"), SERVICE))
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap();
    assert_eq!(again.username, "Dee");
    let eve = players
        .create_player(bearing(ahead("eve-7", ""), SERVICE))
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap();
    assert_eq!((eve.id.as_str(), eve.username.as_str()), ("eve-7", "eve-7"));
    // A taken username, a subject that is an enrolled id, a bad subject.
    common::create_player(&mut players, "frank").await;
    for (request, expected) in [
        (
            ahead("idp|x", "FRANK"),
            (Code::AlreadyExists, "USERNAME_TAKEN"),
        ),
        (ahead("frank", ""), (Code::AlreadyExists, "USERNAME_TAKEN")),
        (
            ahead("a b", ""),
            (Code::InvalidArgument, "MALFORMED_REQUEST"),
        ),
    ] {
        assert_eq!(
            refused_creation(&mut players, bearing(request, SERVICE)).await,
            (expected.0, expected.1.into())
        );
    }
    // Eve challenges Dee by username before Dee ever called; the backend
    // lists it for Dee.
    let eve_jwt = key.token("eve-7", json!({}));
    let challenge = players
        .create_challenge(bearing(
            pb::CreateChallengeRequest {
                destination_id: "dee".into(),
                variant: pb::Variant::Chess as i32,
                color: pb::ChallengeColor::White as i32,
                time_control: crate::ratings::blitz(),
                ..Default::default()
            },
            &eve_jwt,
        ))
        .await
        .expect("dee is known")
        .into_inner()
        .challenge
        .unwrap();
    let listed = players
        .list_challenges(acting_for(
            pb::ListChallengesRequest::default(),
            SERVICE,
            "idp|dee",
        ))
        .await
        .expect("the backend acts for dee")
        .into_inner();
    assert!(
        listed.incoming.iter().any(|c| c.id == challenge.id),
        "{listed:?}"
    );
    // Dee's first JWT names the player made ahead, who accepts.
    let dee_jwt = key.token("idp|dee", json!({ "preferred_username": "someone" }));
    let game = players
        .accept_challenge(bearing(
            pb::AcceptChallengeRequest {
                challenge_id: challenge.id,
                ..Default::default()
            },
            &dee_jwt,
        ))
        .await
        .expect("dee accepts with a JWT")
        .into_inner()
        .game
        .unwrap();
    assert_eq!(game.black.unwrap().player_id, "idp|dee");
    let me = players
        .get_player(bearing(pb::GetPlayerRequest::default(), &dee_jwt))
        .await
        .unwrap()
        .into_inner()
        .player
        .unwrap();
    assert_eq!(me.username, "Dee");
    // A deleted player's subject is not made again.
    players
        .delete_player(bearing(pb::DeletePlayerRequest::default(), &eve_jwt))
        .await
        .unwrap();
    assert_eq!(
        refused_creation(&mut players, bearing(ahead("eve-7", ""), SERVICE)).await,
        (Code::AlreadyExists, "USERNAME_TAKEN".into())
    );
    server.stop().await;
}

#[tokio::test]
async fn jwts_that_do_not_check_out_are_refused() {
    let key = SigningKey::es256("k1");
    let (_dir, server) = trusting(&[&key]).await;
    let mut games = server.games().await;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let impostor = SigningKey::es256("k1");
    let cases = [
        (key.token("a", json!({ "exp": now - 120 })), "JWT_EXPIRED"),
        (
            key.token("a", json!({ "iss": "https://evil.test" })),
            "JWT_INVALID",
        ),
        (
            key.token("a", json!({ "aud": "someone-else" })),
            "JWT_INVALID",
        ),
        (SigningKey::es256("k9").token("a", json!({})), "JWT_INVALID"),
        (impostor.token("a", json!({})), "JWT_INVALID"),
        (key.token("a b", json!({})), "JWT_INVALID"),
    ];
    for (token, reason) in cases {
        let refused = games
            .create_game(bearing(game_for_caller(), &token))
            .await
            .unwrap_err();
        assert_eq!(
            code_and_reason(&refused),
            (Code::Unauthenticated, reason.into())
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_rotated_key_is_picked_up_without_a_restart() {
    let old = SigningKey::es256("2026-11");
    let (dir, server) = trusting(&[&old]).await;
    let mut games = server.games().await;
    games
        .create_game(bearing(game_for_caller(), &old.token("p", json!({}))))
        .await
        .expect("the old key");
    // The provider rotates: the new key is published, the old one dropped.
    let new = SigningKey::es256("2026-12");
    write_jwks(&dir.path().join(JWKS), &[&new]);
    games
        .create_game(bearing(game_for_caller(), &new.token("p", json!({}))))
        .await
        .expect("the new key, read again on its unknown key id");
    server.stop().await;
}

#[tokio::test]
async fn a_key_taken_out_of_the_file_is_refused_once_the_file_changes() {
    let (kept, dropped) = (SigningKey::ed25519("kept"), SigningKey::es256("dropped"));
    let (dir, server) = trusting(&[&kept, &dropped]).await;
    let mut games = server.games().await;
    let token = dropped.token("p", json!({}));
    games
        .create_game(bearing(game_for_caller(), &token))
        .await
        .expect("a key of the set");
    // The key's id stays known until the file is read again: only the
    // file's change drops it.
    write_jwks(&dir.path().join(JWKS), &[&kept]);
    let mut players = PlayersClient::new(server.channel().await);
    crate::wait_until!(
        Duration::from_secs(10),
        players
            .get_player(bearing(pb::GetPlayerRequest::default(), &token))
            .await
            .is_err_and(|status| code_and_reason(&status)
                == (Code::Unauthenticated, "JWT_INVALID".to_owned())),
        "the dropped key still verifies"
    );
    games
        .create_game(bearing(game_for_caller(), &kept.token("p", json!({}))))
        .await
        .expect("the kept key");
    server.stop().await;
}

#[tokio::test]
async fn the_key_set_comes_from_a_url_too() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let key = SigningKey::es256("web-1");
    let body = json!({ "keys": [&key.jwk] }).to_string();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut request = [0; 4096];
            let _ = stream.read(&mut request).await;
            let response = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
                 connection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(response.as_bytes()).await;
        }
    });
    let url = format!("http://{addr}/.well-known/jwks.json");
    let server = TestServer::start_with_config(move |config| ServerConfig {
        jwt: Some(JwtSettings {
            jwks: url.parse().unwrap(),
            issuer: None,
            audience: None,
            name_claim: "name".into(),
            username_claim: "preferred_username".into(),
            refresh: Duration::from_secs(300),
        }),
        ..config
    })
    .await;
    let mut games = server.games().await;
    games
        .create_game(bearing(game_for_caller(), &key.token("w", json!({}))))
        .await
        .expect("a key read from the URL");
    server.stop().await;
    serving.abort();
}
