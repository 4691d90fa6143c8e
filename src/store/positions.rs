use sqlx::Row;

use super::{Page, Store, StoreError, now_millis};

/// A position to save (already validated and normalised by the caller).
#[derive(Clone, Debug)]
pub struct NewPosition {
    pub id: String,
    pub variant: String,
    pub fen: String,
    pub name: String,
    pub tags: Vec<String>,
    /// The SHA-256 of the owner's token.
    pub owner_token_hash: String,
}

/// A saved position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredPosition {
    pub seq: i64,
    pub id: String,
    pub variant: String,
    pub fen: String,
    pub name: String,
    pub tags: Vec<String>,
    pub created_at: i64,
    /// The SHA-256 of the owner's token (`None`: saved before positions had
    /// owners).
    pub owner_token_hash: Option<String>,
}

/// Which positions to list.
#[derive(Clone, Debug, Default)]
pub struct PositionFilter {
    pub variant: Option<String>,
    pub tag: Option<String>,
    /// Only positions older than this cursor.
    pub before: Option<i64>,
    pub limit: u32,
}

impl Store {
    /// Saves a position.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn insert_position(&self, new: NewPosition) -> Result<StoredPosition, StoreError> {
        let created_at = now_millis();
        let mut tx = self.writer.begin().await?;
        let seq: i64 = sqlx::query(
            "INSERT INTO positions (id, variant, fen, name, created_at, owner_token_hash) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq",
        )
        .bind(&new.id)
        .bind(&new.variant)
        .bind(&new.fen)
        .bind(&new.name)
        .bind(created_at)
        .bind(&new.owner_token_hash)
        .fetch_one(tx.conn())
        .await?
        .get(0);
        for tag in &new.tags {
            sqlx::query(
                "INSERT INTO position_tags (position_seq, tag) VALUES ($1, $2) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(seq)
            .bind(tag)
            .execute(tx.conn())
            .await?;
        }
        tx.commit().await?;
        Ok(StoredPosition {
            seq,
            id: new.id,
            variant: new.variant,
            fen: new.fen,
            name: new.name,
            tags: new.tags,
            created_at,
            owner_token_hash: Some(new.owner_token_hash),
        })
    }

    /// A saved position by id.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn position(&self, id: &str) -> Result<Option<StoredPosition>, StoreError> {
        let row = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {POSITION_COLUMNS} FROM positions p WHERE id = $2"
        )))
        .bind(TAG_SEPARATOR)
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(|r| position_from_row(&r)))
    }

    /// Saved positions, newest first.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn positions(
        &self,
        filter: PositionFilter,
    ) -> Result<Page<StoredPosition>, StoreError> {
        let limit = i64::from(filter.limit);
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {POSITION_COLUMNS} FROM positions p \
             WHERE ($2 IS NULL OR variant = $2) \
               AND ($3 IS NULL OR EXISTS (SELECT 1 FROM position_tags t \
                    WHERE t.position_seq = p.seq AND t.tag = $3)) \
               AND ($4 IS NULL OR seq < $4) \
             ORDER BY seq DESC LIMIT $5"
        )))
        .bind(TAG_SEPARATOR)
        .bind(filter.variant)
        .bind(filter.tag)
        .bind(filter.before)
        .bind(limit + 1)
        .fetch_all(&self.pool)
        .await?;
        let mut items: Vec<StoredPosition> = rows.iter().map(position_from_row).collect();
        let next = (items.len() as i64 > limit).then(|| {
            items.truncate(filter.limit as usize);
            items.last().map_or(0, |p| p.seq)
        });
        Ok(Page { items, next })
    }

    /// Deletes a saved position; false if there was none.
    ///
    /// # Errors
    ///
    /// Database failure.
    pub async fn delete_position(&self, id: &str) -> Result<bool, StoreError> {
        let mut tx = self.writer.begin().await?;
        let done = sqlx::query("DELETE FROM positions WHERE id = $1")
            .bind(id)
            .execute(tx.conn())
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected() > 0)
    }
}

/// A position's columns, its tags joined by `$1` ([`TAG_SEPARATOR`]) in
/// order.
const POSITION_COLUMNS: &str = "seq, id, variant, fen, name, created_at, \
     (SELECT string_agg(tag, $1 ORDER BY tag) FROM position_tags t WHERE t.position_seq = p.seq), \
     owner_token_hash";

/// Joins a position's tags in one column (tags never hold a line break).
const TAG_SEPARATOR: &str = "\n";

fn position_from_row(row: &sqlx::any::AnyRow) -> StoredPosition {
    let tags: Option<String> = row.get(6);
    StoredPosition {
        seq: row.get(0),
        id: row.get(1),
        variant: row.get(2),
        fen: row.get(3),
        name: row.get(4),
        created_at: row.get(5),
        owner_token_hash: row.get(7),
        tags: tags
            .map(|t| t.split(TAG_SEPARATOR).map(str::to_owned).collect())
            .unwrap_or_default(),
    }
}
