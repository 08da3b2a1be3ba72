//! Workspaces.

use super::principals::Role;
use rusqlite::{Connection, OptionalExtension, params};

/// A workspace row.
#[derive(Debug, Clone)]
pub(crate) struct Workspace {
    /// Creation sequence, the paging key.
    pub seq: i64,
    /// GUID.
    pub id: String,
    /// Unique (case-insensitive) name.
    pub display_name: String,
    /// Description, `""` when none.
    pub description: String,
    /// Capacity id given at creation, if any.
    pub capacity_id: Option<String>,
}

const COLUMNS: &str = "w.seq, w.id, w.display_name, w.description, w.capacity_id";

fn from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Workspace> {
    Ok(Workspace {
        seq: row.get(0)?,
        id: row.get(1)?,
        display_name: row.get(2)?,
        description: row.get(3)?,
        capacity_id: row.get(4)?,
    })
}

/// Inserts a workspace.
pub(crate) fn insert(conn: &Connection, ws: &Workspace, now: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO workspaces (id, display_name, description, capacity_id, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![ws.id, ws.display_name, ws.description, ws.capacity_id, now],
    )?;
    Ok(())
}

/// The workspace with this id.
pub(crate) fn get(conn: &Connection, id: &str) -> rusqlite::Result<Option<Workspace>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM workspaces w WHERE w.id = ?1"
    ))?
    .query_row([id], from_row)
    .optional()
}

/// The workspace with this id, or else this name (case-insensitive).
pub(crate) fn find(conn: &Connection, id_or_name: &str) -> rusqlite::Result<Option<Workspace>> {
    conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM workspaces w
          WHERE w.id = lower(?1) OR w.display_name = ?1 COLLATE NOCASE
          ORDER BY w.id = lower(?1) DESC LIMIT 1"
    ))?
    .query_row([id_or_name], from_row)
    .optional()
}

/// The id of another workspace with this name, if any.
pub(crate) fn name_taken(conn: &Connection, name: &str, except_id: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS(SELECT 1 FROM workspaces
                        WHERE display_name = ?1 COLLATE NOCASE AND id <> ?2)",
    )?
    .query_row([name, except_id], |r| r.get(0))
}

/// A page of the workspaces where the principal holds one of `roles` (all roles when empty).
pub(crate) fn list_for(
    conn: &Connection,
    principal_id: &str,
    roles: &[Role],
    after_seq: i64,
    limit: i64,
) -> rusqlite::Result<Vec<(Workspace, String)>> {
    // Typed roles render only their fixed names, so inlining them into the SQL is safe.
    let role_filter = if roles.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = roles.iter().map(|r| format!("'{}'", r.as_str())).collect();
        format!(" AND ra.role IN ({})", quoted.join(","))
    };
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS}, ra.role FROM role_assignments ra
           JOIN workspaces w ON w.id = ra.workspace_id
          WHERE ra.principal_id = ?1 AND w.seq > ?2{role_filter}
          ORDER BY w.seq LIMIT ?3"
    ))?;
    let rows = stmt.query_map(params![principal_id, after_seq, limit], |row| {
        Ok((from_row(row)?, row.get(5)?))
    })?;
    rows.collect()
}

/// Updates name and description.
pub(crate) fn update(conn: &Connection, ws: &Workspace) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE workspaces SET display_name = ?2, description = ?3 WHERE id = ?1",
        params![ws.id, ws.display_name, ws.description],
    )?;
    Ok(())
}

/// Sets or clears the capacity the workspace is assigned to.
pub(crate) fn set_capacity(
    conn: &Connection,
    id: &str,
    capacity: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "UPDATE workspaces SET capacity_id = ?2 WHERE id = ?1",
        params![id, capacity],
    )?;
    Ok(())
}

/// The distinct capacity ids workspaces are assigned to, in order of first use.
pub(crate) fn capacity_ids(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT capacity_id FROM workspaces WHERE capacity_id IS NOT NULL
          GROUP BY capacity_id ORDER BY min(seq)",
    )?;
    let rows = stmt.query_map([], |row| row.get(0))?;
    rows.collect()
}

/// Deletes a workspace with its items, parts, folders and role assignments.
pub(crate) fn delete(conn: &Connection, id: &str) -> rusqlite::Result<()> {
    // Folders reference their parents, so clear the hierarchy before the cascade removes them.
    conn.execute(
        "UPDATE folders SET parent_id = NULL WHERE workspace_id = ?1",
        [id],
    )?;
    conn.execute("DELETE FROM workspaces WHERE id = ?1", [id])?;
    Ok(())
}
