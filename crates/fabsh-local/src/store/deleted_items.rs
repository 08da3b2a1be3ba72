//! Items deleted softly: their rows stay, marked with when they were deleted, for the lists
//! of what can still be restored (a SQL database's restorable deleted databases).

use super::items::FolderScope;
use rusqlite::{Connection, params};

/// A softly deleted item: what a restore list names it by and when.
pub(crate) struct DeletedItem {
    /// Its id.
    pub(crate) id: String,
    /// Its display name when deleted.
    pub(crate) display_name: String,
    /// When it was made (Unix nanoseconds).
    pub(crate) created_at: i64,
    /// When it was deleted (Unix nanoseconds).
    pub(crate) deleted_at: i64,
}

/// The workspace's softly deleted items of a type within `scope`, the latest deleted first.
pub(crate) fn of_type(
    conn: &Connection,
    workspace_id: &str,
    item_type: &str,
    scope: &FolderScope,
) -> rusqlite::Result<Vec<DeletedItem>> {
    let mut sql = String::from(
        "SELECT id, display_name, created_at, deleted_at FROM items
          WHERE workspace_id = ?1 AND type = ?2 AND deleted_at IS NOT NULL",
    );
    let (condition, folder) = scope.item_condition(3);
    sql.push_str(&condition);
    sql.push_str(" ORDER BY deleted_at DESC, seq DESC");
    let mut stmt = conn.prepare(&sql)?;
    let read = |row: &rusqlite::Row<'_>| {
        Ok(DeletedItem {
            id: row.get(0)?,
            display_name: row.get(1)?,
            created_at: row.get(2)?,
            deleted_at: row.get(3)?,
        })
    };
    match folder {
        Some(folder) => stmt
            .query_map(params![workspace_id, item_type, folder], read)?
            .collect(),
        None => stmt
            .query_map(params![workspace_id, item_type], read)?
            .collect(),
    }
}
