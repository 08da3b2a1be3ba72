//! Workspace folders (a tree per workspace).

use super::items::FolderScope;
use fabsh_model::wire;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Map;

/// A folder row.
#[derive(Debug, Clone)]
pub(crate) struct Folder {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// GUID.
    pub id: String,
    /// Owning workspace.
    pub workspace_id: String,
    /// Parent folder; `None` at the root.
    pub parent_id: Option<String>,
    /// Name, unique among siblings (case-insensitive).
    pub display_name: String,
}

impl Folder {
    /// The Folder object as Fabric returns it; `parentFolderId` absent at the root.
    pub(crate) fn to_wire(&self) -> wire::Folder {
        wire::Folder {
            id: self.id.clone(),
            display_name: self.display_name.clone(),
            workspace_id: self.workspace_id.clone(),
            parent_folder_id: self.parent_id.clone(),
            extra: Map::new(),
        }
    }
}

const COLUMNS: &str = "seq, id, workspace_id, parent_id, display_name";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Folder> {
    Ok(Folder {
        seq: row.get(0)?,
        id: row.get(1)?,
        workspace_id: row.get(2)?,
        parent_id: row.get(3)?,
        display_name: row.get(4)?,
    })
}

/// Inserts a folder.
pub(crate) fn insert(conn: &Connection, folder: &Folder, now: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO folders (id, workspace_id, parent_id, display_name, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            folder.id,
            folder.workspace_id,
            folder.parent_id,
            folder.display_name,
            now
        ],
    )?;
    Ok(())
}

/// The folder with this id in the workspace.
pub(crate) fn get(
    conn: &Connection,
    workspace_id: &str,
    id: &str,
) -> rusqlite::Result<Option<Folder>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM folders WHERE id = ?1 AND workspace_id = ?2"
    ))?
    .query_row([id, workspace_id], from_row)
    .optional()
}

/// Whether a sibling (same parent) other than `except_id` already has the name.
pub(crate) fn name_taken(
    conn: &Connection,
    workspace_id: &str,
    parent_id: Option<&str>,
    name: &str,
    except_id: &str,
) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM folders
          WHERE workspace_id = ?1 AND coalesce(parent_id, '') = coalesce(?2, '')
            AND display_name = ?3 COLLATE NOCASE AND id <> ?4)",
    )?
    .query_row(params![workspace_id, parent_id, name, except_id], |r| {
        r.get(0)
    })
}

/// The child of `parent_id` (`None` = the root) with this name (case-insensitive).
pub(crate) fn find_child(
    conn: &Connection,
    workspace_id: &str,
    parent_id: Option<&str>,
    name: &str,
) -> rusqlite::Result<Option<Folder>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM folders
          WHERE workspace_id = ?1 AND coalesce(parent_id, '') = coalesce(?2, '')
            AND display_name = ?3 COLLATE NOCASE"
    ))?
    .query_row(params![workspace_id, parent_id, name], from_row)
    .optional()
}

/// Depth of a folder: 1 for a folder at the workspace root.
pub(crate) fn depth(conn: &Connection, id: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "WITH RECURSIVE up(id, parent_id, depth) AS (
            SELECT id, parent_id, 1 FROM folders WHERE id = ?1
            UNION ALL
            SELECT f.id, f.parent_id, up.depth + 1 FROM folders f JOIN up ON f.id = up.parent_id)
         SELECT coalesce(max(depth), 0) FROM up",
    )?
    .query_row([id], |r| r.get(0))
}

/// Levels in the subtree rooted at the folder, counting the folder itself.
pub(crate) fn height(conn: &Connection, id: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "WITH RECURSIVE down(id, level) AS (
            SELECT ?1, 1
            UNION ALL
            SELECT f.id, down.level + 1 FROM folders f JOIN down ON f.parent_id = down.id)
         SELECT max(level) FROM down",
    )?
    .query_row([id], |r| r.get(0))
}

/// Whether `candidate` is `ancestor` or lies below it.
pub(crate) fn in_subtree(
    conn: &Connection,
    ancestor: &str,
    candidate: &str,
) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "WITH RECURSIVE down(id) AS (
            SELECT ?1
            UNION ALL
            SELECT f.id FROM folders f JOIN down ON f.parent_id = down.id)
         SELECT EXISTS(SELECT 1 FROM down WHERE id = ?2)",
    )?
    .query_row([ancestor, candidate], |r| r.get(0))
}

/// Whether the folder has sub-folders.
pub(crate) fn has_subfolders(conn: &Connection, id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS(SELECT 1 FROM folders WHERE parent_id = ?1)")?
        .query_row([id], |r| r.get(0))
}

/// A page of folders after `after_seq`, in creation order. `Subtree(f)` lists what is below
/// `f`, not `f` itself.
pub(crate) fn list(
    conn: &Connection,
    workspace_id: &str,
    scope: &FolderScope,
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<Folder>> {
    let mut sql = format!("SELECT {COLUMNS} FROM folders WHERE workspace_id = ?1 AND seq > ?2");
    let root = match scope {
        FolderScope::All => None,
        FolderScope::RootOnly => {
            sql.push_str(" AND parent_id IS NULL");
            None
        }
        FolderScope::Direct(id) => {
            sql.push_str(" AND parent_id = ?3");
            Some(id.as_str())
        }
        FolderScope::Subtree(id) => {
            sql.push_str(
                " AND id IN (WITH RECURSIVE down(id) AS
                    (SELECT id FROM folders WHERE parent_id = ?3
                     UNION ALL SELECT f.id FROM folders f JOIN down ON f.parent_id = down.id)
                  SELECT id FROM down)",
            );
            Some(id.as_str())
        }
    };
    sql.push_str(" ORDER BY seq LIMIT ?4");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params![workspace_id, after_seq, root, limit], from_row)?;
    rows.collect()
}

/// Renames a folder.
pub(crate) fn rename(conn: &Connection, id: &str, name: &str) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE folders SET display_name = ?2 WHERE id = ?1",
        [id, name],
    )?;
    Ok(())
}

/// Moves a folder under another (`None` = root).
pub(crate) fn set_parent(
    conn: &Connection,
    id: &str,
    parent_id: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE folders SET parent_id = ?2 WHERE id = ?1",
        params![id, parent_id],
    )?;
    Ok(())
}

/// Deletes an (empty) folder.
pub(crate) fn delete(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM folders WHERE id = ?1", [id])?;
    Ok(())
}
