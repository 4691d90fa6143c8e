//! ListGames' query: only the filters asked for, each served by an index
//! (`migrations/sqlite/0007_game_search.sql`, and its PostgreSQL
//! counterpart) in seq order, so a page stays cheap however many games
//! there are.
//!
//! The player filter is a case-insensitive substring search of either
//! display name. Case is folded here, in Unicode (`to_lowercase`, and a
//! final sigma as a sigma), for the names stored in `game_names` and for the
//! search alike. On SQLite, a search of 3 or more characters goes through an
//! FTS5 trigram index; a shorter one (which matches a large share of all
//! names) reads the folded names newest first, so it is quick when it
//! matches and reads every name (a compact table) when it matches none. On
//! PostgreSQL, `LIKE` goes through `pg_trgm` indexes of the names.

use super::{
    Backend, GameFilter, Page, Store, StoreError, StoredGame,
    names::fold,
    rows::{GAME_COLUMNS, game_from_row},
    sql::Sql,
};

/// The shortest search the trigram index serves.
const TRIGRAM: usize = 3;

/// Appends the ListGames query for `filter` on `backend` (fetching one
/// game more than the page, to tell whether another page follows).
fn push_query(query: &mut Sql, backend: Backend, filter: &GameFilter) {
    // With a player, the names drive (in seq order too) and the games are
    // looked up for the names that match; else an opening's level does.
    let player = filter.player.as_deref().map(fold);
    let names_drive = player.is_some();
    let trigrams = backend == Backend::Sqlite
        && player
            .as_ref()
            .is_some_and(|name| name.chars().count() >= TRIGRAM);
    let seq = match (&player, &filter.opening) {
        (Some(_), _) if trigrams => "game_names_trigrams.rowid",
        (Some(_), _) => "game_names.game_seq",
        (None, Some(_)) => "game_openings.game_seq",
        (None, None) => "games.seq",
    };
    query.push(format_args!("SELECT {GAME_COLUMNS} FROM "));
    match player {
        Some(name) if trigrams => {
            // CROSS JOIN: SQLite keeps this order, so that no other
            // filter's index drives with a trigram search for each game.
            query.push(
                "game_names_trigrams CROSS JOIN games ON games.seq = game_names_trigrams.rowid \
                 WHERE game_names_trigrams MATCH ",
            );
            // One quoted phrase: the name as it is, operators and all.
            query.bind(format!("\"{}\"", name.replace('"', "\"\"")));
        }
        Some(name) => {
            query.push("game_names CROSS JOIN games WHERE games.seq = game_names.game_seq AND ");
            match backend {
                Backend::Sqlite => {
                    query.push("(instr(game_names.white, ").bind(name.clone());
                    query.push(") > 0 OR instr(game_names.black, ").bind(name);
                    query.push(") > 0)");
                }
                Backend::Postgres => {
                    // LIKE's own characters, escaped with its default `\`.
                    let pattern = format!(
                        "%{}%",
                        name.replace('\\', "\\\\")
                            .replace('%', "\\%")
                            .replace('_', "\\_")
                    );
                    query.push("(game_names.white LIKE ").bind(pattern.clone());
                    query.push(" OR game_names.black LIKE ").bind(pattern);
                    query.push(")");
                }
            }
        }
        // Without a player, the opening's level drives, in seq order.
        None => match &filter.opening {
            Some(opening) => {
                query
                    .push(format_args!(
                        "game_openings CROSS JOIN games WHERE games.seq = game_openings.game_seq \
                         AND game_openings.{} = ",
                        opening.level.column()
                    ))
                    .bind(opening.value.clone());
            }
            None => {
                query.push("games WHERE TRUE");
            }
        },
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
    if let (Some(opening), true) = (&filter.opening, names_drive) {
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
    let (past, order) = if filter.oldest_first {
        (">", "ASC")
    } else {
        ("<", "DESC")
    };
    if let Some(cursor) = filter.cursor {
        query.push(format_args!(" AND {seq} {past} ")).bind(cursor);
    }
    query
        .push(format_args!(" ORDER BY {seq} {order} LIMIT "))
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
        push_query(&mut query, self.backend, &filter);
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
        push_query(&mut query, Backend::Sqlite, filter);
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
                "SCAN game_names_trigrams VIRTUAL TABLE INDEX",
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
                    player: Some("Él".into()),
                    ..page.clone()
                },
                "SEARCH game_names USING INTEGER PRIMARY KEY",
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
