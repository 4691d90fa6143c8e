//! Row locks a write transaction takes before it counts what a player
//! holds and adds to it.

use super::Backend;

/// Holds player `id`'s row until the transaction of `conn` ends (on
/// PostgreSQL; SQLite's write transaction holds the whole database): two
/// transactions counting what the player holds, then adding to it, take
/// turns, so neither passes the player's limit.
pub(super) async fn hold_player(
    conn: &mut sqlx::AnyConnection,
    backend: Backend,
    id: &str,
) -> Result<(), sqlx::Error> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT 1 FROM players WHERE id = $1 FOR UPDATE")
            .bind(id)
            .fetch_optional(conn)
            .await?;
    }
    Ok(())
}
