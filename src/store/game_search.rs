//! ListGames' query: only the filters asked for, each served by an index
//! (`migrations/sqlite/0007_game_search.sql`, and its PostgreSQL
//! counterpart) in seq order, so a page stays cheap however many games
//! there are.
//!
//! The player filter is a case-insensitive substring search of either
//! display name. Case is folded here, in Unicode (`to_lowercase`, and a
//! final sigma as a sigma), for the names stored and for the search alike.
//! It takes two steps. The names that match are found first, in
//! `player_names`: each name once, through a trigram index (FTS5 on
//! SQLite for 3 or more characters, `pg_trgm` on PostgreSQL). Then, when
//! there are at most [`MAX_NAMES`], each name's games are read in seq order
//! (`game_player_names`), a page of each at most, and merged: a page costs
//! about the page times the names, and a time range reads no game out of it
//! on SQLite. Past that many names, the games are read in seq order and
//! each one's names checked: so many names match a large share of games.

use super::{
    Backend, GameFilter, Page, Store, StoreError, StoredGame,
    names::fold,
    rows::{GAME_COLUMNS, game_from_row},
    sql::Sql,
};

/// The shortest search the trigram index serves.
const TRIGRAM: usize = 3;

/// The most matching names whose games are read name by name.
const MAX_NAMES: usize = 64;

/// What drives a query: the index read in seq order.
#[derive(Clone, Copy, Debug)]
enum Driver<'a> {
    /// The games (or the index of another filter).
    Games,
    /// An opening's level, without a player or a position.
    Opening,
    /// A position reached, without a player.
    Position,
    /// One matching name's games.
    Name(i64),
    /// The games, each one's names checked against this folded search.
    Names(&'a str),
}

/// The condition that the folded name in `column` contains `search`.
fn push_name_match(query: &mut Sql, backend: Backend, column: &str, search: &str) {
    match backend {
        Backend::Sqlite => {
            query.push(format_args!("instr({column}, "));
            query.bind(search.to_owned()).push(") > 0");
        }
        Backend::Postgres => {
            // LIKE's own characters, escaped with its default `\`.
            let pattern = format!(
                "%{}%",
                search
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_")
            );
            query.push(format_args!("{column} LIKE ")).bind(pattern);
        }
    }
}

/// Appends the query for the ids of the names containing the folded
/// `search`, one more than [`MAX_NAMES`] at most.
fn push_names_query(query: &mut Sql, backend: Backend, search: &str) {
    if backend == Backend::Sqlite && search.chars().count() >= TRIGRAM {
        // One quoted phrase: the name as it is, operators and all.
        query
            .push("SELECT rowid FROM player_names_trigrams WHERE player_names_trigrams MATCH ")
            .bind(format!("\"{}\"", search.replace('"', "\"\"")));
    } else {
        query.push("SELECT id FROM player_names WHERE ");
        push_name_match(query, backend, "name", search);
    }
    query.push(format_args!(" LIMIT {}", MAX_NAMES + 1));
}

