//! Tags applied to workspaces (Workspaces_ApplyWorkspaceTags), shown in the workspace's
//! `tags` as `{id, displayName}` (swagger `Workspace.tags`).

use rusqlite::{Connection, params};
use serde_json::{Value, json};

/// Migration step: the table of applied workspace tags.
pub(crate) const MIGRATION: &str = r"
CREATE TABLE workspace_tags (
    workspace_id TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
    tag_id       TEXT NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
    seq          INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, tag_id)
) WITHOUT ROWID;
";

/// Applies a tag to a workspace; applying it again changes nothing.
pub(crate) fn apply(conn: &Connection, workspace_id: &str, tag_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR IGNORE INTO workspace_tags (workspace_id, tag_id, seq)
         VALUES (?1, ?2,
                 (SELECT coalesce(max(seq), 0) + 1 FROM workspace_tags WHERE workspace_id = ?1))",
        params![workspace_id, tag_id],
    )?;
    Ok(())
}

/// Removes a tag from a workspace (a tag that is not there is no error).
pub(crate) fn unapply(conn: &Connection, workspace_id: &str, tag_id: &str) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM workspace_tags WHERE workspace_id = ?1 AND tag_id = ?2",
        params![workspace_id, tag_id],
    )?;
    Ok(())
}

/// The workspace's tags in the order applied, as `{id, displayName}`.
pub(crate) fn of(conn: &Connection, workspace_id: &str) -> rusqlite::Result<Vec<Value>> {
    let mut stmt = conn.prepare_cached(
        "SELECT t.id, t.display_name FROM workspace_tags w JOIN tags t ON t.id = w.tag_id
          WHERE w.workspace_id = ?1 ORDER BY w.seq",
    )?;
    let rows = stmt.query_map([workspace_id], |r| {
        Ok(json!({"id": r.get::<_, String>(0)?, "displayName": r.get::<_, String>(1)?}))
    })?;
    rows.collect()
}
