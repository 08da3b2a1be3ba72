//! OneLake shortcuts of an item (a lakehouse's `Files/...` or `Tables/...` entries pointing
//! elsewhere): `{path, name, target}` as the swagger's `Shortcut`.

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

/// Migration step: the table of shortcuts, unique per item, path and name (case-blind).
pub(crate) const MIGRATION: &str = r"
CREATE TABLE shortcuts (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    item_id TEXT NOT NULL REFERENCES items(id) ON DELETE CASCADE,
    path    TEXT NOT NULL,
    name    TEXT NOT NULL,
    target  TEXT NOT NULL
);
CREATE UNIQUE INDEX shortcuts_key ON shortcuts(item_id, path COLLATE NOCASE, name COLLATE NOCASE);
";

/// One stored shortcut.
#[derive(Debug, Clone)]
pub(crate) struct Shortcut {
    pub seq: i64,
    pub path: String,
    pub name: String,
    /// The wire `target` object (`{type, <kind>: {...}}`).
    pub target: Value,
}

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Shortcut> {
    let target: String = row.get(3)?;
    Ok(Shortcut {
        seq: row.get(0)?,
        path: row.get(1)?,
        name: row.get(2)?,
        // Written from a JSON value by `put`.
        target: serde_json::from_str(&target).unwrap_or(Value::Null),
    })
}

/// The shortcut at `path`/`name` of the item, if any.
pub(crate) fn get(
    conn: &Connection,
    item_id: &str,
    path: &str,
    name: &str,
) -> rusqlite::Result<Option<Shortcut>> {
    conn.prepare_cached(
        "SELECT seq, path, name, target FROM shortcuts
          WHERE item_id = ?1 AND path = ?2 COLLATE NOCASE AND name = ?3 COLLATE NOCASE",
    )?
    .query_row(params![item_id, path, name], from_row)
    .optional()
}

/// Creates the shortcut, or replaces the one at the same path and name.
pub(crate) fn put(
    conn: &Connection,
    item_id: &str,
    path: &str,
    name: &str,
    target: &Value,
) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "INSERT INTO shortcuts (item_id, path, name, target) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (item_id, path COLLATE NOCASE, name COLLATE NOCASE)
         DO UPDATE SET target = excluded.target",
    )?
    .execute(params![item_id, path, name, target.to_string()])?;
    Ok(())
}

/// Deletes the shortcut; false when there was none.
pub(crate) fn delete(
    conn: &Connection,
    item_id: &str,
    path: &str,
    name: &str,
) -> rusqlite::Result<bool> {
    let changed = conn
        .prepare_cached(
            "DELETE FROM shortcuts
              WHERE item_id = ?1 AND path = ?2 COLLATE NOCASE AND name = ?3 COLLATE NOCASE",
        )?
        .execute(params![item_id, path, name])?;
    Ok(changed > 0)
}

/// The item's shortcuts after `after_seq`, under `parent` (that path or below) when given.
pub(crate) fn list(
    conn: &Connection,
    item_id: &str,
    parent: Option<&str>,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Shortcut>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, path, name, target FROM shortcuts
          WHERE item_id = ?1 AND seq > ?2
            AND (?3 IS NULL OR path = ?3 COLLATE NOCASE
                 OR lower(substr(path, 1, length(?3) + 1)) = lower(?3 || '/'))
          ORDER BY seq LIMIT ?4",
    )?;
    let rows = stmt.query_map(params![item_id, after_seq, parent, limit], from_row)?;
    rows.collect()
}