/// Appends the query for a page of the games `filter` selects, read
/// through `driver` (one game more than the page, to tell whether another
/// page follows).
fn push_query(query: &mut Sql, backend: Backend, filter: &GameFilter, driver: Driver) {
    let seq = match driver {
        Driver::Games | Driver::Names(_) => "games.seq",
        Driver::Opening => "game_openings.game_seq",
        Driver::Position => "game_positions.game_seq",
        Driver::Name(_) => "game_player_names.game_seq",
    };
    query.push(format_args!("SELECT {GAME_COLUMNS} FROM "));
    match driver {
        Driver::Games => {
            query.push("games WHERE TRUE");
        }
        Driver::Opening => {
            if let Some(opening) = &filter.opening {
                query
                    .push(format_args!(
                        "game_openings CROSS JOIN games WHERE games.seq = game_openings.game_seq \
                         AND game_openings.{} = ",
                        opening.level.column()
                    ))
                    .bind(opening.value.clone());
            }
        }
        Driver::Position => {
            if let Some(key) = filter.position {
                query
                    .push(
                        "game_positions CROSS JOIN games WHERE games.seq = game_positions.game_seq \
                         AND game_positions.position_key = ",
                    )
                    .bind(key);
            }
        }
        Driver::Name(id) => {
            // CROSS JOIN: SQLite keeps this order, so that no other
            // filter's index drives.
            query
                .push(
                    "game_player_names CROSS JOIN games \
                     WHERE games.seq = game_player_names.game_seq \
                     AND game_player_names.name_id = ",
                )
                .bind(id);
        }
        Driver::Names(search) => {
            query.push(
                "games WHERE EXISTS (SELECT 1 FROM game_player_names CROSS JOIN player_names \
                 WHERE game_player_names.game_seq = games.seq \
                 AND player_names.id = game_player_names.name_id AND ",
            );
            push_name_match(query, backend, "player_names.name", search);
            query.push(")");
        }
    }
    match filter.finished {
        Some(true) => {
            query.push(" AND status != 'ongoing'");
        }
        Some(false) => {
            query.push(" AND status = 'ongoing'");
        }
        None => {}
    }
    if let Some(variant) = &filter.variant {
        query
            .push(" AND variant = ")
            .bind(variant.name().to_owned());
    }
    if let Some(id) = &filter.player_id {
        // Each seat's index finds the player's games, however many others
        // there are.
        query
            .push(" AND games.seq IN (SELECT seq FROM games WHERE white_player = ")
            .bind(id.clone())
            .push(" UNION ALL SELECT seq FROM games WHERE black_player = ")
            .bind(id.clone())
            .push(")");
    }
    if let Some(termination) = &filter.termination {
        query.push(" AND termination = ").bind(termination.clone());
    }
    match filter.result {
        Some(Some(winner)) => {
            query
                .push(" AND status = 'decisive' AND winner = ")
                .bind(winner.name().to_owned());
        }
        Some(None) => {
            query.push(" AND status = 'drawn'");
        }
        None => {}
    }
    if let Some(rated) = filter.rated {
        query.push(" AND rated = ").bind(i64::from(rated));
    }
    if let (Some(key), false) = (filter.position, matches!(driver, Driver::Position)) {
        query
            .push(" AND games.seq IN (SELECT game_seq FROM game_positions WHERE position_key = ")
            .bind(key)
            .push(")");
    }
    if let (Some(opening), false) = (&filter.opening, matches!(driver, Driver::Opening)) {
        query
            .push(format_args!(
                " AND games.seq IN (SELECT game_seq FROM game_openings WHERE {} = ",
                opening.level.column()
            ))
            .bind(opening.value.clone())
            .push(")");
    }
    match backend {
        // Creation times follow seq (see the migration): a time range is the
        // range of seq between the first games created at or after each
        // bound, which the driving index then reads in order. The times are
        // compared too, but (`+`) never through an index of their own.
        Backend::Sqlite => {
            let first_created = |query: &mut Sql, at: i64| {
                query
                    .push("(SELECT seq FROM games WHERE created_at >= ")
                    .bind(at)
                    .push(" ORDER BY created_at, seq LIMIT 1)");
            };
            if let Some(from) = filter.created_from {
                query.push(" AND +created_at >= ").bind(from);
                query.push(format_args!(" AND {seq} >= "));
                first_created(query, from);
            }
            if let Some(until) = filter.created_until {
                query.push(" AND +created_at < ").bind(until);
                query.push(format_args!(" AND {seq} < coalesce("));
                first_created(query, until);
                query.push(format_args!(", {})", i64::MAX));
            }
        }
        // Several processes create games at once, each with its own clock:
        // seq order is not creation order, so the times are compared as
        // they are (`games_by_created` serves a narrow range).
        Backend::Postgres => {
            if let Some(from) = filter.created_from {
                query.push(" AND created_at >= ").bind(from);
            }
            if let Some(until) = filter.created_until {
                query.push(" AND created_at < ").bind(until);
            }
        }
    }
    let (past, order) = order(filter);
    if let Some(cursor) = filter.cursor {
        query.push(format_args!(" AND {seq} {past} ")).bind(cursor);
    }
    query
        .push(format_args!(" ORDER BY {seq} {order} LIMIT "))
        .bind(i64::from(filter.limit) + 1);
}

