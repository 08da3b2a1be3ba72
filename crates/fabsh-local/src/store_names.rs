//! Workspace and item names straight from a store, read-only, for shell completion with
//! `--local`: a Tab must not start a server (nor seed a store), and a server running on the
//! store keeps writing while this reads (SQLite's write-ahead log lets both). A store that is
//! missing, unreadable or readable by other users gives no names.

use crate::store::DB_FILE;
use rusqlite::{Connection, OpenFlags, OptionalExtension};
use std::path::Path;

/// One item's display name and type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemName {
    pub name: String,
    pub item_type: String,
}

fn open(data_dir: &Path) -> Option<Connection> {
    if !is_private(data_dir) {
        return None;
    }
    let conn = Connection::open_with_flags(
        data_dir.join(DB_FILE),
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .ok()?;
    conn.busy_timeout(std::time::Duration::from_millis(200))
        .ok()?;
    Some(conn)
}

/// The rule the store itself is opened by (see [`crate::private_files`]), checked without
/// changing anything.
#[cfg(unix)]
fn is_private(data_dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    [data_dir.to_path_buf(), data_dir.join(DB_FILE)]
        .iter()
        .all(|path| {
            std::fs::metadata(path).is_ok_and(|meta| meta.permissions().mode() & 0o077 == 0)
        })
}

#[cfg(not(unix))]
fn is_private(data_dir: &Path) -> bool {
    data_dir.join(DB_FILE).is_file()
}

/// Every workspace's display name.
pub fn workspaces(data_dir: &Path) -> Vec<String> {
    let Some(conn) = open(data_dir) else {
        return Vec::new();
    };
    let names = conn
        .prepare("SELECT display_name FROM workspaces ORDER BY display_name")
        .and_then(|mut statement| {
            statement
                .query_map([], |row| row.get(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        });
    // Completion from a store that cannot be read offers no names; it never fails.
    names.unwrap_or_default()
}

/// The items of the workspace `workspace` names or identifies (any case).
pub fn items(data_dir: &Path, workspace: &str) -> Vec<ItemName> {
    let Some(conn) = open(data_dir) else {
        return Vec::new();
    };
    let found = (|| -> rusqlite::Result<Vec<ItemName>> {
        let Some(id) = conn
            .query_row(
                "SELECT id FROM workspaces WHERE id = ?1 COLLATE NOCASE OR display_name = ?1 COLLATE NOCASE",
                [workspace],
                |row| row.get::<_, String>(0),
            )
            .optional()?
        else {
            return Ok(Vec::new());
        };
        let mut statement = conn.prepare(
            "SELECT display_name, type FROM items WHERE workspace_id = ?1 ORDER BY display_name",
        )?;
        statement
            .query_map([id], |row| {
                Ok(ItemName {
                    name: row.get(0)?,
                    item_type: row.get(1)?,
                })
            })?
            .collect()
    })();
    // Completion from a store that cannot be read offers no names; it never fails.
    found.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_a_seeded_store_and_nothing_from_a_missing_one() {
        let dir = tempfile::tempdir().expect("dir");
        let data_dir = dir.path().join("store");
        assert!(workspaces(&data_dir).is_empty());
        crate::admin::open_store(&data_dir).expect("seeded store");
        assert!(workspaces(&data_dir).contains(&"Demo".to_string()));
        let items = items(&data_dir, "demo");
        assert!(items.contains(&ItemName {
            name: "Welcome".into(),
            item_type: "Notebook".into()
        }));
    }
}
