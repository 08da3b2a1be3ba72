//! A lakehouse's materialized lake view execution definitions (swagger lakehouse
//! `MaterializedLakeViews_*MlvExecutionDefinition*`). The definition itself is kept as the
//! JSON of its typed wire form (routes check it on the way in); it goes with its lakehouse.

use rusqlite::{Connection, OptionalExtension, params};

/// Migration step: the definitions, by lakehouse.
pub(crate) const MIGRATION: &str = r"
CREATE TABLE mlv_execution_definitions (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    item_id    TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    body       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX mlv_execution_definitions_item ON mlv_execution_definitions(item_id, seq);
";

/// One stored definition.
#[derive(Debug, Clone)]
pub(crate) struct StoredDefinition {
    pub seq: i64,
    pub id: String,
    /// The definition's JSON (its wire form without `id`).
    pub body: String,
}

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StoredDefinition> {
    Ok(StoredDefinition {
        seq: row.get(0)?,
        id: row.get(1)?,
        body: row.get(2)?,
    })
}

/// Stores a new definition of the lakehouse.
pub(crate) fn insert(
    conn: &Connection,
    item_id: &str,
    id: &str,
    body: &str,
    now: i64,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO mlv_execution_definitions (id, item_id, body, created_at)
         VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![id, item_id, body, now])?;
    Ok(())
}

/// The lakehouse's definition with this id.
pub(crate) fn get(
    conn: &Connection,
    item_id: &str,
    id: &str,
) -> rusqlite::Result<Option<StoredDefinition>> {
    conn.prepare_cached(
        "SELECT seq, id, body FROM mlv_execution_definitions WHERE item_id = ?1 AND id = ?2",
    )?
    .query_row(params![item_id, id], from_row)
    .optional()
}

/// A page of the lakehouse's definitions after `after_seq`, oldest first.
pub(crate) fn list(
    conn: &Connection,
    item_id: &str,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<StoredDefinition>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, id, body FROM mlv_execution_definitions
          WHERE item_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![item_id, after_seq, limit], from_row)?;
    rows.collect()
}

/// Replaces a definition's body.
pub(crate) fn update(conn: &Connection, id: &str, body: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE mlv_execution_definitions SET body = ?2 WHERE id = ?1")?
        .execute(params![id, body])?;
    Ok(())
}

/// Deletes the lakehouse's definition; false when it had none with this id.
pub(crate) fn delete(conn: &Connection, item_id: &str, id: &str) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached("DELETE FROM mlv_execution_definitions WHERE item_id = ?1 AND id = ?2")?
        .execute(params![item_id, id])?;
    Ok(changed > 0)
}
