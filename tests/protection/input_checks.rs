//! Small inputs checked: control characters in display names, position
//! names and tags (a tag with a newline would read back as two), invisible
//! formatting characters in names (a bidi override renders a name
//! reversed), and PGN, whose caps ImportGame applies while it reads.

use crate::common;

use arbiter::api::proto::{
    self as pb, games_client::GamesClient, positions_client::PositionsClient,
};
use common::TestServer;
use tonic::{Code, Status, transport::Channel};
use tonic_types::StatusExt;

/// The field an INVALID_ARGUMENT names, and its reason (the violation's,
/// which is the `ErrorInfo`'s).
fn field(status: &Status) -> (String, String) {
    let (code, reason) = common::code_and_reason(status);
    assert_eq!(code, Code::InvalidArgument, "{status:?}");
    let bad = status.get_details_bad_request().expect("BadRequest");
    let violation = &bad.field_violations[0];
    assert_eq!(violation.reason, reason, "{status:?}");
    (violation.field.clone(), reason)
}

/// `field`'s answer for a problem of `named` for `reason`.
fn named(field: &str, reason: &str) -> (String, String) {
    (field.to_owned(), reason.to_owned())
}

async fn create_game(
    games: &mut GamesClient<Channel>,
    white: &str,
    black: &str,
) -> Result<pb::CreateGameResponse, Status> {
    games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat(white),
            black: common::seat(black),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

async fn import(
    games: &mut GamesClient<Channel>,
    pgn: String,
) -> Result<pb::ImportGameResponse, Status> {
    games
        .import_game(pb::ImportGameRequest {
            pgn,
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner)
}

#[tokio::test]
async fn names_and_tags_refuse_control_characters() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let mut games = GamesClient::new(channel.clone());
    let mut positions = PositionsClient::new(channel);

    for (white, black, seat) in [
        ("Ali\nce", "Bob", "white.display_name"),
        ("Alice", "Bob\t", "black.display_name"),
        ("Alice", "\u{7}Bob", "black.display_name"),
        ("Alice", "Bob\u{85}", "black.display_name"),
    ] {
        let status = create_game(&mut games, white, black).await.unwrap_err();
        assert_eq!(
            field(&status),
            named(seat, "CONTROL_CHARACTER"),
            "{white:?} {black:?}"
        );
        assert!(
            status.message().contains("control characters"),
            "{status:?}"
        );
    }
    create_game(&mut games, "Élodie", "李白").await.unwrap();

    let position = |name: &str, tags: &[&str]| pb::CreatePositionRequest {
        variant: pb::Variant::Chess as i32,
        source: Some(pb::create_position_request::Source::Fen(String::new())),
        name: name.into(),
        tags: tags.iter().map(|&t| t.to_owned()).collect(),
    };
    let status = positions
        .create_position(position("two\nlines", &[]))
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("name", "CONTROL_CHARACTER"));
    let status = positions
        .create_position(position("ok", &["fine", "endgame\nrook"]))
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("tags", "INVALID_TAG"));
    assert!(
        status
            .message()
            .contains("tags[1] has a control character (U+000A)"),
        "{status:?}"
    );
    let saved = positions
        .create_position(position("ok", &["endgame rook"]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(saved.position.unwrap().tags, ["endgame rook"]);

    // A PGN's player tags become display names.
    let status = import(&mut games, "[White \"A\\\tB\"]\n1. e4 *".into())
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("pgn", "CONTROL_CHARACTER"));
    assert!(status.message().contains("[White]"), "{status:?}");
    server.stop().await;
}

/// Characters that change how a name renders without showing: bidi
/// embeddings, overrides and isolates, zero-width characters, marks, the
/// byte order mark, the word joiner, a soft hyphen, a line separator.
const INVISIBLE: [char; 14] = [
    '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}', '\u{2067}', '\u{2069}',
    '\u{200B}', '\u{200D}', '\u{200F}', '\u{FEFF}', '\u{2060}', '\u{2028}',
];