/// The comparison that keeps the games past a cursor, and the order.
fn order(filter: &GameFilter) -> (&'static str, &'static str) {
    if filter.oldest_first {
        (">", "ASC")
    } else {
        ("<", "DESC")
    }
}

/// Appends the query for a page of the games of any of `names`: each
/// name's page, merged (a game of two of them once).
fn push_names_page(query: &mut Sql, backend: Backend, filter: &GameFilter, names: &[i64]) {
    for (i, &name) in names.iter().enumerate() {
        if i > 0 {
            query.push(" UNION ");
        }
        query.push("SELECT * FROM (");
        push_query(query, backend, filter, Driver::Name(name));
        query.push(format_args!(") AS name{i}"));
    }
    let (_, order) = order(filter);
    query
        .push(format_args!(" ORDER BY seq {order} LIMIT "))
        .bind(i64::from(filter.limit) + 1);
}

impl Store {
    /// Games without their moves, newest first (or oldest).
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn games(&self, filter: GameFilter) -> Result<Page<StoredGame>, StoreError> {
        let mut query = Sql::default();
        match filter.player.as_deref().map(fold) {
            Some(search) => {
                let mut names = Sql::default();
                push_names_query(&mut names, self.backend, &search);
                let names: Vec<i64> = names
                    .build()
                    .fetch_all(&self.pool)
                    .await?
                    .iter()
                    .map(|row| sqlx::Row::get(row, 0))
                    .collect();
                match names.len() {
                    0 => {
                        return Ok(Page {
                            items: Vec::new(),
                            next: None,
                        });
                    }
                    1..=MAX_NAMES => push_names_page(&mut query, self.backend, &filter, &names),
                    _ => push_query(&mut query, self.backend, &filter, Driver::Names(&search)),
                }
            }
            None if filter.position.is_some() => {
                push_query(&mut query, self.backend, &filter, Driver::Position);
            }
            None if filter.opening.is_some() => {
                push_query(&mut query, self.backend, &filter, Driver::Opening);
            }
            None => push_query(&mut query, self.backend, &filter, Driver::Games),
        }
        let rows = query.build().fetch_all(&self.pool).await?;
        let mut items = rows
            .iter()
            .map(game_from_row)
            .collect::<Result<Vec<StoredGame>, _>>()?;
        let next = (items.len() > filter.limit as usize).then(|| {
            items.truncate(filter.limit as usize);
            items.last().map_or(0, |g| g.seq)
        });
        Ok(Page { items, next })
    }
}

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::*;
    use crate::rules::Variant;

    #[test]
    fn folds_unicode_case() {
        assert_eq!(fold("Élodie"), "élodie");
        assert_eq!(fold("ÉLODIE"), fold("élodie"));
        assert_eq!(fold("ΟΔΥΣΣΕΥΣ"), "οδυσσευσ");
        assert_eq!(fold("Straße"), "straße");
    }

    /// SQLite's plan for `filter`, one step a line.
    async fn plan(store: &Store, filter: &GameFilter) -> String {
        let mut query = Sql::default();
        query.push("EXPLAIN QUERY PLAN ");
        let driver = match (&filter.player, filter.position, &filter.opening) {
            (Some(search), ..) if search.chars().count() < TRIGRAM => Driver::Names(search),
            (Some(_), ..) => Driver::Name(1),
            (None, Some(_), _) => Driver::Position,
            (None, None, Some(_)) => Driver::Opening,
            (None, None, None) => Driver::Games,
        };
        push_query(&mut query, Backend::Sqlite, filter, driver);
        let rows = query.build().fetch_all(&store.pool).await.unwrap();
        rows.iter()
            .map(|row| row.get::<String, _>(3))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[tokio::test]
    async fn every_filter_reads_an_index_in_seq_order() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        let page = GameFilter {
            limit: 50,
            cursor: Some(1_000),
            ..GameFilter::default()
        };
        let cases = [
            (
                GameFilter { ..page.clone() },
                "SEARCH games USING INTEGER PRIMARY KEY",
            ),
            (
                GameFilter {
                    finished: Some(true),
                    ..page.clone()
                },
                "USING INDEX games_finished",
            ),
            (
                GameFilter {
                    finished: Some(false),
                    ..page.clone()
                },
                "USING INDEX games_by_status",
            ),
            (
                GameFilter {
                    variant: Some(Variant::Chess),
                    ..page.clone()
                },
                "USING INDEX games_by_variant",
            ),
            (
                GameFilter {
                    termination: Some("checkmate".into()),
                    ..page.clone()
                },
                "USING INDEX games_by_termination",
            ),
            (
                GameFilter {
                    player: Some("Élodie".into()),
                    finished: Some(true),
                    ..page.clone()
                },
                "SEARCH game_player_names USING PRIMARY KEY (name_id=? AND game_seq<?)",
            ),
            (
                GameFilter {
                    created_from: Some(5),
                    created_until: Some(9),
                    ..page.clone()
                },
                "SEARCH games USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
            ),
            (
                GameFilter {
                    created_until: Some(9),
                    variant: Some(Variant::Xiangqi),
                    ..page.clone()
                },
                "USING INDEX games_by_variant (variant=? AND seq<?)",
            ),
            (
                GameFilter {
                    player: Some("Élodie".into()),
                    created_from: Some(5),
                    created_until: Some(9),
                    ..page.clone()
                },
                "SEARCH game_player_names USING PRIMARY KEY (name_id=? AND game_seq>? AND game_seq<?)",
            ),
            (
                GameFilter {
                    position: Some(-42),
                    finished: Some(true),
                    ..page.clone()
                },
                "SEARCH game_positions USING PRIMARY KEY (position_key=? AND game_seq<?)",
            ),
            (
                GameFilter {
                    player: Some("Él".into()),
                    ..page.clone()
                },
                "SEARCH game_player_names USING COVERING INDEX game_player_names_by_game (game_seq=?)",
            ),
        ];
        for (filter, step) in cases {
            let plan = plan(&store, &filter).await;
            assert!(plan.contains(step), "{filter:?}:\n{plan}");
            assert!(!plan.contains("TEMP B-TREE"), "{filter:?} sorts:\n{plan}");
            assert!(
                !plan.starts_with("SCAN games\n") && plan != "SCAN games",
                "{filter:?} scans:\n{plan}"
            );
        }
    }

    #[tokio::test]
    async fn games_from_before_the_search_table_are_indexed_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("a.db").display());
        let store = Store::connect(&url).await.unwrap();
        // A game written as the old schema did: no game_players row.
        sqlx::query(
            "INSERT INTO games (id, variant, start_fen, white_name, black_name, \
             white_token_hash, black_token_hash, status, created_at, updated_at) \
             VALUES ('old', 'chess', '', 'ÉLODIE', 'Bob', 'w', 'b', 'ongoing', 0, 0)",
        )
        .execute(&store.writer.pool)
        .await
        .unwrap();
        let find = |store: Store| async move {
            let filter = GameFilter {
                player: Some("élodie".into()),
                limit: 10,
                ..GameFilter::default()
            };
            let page = store.games(filter).await.unwrap();
            page.items.iter().map(|g| g.id.clone()).collect::<Vec<_>>()
        };
        assert!(find(store.clone()).await.is_empty());
        store.close().await;
        let store = Store::connect(&url).await.unwrap();
        assert_eq!(find(store.clone()).await, ["old"]);
        store.close().await;
    }

    /// Games whose players are named `white(i)` and "Bob", written as the
    /// old schema did, then indexed when the store opens again.
    async fn named_games(
        count: usize,
        white: impl Fn(usize) -> String,
    ) -> (Store, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("a.db").display());
        let store = Store::connect(&url).await.unwrap();
        for i in 0..count {
            sqlx::query(
                "INSERT INTO games (id, variant, start_fen, white_name, black_name, \
                 white_token_hash, black_token_hash, status, created_at, updated_at) \
                 VALUES (?, 'chess', '', ?, 'Bob', 'w', 'b', 'ongoing', 0, 0)",
            )
            .bind(format!("g{i}"))
            .bind(white(i))
            .execute(&store.writer.pool)
            .await
            .unwrap();
        }
        store.close().await;
        (Store::connect(&url).await.unwrap(), dir)
    }

    /// Every game of a search, page after page.
    async fn found(store: &Store, search: &str, limit: u32) -> Vec<String> {
        let mut filter = GameFilter {
            player: Some(search.into()),
            limit,
            ..GameFilter::default()
        };
        let mut ids = Vec::new();
        loop {
            let page = store.games(filter.clone()).await.unwrap();
            ids.extend(page.items.into_iter().map(|g| g.id));
            match page.next {
                Some(next) => filter.cursor = Some(next),
                None => return ids,
            }
        }
    }

    #[tokio::test]
    async fn a_search_merges_the_games_of_every_name_that_matches() {
        let (store, _dir) = named_games(200, |i| format!("Player{}", i % 70)).await;
        let newest_first = |keep: &dyn Fn(usize) -> bool| {
            (0..200)
                .rev()
                .filter(|&i| keep(i))
                .map(|i| format!("g{i}"))
                .collect::<Vec<_>>()
        };
        // 11 names (player1, player10-19), each name's games read in turn.
        let one = newest_first(&|i| i % 70 == 1 || (10..20).contains(&(i % 70)));
        assert_eq!(found(&store, "PLAYER1", 7).await, one);
        // 70 names: more than are read one by one.
        assert_eq!(found(&store, "player", 9).await, newest_first(&|_| true));
        assert_eq!(found(&store, "b", 50).await, newest_first(&|_| true));
        assert!(found(&store, "nobody", 5).await.is_empty());
        store.close().await;
        // Both seats match: each game once.
        let (store, _dir) = named_games(30, |i| format!("Bobby{}", i % 3)).await;
        let all: Vec<_> = (0..30).rev().map(|i| format!("g{i}")).collect();
        assert_eq!(found(&store, "bob", 4).await, all);
        store.close().await;
    }

    #[tokio::test]
    async fn a_name_no_game_has_is_forgotten() {
        let (store, _dir) = named_games(2, |i| format!("Ann{i}")).await;
        let mut tx = store.writer.begin().await.unwrap();
        let seq: i64 = sqlx::query_scalar("SELECT seq FROM games WHERE id = 'g0'")
            .fetch_one(tx.conn())
            .await
            .unwrap();
        super::super::names::reindex_players(tx.conn(), seq, "Player", "Bob")
            .await
            .unwrap();
        tx.commit().await.unwrap();
        let names: Vec<String> = sqlx::query_scalar("SELECT name FROM player_names ORDER BY name")
            .fetch_all(&store.pool)
            .await
            .unwrap();
        assert_eq!(names, ["ann1", "bob", "player"]);
        assert!(found(&store, "ann0", 5).await.is_empty());
        assert_eq!(found(&store, "PLAY", 5).await, ["g0"]);
        store.close().await;
    }

    #[tokio::test]
    async fn creation_times_never_go_backwards() {
        let store = Store::connect("sqlite::memory:").await.unwrap();
        for (id, created_at) in [("a", 1_000), ("b", 900), ("c", 1_100)] {
            sqlx::query(
                "INSERT INTO games (id, variant, start_fen, white_name, black_name, \
                 white_token_hash, black_token_hash, status, created_at, updated_at) \
                 VALUES (?, 'chess', '', 'W', 'B', 'w', 'b', 'ongoing', ?, 0)",
            )
            .bind(id)
            .bind(created_at)
            .execute(&store.writer.pool)
            .await
            .unwrap();
        }
        let times: Vec<i64> = sqlx::query("SELECT created_at FROM games ORDER BY seq")
            .fetch_all(&store.pool)
            .await
            .unwrap()
            .iter()
            .map(|row| row.get(0))
            .collect();
        assert_eq!(times, [1_000, 1_000, 1_100]);
        // So a time range is exact: "b" counts as created at 1,000.
        let range = |from, until| GameFilter {
            created_from: Some(from),
            created_until: Some(until),
            limit: 10,
            ..GameFilter::default()
        };
        let ids = |page: Page<StoredGame>| page.items.into_iter().map(|g| g.id).collect::<Vec<_>>();
        assert_eq!(
            ids(store.games(range(1_000, 1_100)).await.unwrap()),
            ["b", "a"]
        );
        assert_eq!(ids(store.games(range(1_001, 2_000)).await.unwrap()), ["c"]);
        assert!(ids(store.games(range(2_000, 3_000)).await.unwrap()).is_empty());
    }
}
