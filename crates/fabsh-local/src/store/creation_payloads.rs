//! The `creationPayload` an item was created with, kept because the service answers with what
//! it set: a warehouse's `collationType`, a KQL database's parent eventhouse and type.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// Migration step: the table of kept payloads.
pub(crate) const MIGRATION: &str = r"
CREATE TABLE item_creation_payloads (
    item_id TEXT PRIMARY KEY REFERENCES items(id) ON DELETE CASCADE,
    payload TEXT NOT NULL
) WITHOUT ROWID;
";

/// Keeps `payload` for the item.
pub(crate) fn insert(conn: &Connection, item_id: &str, payload: &Value) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO item_creation_payloads (item_id, payload) VALUES (?1, ?2)",
    )?
    .execute(params![item_id, payload.to_string()])?;
    Ok(())
}

/// The payload the item was created with, if it had one.
pub(crate) fn get(conn: &Connection, item_id: &str) -> rusqlite::Result<Option<Value>> {
    let text: Option<String> = conn
        .prepare_cached("SELECT payload FROM item_creation_payloads WHERE item_id = ?1")?
        .query_row([item_id], |row| row.get(0))
        .optional()?;
    // Written from a parsed JSON value by `insert`; anything else reads as no payload.
    Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
}