/// A name that renders reversed ("Alice" as "ecilA") or passes for another
/// (a zero-width space inside) is refused wherever a name is given, with a
/// reason of its own; names in every script, accents included, are kept
/// as given.
#[tokio::test]
async fn names_refuse_invisible_formatting_characters() {
    let server = TestServer::start().await;
    let channel = server.channel().await;
    let mut games = GamesClient::new(channel.clone());
    let mut positions = PositionsClient::new(channel);

    for c in INVISIBLE {
        let name = format!("Al{c}ice");
        let status = create_game(&mut games, "Bob", &name).await.unwrap_err();
        assert_eq!(
            field(&status),
            named("black.display_name", "INVISIBLE_CHARACTER"),
            "U+{:04X}",
            u32::from(c)
        );
        assert!(
            status
                .message()
                .contains(&format!("U+{:04X}", u32::from(c))),
            "{status:?}"
        );
    }
    let status = create_game(&mut games, "\u{202E}ecilA", "Bob")
        .await
        .unwrap_err();
    assert_eq!(
        field(&status),
        named("white.display_name", "INVISIBLE_CHARACTER")
    );

    // Joining an open seat, a saved position's name, a PGN's player tag.
    let open = games
        .create_game(pb::CreateGameRequest {
            variant: pb::Variant::Chess as i32,
            white: common::seat("Host"),
            black: Some(pb::SeatRequest {
                open: true,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let status = games
        .join_game(pb::JoinGameRequest {
            join_code: open.join_code.clone(),
            display_name: "Bo\u{200B}b".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("display_name", "INVISIBLE_CHARACTER"));
    let status = positions
        .create_position(pb::CreatePositionRequest {
            variant: pb::Variant::Chess as i32,
            source: Some(pb::create_position_request::Source::Fen(String::new())),
            name: "\u{2066}study\u{2069}".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("name", "INVISIBLE_CHARACTER"));
    let status = import(&mut games, "[Black \"B\u{FEFF}ob\"]\n1. e4 *".into())
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("pgn", "INVISIBLE_CHARACTER"));
    assert!(status.message().contains("[Black]"), "{status:?}");

    let names = ["Zoë Ångström", "Nguyễn Thị Minh Khai", "王小明"];
    let created = create_game(&mut games, names[0], names[1]).await.unwrap();
    let game = created.game.unwrap();
    assert_eq!(
        [
            game.white.unwrap().display_name,
            game.black.unwrap().display_name
        ],
        [names[0], names[1]]
    );
    let joined = games
        .join_game(pb::JoinGameRequest {
            join_code: open.join_code,
            display_name: names[2].into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(joined.game.unwrap().black.unwrap().display_name, names[2]);
    server.stop().await;
}

/// The status's `ErrorInfo` reason and metadata entry `key`.
fn cap(status: &Status, key: &str) -> (String, Option<String>) {
    let info = status.get_details_error_info().expect("ErrorInfo");
    (info.reason, info.metadata.get(key).cloned())
}

#[tokio::test]
async fn import_stops_reading_at_its_caps() {
    let server = TestServer::start().await;
    let mut games = server.games().await;
    let too_long = || ("PGN_TOO_LONG".to_owned(), Some("2000".to_owned()));

    // 500,000 moves: refused at the 2,001st.
    let status = import(&mut games, format!("1. {}*", "a ".repeat(500_000)))
        .await
        .unwrap_err();
    assert_eq!(field(&status), named("pgn", "PGN_TOO_LONG"));
    assert_eq!(cap(&status, "limit_moves"), too_long());
    assert!(status.message().contains("at most 2000"), "{status:?}");
    // What follows the cap is not read: here, a comment never closed.
    let status = import(&mut games, format!("{}{{ never closed", "a ".repeat(2_001)))
        .await
        .unwrap_err();
    assert_eq!(cap(&status, "limit_moves"), too_long());
    // 500,000 comments: refused at the 20,001st token.
    let status = import(&mut games, format!("1. e4 {}*", "{}".repeat(500_000)))
        .await
        .unwrap_err();
    assert_eq!(
        cap(&status, "limit_tokens"),
        ("PGN_TOO_LONG".to_owned(), Some("20000".to_owned()))
    );
    assert!(status.message().contains("at most 20000"), "{status:?}");

    // A game of exactly 2,000 moves, numbered, still imports.
    let mut pgn = String::new();
    for n in 0..500 {
        pgn.push_str(&format!("{}. Nf3 Nf6 {}. Ng1 Ng8 ", 2 * n + 1, 2 * n + 2));
    }
    pgn.push_str("1/2-1/2");
    let imported = import(&mut games, pgn).await.unwrap();
    assert_eq!(imported.game.unwrap().ply, 2_000);
    server.stop().await;
}

#[tokio::test]
async fn import_caps_are_configurable() {
    let server = TestServer::start_with_config(|config| arbiter::server::ServerConfig {
        import_max_moves: 4,
        import_max_tokens: 12,
        ..config
    })
    .await;
    let mut games = server.games().await;
    import(&mut games, "1. e4 e5 2. Nf3 Nc6 *".into())
        .await
        .unwrap();
    let status = import(&mut games, "1. e4 e5 2. Nf3 Nc6 3. Bb5 *".into())
        .await
        .unwrap_err();
    assert_eq!(
        cap(&status, "limit_moves"),
        ("PGN_TOO_LONG".to_owned(), Some("4".to_owned()))
    );
    let status = import(
        &mut games,
        "1. e4 {a} {b} {c} {d} {e} {f} {g} {h} {i} {j} *".into(),
    )
    .await
    .unwrap_err();
    assert_eq!(
        cap(&status, "limit_tokens"),
        ("PGN_TOO_LONG".to_owned(), Some("12".to_owned()))
    );
    server.stop().await;
}
