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

async fn server_trusting(path: &Path) -> TestServer {
    let jwks = path.to_path_buf();
    TestServer::start_with_config(move |config| ServerConfig {
        jwt: Some(JwtSettings {
            jwks: JwksSource::File(jwks),
            issuer: Some(ISSUER.into()),
            audience: Some(AUDIENCE.into()),
            name_claim: "name".into(),
            username_claim: "preferred_username".into(),
            refresh: Duration::from_secs(300),
        }),
        ..config
    })
    .await
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
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let (es, ed) = (SigningKey::es256("es-1"), SigningKey::ed25519("ed-1"));
    let rs = SigningKey::rs256();
    write_jwks(&jwks, &[&es, &ed, &rs]);
    let server = server_trusting(&jwks).await;
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
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let key = SigningKey::es256("k1");
    write_jwks(&jwks, &[&key]);
    let server = server_trusting(&jwks).await;
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
    let status = players
        .create_player(pb::CreatePlayerRequest {
            username: "aNN_e".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        code_and_reason(&status),
        (Code::AlreadyExists, "USERNAME_TAKEN".into())
    );
    server.stop().await;
}

/// Two players of the provider, known only by their JWTs: a rated
/// challenge by username, accepted, played and rated.
#[tokio::test]
async fn the_providers_players_play_a_rated_challenge() {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let key = SigningKey::es256("k1");
    write_jwks(&jwks, &[&key]);
    let server = server_trusting(&jwks).await;
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

#[tokio::test]
async fn jwts_that_do_not_check_out_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let key = SigningKey::es256("k1");
    write_jwks(&jwks, &[&key]);
    let server = server_trusting(&jwks).await;
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
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let old = SigningKey::es256("2026-11");
    write_jwks(&jwks, &[&old]);
    let server = server_trusting(&jwks).await;
    let mut games = server.games().await;
    games
        .create_game(bearing(game_for_caller(), &old.token("p", json!({}))))
        .await
        .expect("the old key");
    // The provider rotates: the new key is published, the old one dropped.
    let new = SigningKey::es256("2026-12");
    write_jwks(&jwks, &[&new]);
    games
        .create_game(bearing(game_for_caller(), &new.token("p", json!({}))))
        .await
        .expect("the new key, read again on its unknown key id");
    server.stop().await;
}

#[tokio::test]
async fn a_key_taken_out_of_the_file_is_refused_once_the_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("jwks.json");
    let (kept, dropped) = (SigningKey::ed25519("kept"), SigningKey::es256("dropped"));
    write_jwks(&jwks, &[&kept, &dropped]);
    let server = server_trusting(&jwks).await;
    let mut games = server.games().await;
    let token = dropped.token("p", json!({}));
    games
        .create_game(bearing(game_for_caller(), &token))
        .await
        .expect("a key of the set");
    // The key's id stays known until the file is read again: only the
    // file's change drops it.
    write_jwks(&jwks, &[&kept]);
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
